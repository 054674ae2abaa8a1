package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"draplane.dev/tests/reference/bench"
	"draplane.dev/tests/reference/gen"
)

func cmdBench(args []string) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	budget := fs.Duration("budget", 8*time.Second, "time per class")
	timeout := fs.Duration("timeout", 3*time.Second, "time limit of one allocation")
	maxSamples := fs.Int("max-samples", 20000, "allocations per class at most")
	only := fs.String("only", "", "comma-separated class names to run (default: all)")
	write := fs.String("write-scenarios", "", "write the class scenarios to this folder and exit")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: draref bench [--json] [--budget 8s] [--timeout 3s] [--only a,b] [--write-scenarios DIR]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	if *write != "" {
		if err := os.MkdirAll(*write, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "draref bench:", err)
			return 1
		}
		for _, bc := range gen.BenchCases() {
			path := filepath.Join(*write, "bench-"+bc.Name+".yaml")
			if err := os.WriteFile(path, bc.Data, 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "draref bench:", err)
				return 1
			}
			fmt.Println(path)
		}
		return 0
	}
	opts := bench.Options{Budget: *budget, Timeout: *timeout, MaxSamples: *maxSamples}
	if *only != "" {
		opts.Only = strings.Split(*only, ",")
	}
	rep, err := bench.Run(opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "draref bench:", err)
		return 1
	}
	rep.Go = runtime.Version()
	if *asJSON {
		out, err := marshalJSON(rep, true)
		if err != nil {
			fmt.Fprintln(os.Stderr, "draref bench:", err)
			return 1
		}
		os.Stdout.Write(out)
		return 0
	}
	fmt.Printf("%-52s %7s %12s %12s %9s %12s  %s\n", "class", "allocs", "median", "p99", "timeouts", "steps(med)", "outcome")
	for _, c := range rep.Classes {
		fmt.Printf("%-52s %7d %12s %12s %9d %12d  %s\n", c.Title, c.Allocations, time.Duration(c.MedianNs), time.Duration(c.P99Ns), c.Timeouts, c.AllocateOneMedian, c.Outcome)
	}
	fmt.Printf("(%s, %s, per allocation = NewAllocator + Allocate on one node)\n", rep.Implementation, rep.Go)
	return 0
}
