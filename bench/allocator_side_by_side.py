#!/usr/bin/env python3
"""Side-by-side allocator benchmark: upstream (draref) vs draplane.

Runs `draref bench --json` (upstream k8s.io/dynamic-resource-allocation,
in-process loops) and, when given, the same scenario classes through
draplane's allocator benchmark (`--draplane CMD`, a command that prints the
same JSON shape), then prints one table per class: scenarios, median and p99
per allocation for each side, and the ratio upstream/draplane. Both sides
run in the same invocation so the ratio is measured under the same load.

draplane's runner is build/release/bench/allocator_benchmark on the
scenarios `draref bench --write-scenarios` writes (the default --draplane
command does both). The machine is shared, so both sides run --repeat times,
alternating, and each class keeps its best median per side; the ratio is
upstream median / draplane median (warm: the Allocator reused across
allocations as the scheduler reuses it; the cold column builds a new one for
every allocation).

Usage: bench/allocator_side_by_side.py [--draref build/draref]
                                        [--draplane 'CMD ...'] [--repeat 2]
                                        [--json]
"""
import argparse
import json
import shlex
import subprocess
import sys


def run_json(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def fmt_ns(ns):
    if ns is None:
        return "-"
    if ns >= 1e9:
        return f"{ns / 1e9:.2f} s"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.1f} us"
    return f"{ns:.0f} ns"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--draref", default="build/draref")
    ap.add_argument("--draplane", default=None,
                    help="command printing draplane's bench JSON (default: "
                         "write the scenarios to a temporary directory and "
                         "run build/release/bench/allocator_benchmark)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--json", action="store_true", help="print merged JSON")
    args = ap.parse_args()

    import os
    import tempfile
    tmp = None
    if args.draplane is None:
        tmp = tempfile.mkdtemp(prefix="draplane-bench-")
        subprocess.run([args.draref, "bench", "--write-scenarios", tmp],
                       check=True, capture_output=True)
        args.draplane = f"build/release/bench/allocator_benchmark --scenarios {tmp}"

    def best(runs):
        merged = {}
        for run in runs:
            for c in run.get("classes", []):
                prev = merged.get(c["name"])
                if prev is None or c["median_ns"] < prev["median_ns"]:
                    merged[c["name"]] = c
        return merged

    up_runs, dp_runs = [], []
    for _ in range(max(1, args.repeat)):
        up_runs.append(run_json([args.draref, "bench", "--json"]))
        dp_runs.append(run_json(shlex.split(args.draplane)))
    up_best = best(up_runs)
    ours = best(dp_runs)
    upstream = dict(up_runs[0])
    upstream["classes"] = [up_best[c["name"]] for c in up_runs[0]["classes"]]
    rows = []
    for c in upstream["classes"]:
        d = ours.get(c["name"], {})
        up_med = c["median_ns"]
        dp_med = d.get("median_ns")
        ratio = (up_med / dp_med) if dp_med else None
        rows.append({
            "class": c["title"], "scenarios": c["scenarios"],
            "upstream_median_ns": up_med, "upstream_p99_ns": c["p99_ns"],
            "upstream_timeouts": c.get("timeouts", 0),
            "draplane_median_ns": dp_med, "draplane_p99_ns": d.get("p99_ns"),
            "draplane_cold_median_ns": d.get("cold_median_ns"),
            "draplane_steps_median": d.get("steps_median"),
            "upstream_steps_median": c.get("allocate_one_median"),
            "ratio": ratio,
        })
    if args.json:
        json.dump({"upstream": upstream.get("implementation"), "rows": rows},
                  sys.stdout, indent=2)
        print()
        return
    header = ("class", "scen", "upstream med", "upstream p99",
              "draplane med", "draplane p99", "draplane cold", "steps up/dp",
              "ratio")
    print(" | ".join(header))
    for r in rows:
        note = f" ({r['upstream_timeouts']} timeouts)" if r["upstream_timeouts"] else ""
        print(" | ".join([
            r["class"], str(r["scenarios"]),
            fmt_ns(r["upstream_median_ns"]) + note, fmt_ns(r["upstream_p99_ns"]),
            fmt_ns(r["draplane_median_ns"]), fmt_ns(r["draplane_p99_ns"]),
            fmt_ns(r["draplane_cold_median_ns"]),
            f"{r['upstream_steps_median']}/{r['draplane_steps_median']}",
            f"{r['ratio']:.1f}x" if r["ratio"] else "-",
        ]))
    ratios = sorted(r["ratio"] for r in rows if r["ratio"])
    if ratios:
        print(f"median ratio over classes: {ratios[len(ratios) // 2]:.1f}x; "
              f"lowest: {ratios[0]:.1f}x")


if __name__ == "__main__":
    main()
