#!/usr/bin/env python3
"""Side-by-side allocator benchmark: upstream (draref) vs draplane.

Runs `draref bench --json` (upstream k8s.io/dynamic-resource-allocation,
in-process loops) and, when given, the same scenario classes through
draplane's allocator benchmark (`--draplane CMD`, a command that prints the
same JSON shape), then prints one table per class: scenarios, median and p99
per allocation for each side, and the ratio upstream/draplane. Both sides
run in the same invocation so the ratio is measured under the same load.

Until draplane's allocator exists (issue 5) its columns print as "-".

Usage: bench/allocator_side_by_side.py [--draref build/draref]
                                        [--draplane 'CMD ...'] [--json]
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
                    help="command printing draplane's bench JSON")
    ap.add_argument("--json", action="store_true", help="print merged JSON")
    args = ap.parse_args()

    upstream = run_json([args.draref, "bench", "--json"])
    ours = {}
    if args.draplane:
        for c in run_json(shlex.split(args.draplane)).get("classes", []):
            ours[c["name"]] = c

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
            "ratio": ratio,
        })
    if args.json:
        json.dump({"upstream": upstream.get("implementation"), "rows": rows},
                  sys.stdout, indent=2)
        print()
        return
    header = ("class", "scen", "upstream med", "upstream p99",
              "draplane med", "draplane p99", "ratio")
    print(" | ".join(header))
    for r in rows:
        note = f" ({r['upstream_timeouts']} timeouts)" if r["upstream_timeouts"] else ""
        print(" | ".join([
            r["class"], str(r["scenarios"]),
            fmt_ns(r["upstream_median_ns"]) + note, fmt_ns(r["upstream_p99_ns"]),
            fmt_ns(r["draplane_median_ns"]), fmt_ns(r["draplane_p99_ns"]),
            f"{r['ratio']:.1f}x" if r["ratio"] else "-",
        ]))


if __name__ == "__main__":
    main()
