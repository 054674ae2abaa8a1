#!/usr/bin/env bash
# The node driver's check on a real NVIDIA GPU (an H200), for a session
# that has the GPU machine (its `run` tool copies this tree there; nothing
# there can be installed or downloaded). Read-only on the GPU: discovery
# only, no MIG or other setting is changed.
#
# Here (build machine):   tests/gpu/check-h200.sh bundle
#   builds draplane-nvml-discover and packs it with the shared libraries it
#   needs into build/gpu-check/ (carry that path to the GPU machine).
# There (GPU machine):     tests/gpu/check-h200.sh run
#   discovers the GPUs, writes the raw NVML facts and the ResourceSlice-level
#   comparison with the fake backend's H200 to $OUT (default build/gpu-out):
#   facts.json (save as tests/data/nvml-h200-facts.json), model.json,
#   compare.txt; exit 1 when the fake H200 differs from the real one.
set -euo pipefail
cd "$(dirname "$0")/../.."
bundle=build/gpu-check
case "${1:-}" in
  bundle)
    cmake --preset release >/dev/null
    cmake --build --preset release --target draplane-nvml-discover
    rm -rf "$bundle" && mkdir -p "$bundle/lib"
    cp build/release/src/devices/nvml/draplane-nvml-discover "$bundle/"
    # Every shared library outside libc's own set goes along.
    ldd "$bundle/draplane-nvml-discover" | awk '/=> \// {print $3}' |
      grep -Ev '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so' |
      xargs -r -I{} cp -L {} "$bundle/lib/"
    "$bundle/draplane-nvml-discover" --model H200 > "$bundle/model-h200.json"
    du -sh "$bundle"
    ;;
  run)
    out="${OUT:-build/gpu-out}"
    mkdir -p "$out"
    export LD_LIBRARY_PATH="$PWD/$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    nvidia-smi -L > "$out/nvidia-smi-L.txt" 2>&1 || true
    nvidia-smi mig -lgip > "$out/nvidia-smi-mig-lgip.txt" 2>&1 || true
    nvidia-smi mig -lgipp > "$out/nvidia-smi-mig-lgipp.txt" 2>&1 || true
    "$bundle/draplane-nvml-discover" > "$out/facts.json" 2> "$out/discover.err"
    cp "$bundle/model-h200.json" "$out/model.json"
    python3 tests/gpu/compare_facts.py "$out/facts.json" "$out/model.json" |
      tee "$out/compare.txt"
    ;;
  *)
    echo "usage: tests/gpu/check-h200.sh bundle|run" >&2
    exit 2
    ;;
esac
