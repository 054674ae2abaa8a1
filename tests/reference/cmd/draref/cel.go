package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"draplane.dev/tests/reference/celgen"
)

const celUsage = `usage: draref cel <command> [flags]

commands:
  eval    evaluate a DRA selector against a device, or an expression in a plain environment
  gen     write the differential-test corpus: generated selectors x devices with cel-go's outcome (JSON lines)
  bench   time cel-go on the expressions and devices of a bench input file (JSON)
`

func cmdCEL(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, celUsage)
		return 2
	}
	switch args[0] {
	case "eval":
		return cmdCELEval(args[1:])
	case "gen":
		return cmdCELGen(args[1:])
	case "bench":
		return cmdCELBench(args[1:])
	case "-h", "--help", "help":
		fmt.Print(celUsage)
		return 0
	}
	fmt.Fprintf(os.Stderr, "draref cel: unknown command %q\n\n%s", args[0], celUsage)
	return 2
}

func cmdCELGen(args []string) int {
	fs := flag.NewFlagSet("cel gen", flag.ContinueOnError)
	start := fs.Uint64("seed-start", 0, "first seed (inclusive)")
	end := fs.Uint64("seed-end", 100, "last seed (exclusive)")
	out := fs.String("o", "-", "output file (JSON lines); - for stdout")
	featureList := fs.String("features", "", "comma-separated allocator features for the DRA compiler (default: Kubernetes 1.37 defaults)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: draref cel gen [--seed-start A] [--seed-end B] [-o corpus.jsonl]")
		fs.PrintDefaults()
		fmt.Fprintln(fs.Output(), `
Each seed yields a fixed set of devices (full GPU, MIG device, list and
extreme-int attributes, sparse, empty, another driver) and `+fmt.Sprint(celgen.ExpressionsPerSeed)+` random
selectors; those cel-go compiles in the DRA environment are crossed with
the devices. One line per pair:
  {"seed", "expression", "driver", "device": <resource.k8s.io/v1 Device>,
   "result": true|false|null, "error": null|"<DeviceMatches error, EnhanceRuntimeError applied>"}
The output depends only on the seeds (generator version `+fmt.Sprint(celgen.Version)+`).`)
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 || *end <= *start {
		fs.Usage()
		return 2
	}
	features, err := celFeatures(*featureList, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "draref cel gen:", err)
		return 2
	}
	w := os.Stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "draref cel gen:", err)
			return 1
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	began := time.Now()
	var cases, generated, compiled, errors int
	for seed := *start; seed < *end; seed++ {
		cs, st, err := celgen.Generate(context.Background(), seed, features)
		if err != nil {
			fmt.Fprintf(os.Stderr, "draref cel gen: seed %d: %v\n", seed, err)
			return 1
		}
		generated += st.Generated
		compiled += st.Compiled
		for i := range cs {
			if cs[i].Error != nil {
				errors++
			}
			if err := enc.Encode(&cs[i]); err != nil {
				fmt.Fprintln(os.Stderr, "draref cel gen:", err)
				return 1
			}
		}
		cases += len(cs)
	}
	if err := bw.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "draref cel gen:", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "draref cel gen: %d pairs (%d with errors) from %d of %d generated expressions that compile, seeds %d..%d, generator v%d, %s\n",
		cases, errors, compiled, generated, *start, *end-1, celgen.Version, time.Since(began).Round(time.Millisecond))
	return 0
}

func cmdCELBench(args []string) int {
	fs := flag.NewFlagSet("cel bench", flag.ContinueOnError)
	input := fs.String("input", "bench/cel_inputs.json", "bench input: {\"devices\": [{name, driver, device}], \"expressions\": [{name, expression}]}")
	benchTime := fs.Duration("benchtime", 300*time.Millisecond, "time per measurement")
	featureList := fs.String("features", "", "comma-separated allocator features for the DRA compiler (default: Kubernetes 1.37 defaults)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: draref cel bench [--input bench/cel_inputs.json] [--benchtime 300ms]")
		fs.PrintDefaults()
		fmt.Fprintln(fs.Output(), "\nprints JSON: per (expression, device) device_matches_ns (upstream DeviceMatches, maps rebuilt per call), eval_ns (Program.ContextEval on a prebuilt activation), allocations per call, and the outcome")
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	data, err := os.ReadFile(*input)
	if err != nil {
		fmt.Fprintln(os.Stderr, "draref cel bench:", err)
		return 1
	}
	in, err := celgen.ParseBenchInput(data)
	if err != nil {
		fmt.Fprintf(os.Stderr, "draref cel bench: %s: %v\n", *input, err)
		return 1
	}
	features, err := celFeatures(*featureList, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "draref cel bench:", err)
		return 2
	}
	rep, err := celgen.RunBench(in, features, *benchTime)
	if err != nil {
		fmt.Fprintln(os.Stderr, "draref cel bench:", err)
		return 1
	}
	rep.Go = runtime.Version()
	out, err := marshalJSON(rep, true)
	if err != nil {
		fmt.Fprintln(os.Stderr, "draref cel bench:", err)
		return 1
	}
	os.Stdout.Write(out)
	return 0
}
