// Command draref is the reference oracle for draplane: it runs the upstream
// Kubernetes structured allocator and DRA CEL compiler
// (k8s.io/dynamic-resource-allocation) on draplane scenario files.
//
//	draref allocate -f scenario.yaml           upstream result JSON
//	draref cel eval --expr EXPR ...            evaluate a selector / expression
//	draref cel gen --seed-start A --seed-end B CEL differential corpus (JSON lines)
//	draref cel bench --input FILE              cel-go selector timings
//	draref gen --seed N --count K --out DIR    write generated scenarios
//	draref diff --seed-start A --seed-end B    differential / self test
//	draref bench --json                        upstream allocator timings
//	draref promcheck -f metrics.txt            parse and lint a Prometheus exposition
//	draref promql --rules R --dashboard D      check alert rules and dashboard queries
//
// See docs/scenario-format.md.
package main

import (
	"fmt"
	"os"
)

const usage = `usage: draref <command> [flags]

commands:
  allocate   run the upstream allocator on a scenario file and print the result JSON
  cel eval   evaluate a DRA selector against a device, or an expression in a plain environment
  cel gen    write the CEL differential-test corpus (generated selectors x devices, cel-go outcomes)
  cel bench  time cel-go selectors (DeviceMatches and prebuilt evaluation) on a bench input file
  gen        write generated scenarios (seeded)
  diff       generate scenarios and compare draref with draplane (or check determinism)
  bench      time the upstream allocator on the benchmark scenario classes
  promcheck  parse (strictly) and lint a Prometheus text exposition, as promtool check metrics
  promql     validate a PrometheusRule and a Grafana dashboard's PromQL against an exposition
  version    print the upstream module versions

run "draref <command> -h" for the flags of a command.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	args := os.Args[2:]
	var code int
	switch os.Args[1] {
	case "allocate":
		code = cmdAllocate(args)
	case "cel":
		code = cmdCEL(args)
	case "gen":
		code = cmdGen(args)
	case "diff":
		code = cmdDiff(args)
	case "bench":
		code = cmdBench(args)
	case "promcheck":
		code = cmdPromcheck(args)
	case "promql":
		code = cmdPromql(args)
	case "version":
		code = cmdVersion(args)
	case "-h", "--help", "help":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "draref: unknown command %q\n\n%s", os.Args[1], usage)
		code = 2
	}
	os.Exit(code)
}
