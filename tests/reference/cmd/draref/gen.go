package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"draplane.dev/tests/reference/gen"
)

func cmdGen(args []string) int {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	seed := fs.Uint64("seed", 0, "first seed")
	count := fs.Uint64("count", 1, "number of scenarios (seeds seed .. seed+count-1)")
	out := fs.String("out", "", "output folder (created); - prints one scenario to stdout")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: draref gen --seed N [--count K] --out DIR|-")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	if *out == "-" {
		if *count != 1 {
			fmt.Fprintln(os.Stderr, "draref gen: --out - writes exactly one scenario (--count 1)")
			return 2
		}
		os.Stdout.Write(gen.Generate(*seed).Data)
		return 0
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "draref gen:", err)
		return 1
	}
	for s := *seed; s < *seed+*count; s++ {
		sc := gen.Generate(s)
		if err := os.WriteFile(filepath.Join(*out, sc.FileName()), sc.Data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "draref gen:", err)
			return 1
		}
	}
	fmt.Fprintf(os.Stderr, "draref gen: wrote %d scenarios (generator v%d, seeds %d..%d) to %s\n", *count, gen.Version, *seed, *seed+*count-1, *out)
	return 0
}
