#!/usr/bin/env python3
"""Compares the GPUs NVML reported (draplane-nvml-discover JSON) with what
the fake backend reports for the same model (draplane-nvml-discover
--model): every fact that identifies the model (name, architecture,
compute capability, memory, PCI device ID, MIG profiles and placements)
must be equal; per-GPU facts (UUID, bus ID, index) are not compared.

  compare_facts.py REAL.json MODEL.json
Prints one line per GPU and "N passed, N failed"; exit 1 on a difference.
"""
import json
import sys

MODEL_KEYS = ["productName", "architecture", "brand", "cudaComputeMajor",
              "cudaComputeMinor", "memoryBytes", "pciDeviceID", "migCapable",
              "migProfiles"]


def main():
    real = json.load(open(sys.argv[1]))
    model = json.load(open(sys.argv[2]))["gpus"][0]
    passed = failed = 0
    for gpu in real["gpus"]:
        diffs = [k for k in MODEL_KEYS if gpu.get(k) != model.get(k)]
        if diffs:
            failed += 1
            print("FAIL gpu %s (%s):" % (gpu.get("index"), gpu.get("uuid")))
            for k in diffs:
                print("  %s: real %s, fake %s" % (
                    k, json.dumps(gpu.get(k)), json.dumps(model.get(k))))
        else:
            passed += 1
            print("PASS gpu %s (%s)" % (gpu.get("index"), gpu.get("uuid")))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not real["gpus"] else 0


if __name__ == "__main__":
    sys.exit(main())
