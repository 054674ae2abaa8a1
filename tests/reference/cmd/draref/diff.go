package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"draplane.dev/tests/reference/runner"
	"draplane.dev/tests/reference/scenario"
)

func cmdDiff(args []string) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	start := fs.Uint64("seed-start", 0, "first seed (inclusive)")
	end := fs.Uint64("seed-end", 100, "last seed (exclusive)")
	var files stringList
	fs.Var(&files, "f", "scenario file or folder to run instead of generated scenarios (repeatable)")
	draplane := fs.String("draplane", "", "path of the draplane binary; without it, only parsing and determinism are checked")
	out := fs.String("out", "draref-mismatches", "folder for mismatching scenarios (with .draref.json, .draplane.json, .diff.txt)")
	jobs := fs.Int("j", 0, "scenarios in parallel (default: number of CPUs)")
	timeout := fs.Duration("timeout", scenario.DefaultTimeout, "upstream Allocate time limit; scenarios that hit it are skipped")
	dpTimeout := fs.Duration("draplane-timeout", 60*time.Second, "time limit of one draplane run")
	full := fs.Bool("full", false, "also compare error messages and complete allocation objects")
	minimize := fs.Bool("minimize", true, "shrink mismatching scenarios before writing them (needs --draplane)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: draref diff [--seed-start A --seed-end B | -f FILE_OR_DIR ...] [--draplane PATH] [flags]")
		fs.PrintDefaults()
		fmt.Fprintln(fs.Output(), "\nprints \"N passed, M failed, S skipped\" last; exit status 1 if any failed")
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 || (*end <= *start && len(files) == 0) {
		fs.Usage()
		return 2
	}
	began := time.Now()
	sum, err := runner.Run(runner.Config{
		SeedStart: *start, SeedEnd: *end, Files: files,
		Draplane: *draplane, OutDir: *out, Jobs: *jobs,
		Timeout: *timeout, DraplaneTimeout: *dpTimeout,
		Full: *full, Minimize: *minimize,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "draref diff:", err)
		return 2
	}
	what := fmt.Sprintf("seeds %d..%d", *start, *end-1)
	if len(files) > 0 {
		what = strings.Join(files, ", ")
	}
	mode := "self-check (parse + determinism)"
	if *draplane != "" {
		mode = "upstream vs " + *draplane
	}
	fmt.Printf("%s (%s; %s; %s)\n", sum, what, mode, time.Since(began).Round(time.Millisecond))
	if sum.Failed > 0 {
		return 1
	}
	return 0
}
