#!/usr/bin/env python3
"""Side-by-side DRA selector benchmark: cel-go (draref) vs draplane.

Runs `draref cel bench` (cel-go through k8s.io/dynamic-resource-allocation,
in-process testing.Benchmark loops) and draplane's cel_benchmark (Google
Benchmark) on the same input file (bench/cel_inputs.json: expressions x
devices) in one invocation, and prints one row per (expression, device):

  cel-go DeviceMatches  upstream's per-call path: it rebuilds the device's
                        attribute and capacity maps on every call, then
                        evaluates; what the scheduler pays per selector and
                        device
  cel-go Eval           Program.ContextEval on an activation built once:
                        pure evaluation
  draplane Matches      cel::Program::Matches on a cel::Device converted
                        once (draplane's allocator converts each device once
                        and runs every selector on it)
  ratios                cel-go time / draplane time
  allocs                heap allocations per evaluation on each side

The outcome (true/false/error) of both sides is shown too and must agree.
Device::Create (the per-device conversion draplane pays once) is reported
below the table, with the ratio for the worst case of one selector per
device: DeviceMatches / (Create + Matches).

Usage: bench/cel_side_by_side.py [--draref build/draref]
         [--draplane build/release/bench/cel_benchmark]
         [--input bench/cel_inputs.json] [--time 0.3] [--json]
"""
import argparse
import json
import math
import os
import subprocess
import sys


def run_json(cmd, env=None):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                         env=env).stdout
    return json.loads(out)


def fmt_ns(ns):
    if ns is None:
        return "-"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} us"
    return f"{ns:.0f} ns"


def fmt_ratio(r):
    return f"{r:.1f}x" if r else "-"


def outcome(result, error):
    if error is not None:
        return "error"
    return "true" if result else "false"


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def to_ns(b):
    scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
    return b["real_time"] * scale


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--draref", default="build/draref")
    ap.add_argument("--draplane", default="build/release/bench/cel_benchmark")
    ap.add_argument("--input", default="bench/cel_inputs.json")
    ap.add_argument("--time", type=float, default=0.3,
                    help="seconds per measurement on each side")
    ap.add_argument("--json", action="store_true", help="print merged JSON")
    args = ap.parse_args()

    upstream = run_json([args.draref, "cel", "bench", "--input", args.input,
                         "--benchtime", f"{args.time}s"])
    env = dict(os.environ, DRAPLANE_CEL_BENCH_INPUT=os.path.abspath(args.input))
    ours = run_json([args.draplane, "--benchmark_format=json",
                     f"--benchmark_min_time={args.time}"], env=env)

    matches, creates = {}, {}
    for b in ours["benchmarks"]:
        parts = b["name"].split("/")
        if parts[0] == "BM_Matches":
            matches[(parts[1], parts[2])] = b
        elif parts[0] == "BM_DeviceCreate":
            creates[parts[1]] = b

    rows = []
    disagreements = 0
    for u in upstream["rows"]:
        d = matches.get((u["name"], u["device"]))
        dp_ns = to_ns(d) if d else None
        create = creates.get(u["device"])
        create_ns = to_ns(create) if create else None
        up_outcome = outcome(u["result"], u["error"])
        dp_outcome = d.get("label") if d else None
        if dp_outcome is not None and dp_outcome != up_outcome:
            disagreements += 1
        rows.append({
            "expression": u["name"], "source": u["expression"],
            "device": u["device"],
            "outcome_celgo": up_outcome, "outcome_draplane": dp_outcome,
            "celgo_device_matches_ns": u["device_matches_ns"],
            "celgo_eval_ns": u["eval_ns"],
            "draplane_matches_ns": dp_ns,
            "ratio_device_matches": (u["device_matches_ns"] / dp_ns
                                     if dp_ns else None),
            "ratio_eval": u["eval_ns"] / dp_ns if dp_ns else None,
            "ratio_device_matches_vs_create_and_matches": (
                u["device_matches_ns"] / (dp_ns + create_ns)
                if dp_ns and create_ns else None),
            "celgo_device_matches_allocs": u["device_matches_allocs"],
            "celgo_eval_allocs": u["eval_allocs"],
            "draplane_allocs": d["allocs"] if d else None,
        })
    summary = {
        "geomean_ratio_device_matches":
            geomean([r["ratio_device_matches"] for r in rows]),
        "geomean_ratio_eval": geomean([r["ratio_eval"] for r in rows]),
        "min_ratio_device_matches":
            min((r["ratio_device_matches"] for r in rows
                 if r["ratio_device_matches"]), default=None),
        "min_ratio_eval": min((r["ratio_eval"] for r in rows
                               if r["ratio_eval"]), default=None),
        "outcome_disagreements": disagreements,
        "draplane_device_create_ns": {k: to_ns(v) for k, v in creates.items()},
        "draplane_device_create_allocs":
            {k: v.get("allocs") for k, v in creates.items()},
    }
    if args.json:
        json.dump({"upstream": upstream.get("implementation"),
                   "go": upstream.get("go"),
                   "context": ours.get("context"),
                   "rows": rows, "summary": summary}, sys.stdout, indent=2)
        print()
        return 1 if disagreements else 0

    header = ("expression", "device", "outcome", "cel-go DeviceMatches",
              "cel-go Eval", "draplane Matches", "DM ratio", "Eval ratio",
              "allocs (DM/Eval/draplane)")
    print(" | ".join(header))
    print(" | ".join("---" for _ in header))
    for r in rows:
        oc = r["outcome_celgo"]
        if r["outcome_draplane"] not in (None, oc):
            oc += f" (draplane: {r['outcome_draplane']}!)"
        dp_allocs = ("-" if r["draplane_allocs"] is None
                     else f"{r['draplane_allocs']:.3g}")
        allocs = (f"{r['celgo_device_matches_allocs']}/"
                  f"{r['celgo_eval_allocs']}/{dp_allocs}")
        print(" | ".join([
            r["expression"], r["device"], oc,
            fmt_ns(r["celgo_device_matches_ns"]), fmt_ns(r["celgo_eval_ns"]),
            fmt_ns(r["draplane_matches_ns"]),
            fmt_ratio(r["ratio_device_matches"]), fmt_ratio(r["ratio_eval"]),
            allocs,
        ]))
    print()
    print(f"geometric mean ratio: DeviceMatches "
          f"{fmt_ratio(summary['geomean_ratio_device_matches'])}, Eval "
          f"{fmt_ratio(summary['geomean_ratio_eval'])}; minimum: "
          f"DeviceMatches {fmt_ratio(summary['min_ratio_device_matches'])}, "
          f"Eval {fmt_ratio(summary['min_ratio_eval'])}")
    for name, ns in summary["draplane_device_create_ns"].items():
        worst = [r["ratio_device_matches_vs_create_and_matches"]
                 for r in rows if r["device"] == name]
        worst = min((w for w in worst if w), default=None)
        print(f"draplane Device::Create({name}): {fmt_ns(ns)}, "
              f"{summary['draplane_device_create_allocs'][name]:g} allocs "
              f"(paid once per device; one selector per device would still "
              f"be >= {fmt_ratio(worst)} faster than DeviceMatches)")
    print(f"({upstream.get('implementation')}, {upstream.get('go')}; "
          f"{args.time}s per measurement; ratios from this one run)")
    if disagreements:
        print(f"ERROR: {disagreements} outcomes differ", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
