// Command draref is the reference oracle for draplane: it runs the upstream
// Kubernetes structured allocator and DRA CEL compiler
// (k8s.io/dynamic-resource-allocation) on draplane scenario files.
//
//	draref allocate -f scenario.yaml           upstream result JSON
//	draref cel eval --expr EXPR ...            evaluate a selector / expression
//	draref gen --seed N --count K --out DIR    write generated scenarios
//	draref diff --seed-start A --seed-end B    differential / self test
//	draref bench --json                        upstream allocator timings
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
  gen        write generated scenarios (seeded)
  diff       generate scenarios and compare draref with draplane (or check determinism)
  bench      time the upstream allocator on the benchmark scenario classes
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
		if len(args) == 0 || args[0] != "eval" {
			fmt.Fprintln(os.Stderr, "usage: draref cel eval [flags]")
			code = 2
			break
		}
		code = cmdCELEval(args[1:])
	case "gen":
		code = cmdGen(args)
	case "diff":
		code = cmdDiff(args)
	case "bench":
		code = cmdBench(args)
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
