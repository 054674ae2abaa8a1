package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// cmdPromcheck does what `promtool check metrics` does: parses a Prometheus
// text exposition with the Prometheus text parser (strict: any syntax or
// type error fails) and lints it with promlint. Lint problems of metrics
// named with --allow are reported but do not fail. With --require, each
// named metric family must be present. Exit 0 when clean, 1 on a parse
// error or a missing family, 3 on lint problems.
func cmdPromcheck(args []string) int {
	fs := flag.NewFlagSet("promcheck", flag.ContinueOnError)
	file := fs.String("f", "-", "exposition file (- = standard input)")
	var allow, require stringList
	fs.Var(&allow, "allow", "metric whose lint problems are accepted (repeatable)")
	fs.Var(&require, "require", "metric family that must be present (repeatable)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var in io.Reader = os.Stdin
	if *file != "-" {
		f, err := os.Open(*file)
		if err != nil {
			fmt.Fprintln(os.Stderr, "promcheck:", err)
			return 1
		}
		defer f.Close()
		in = f
	}
	data, err := io.ReadAll(in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "promcheck:", err)
		return 1
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(data))
	if err != nil {
		fmt.Fprintln(os.Stderr, "promcheck: parse error:", err)
		return 1
	}
	code := 0
	for _, name := range require {
		if _, ok := families[name]; !ok {
			fmt.Fprintf(os.Stderr, "promcheck: missing metric family %s\n", name)
			code = 1
		}
	}
	problems, err := promlint.New(bytes.NewReader(data)).Lint()
	if err != nil {
		fmt.Fprintln(os.Stderr, "promcheck: lint:", err)
		return 1
	}
	allowed := map[string]bool{}
	for _, a := range allow {
		allowed[a] = true
	}
	sort.Slice(problems, func(i, j int) bool { return problems[i].Metric < problems[j].Metric })
	for _, p := range problems {
		if allowed[p.Metric] {
			fmt.Printf("%s: %s (allowed)\n", p.Metric, p.Text)
			continue
		}
		fmt.Printf("%s: %s\n", p.Metric, p.Text)
		if code == 0 {
			code = 3
		}
	}
	if code == 0 {
		fmt.Printf("promcheck: %d metric families, exposition valid\n", len(families))
	}
	return code
}
