package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
	"sigs.k8s.io/yaml"
)

// cmdPromql checks what reads draplane's metrics: the rule groups of a
// PrometheusRule (--rules; validated as Prometheus validates a rule file:
// PromQL, durations, label and annotation templates) and the PromQL
// expressions of a Grafana dashboard (--dashboard, panels[].targets[].expr),
// and that every metric they select is in an exposition (--metrics, text
// format; a histogram also provides its _bucket, _sum and _count series)
// unless named with --allow-missing. Exit 0 when all is well, 1 otherwise.
func cmdPromql(args []string) int {
	fs := flag.NewFlagSet("promql", flag.ContinueOnError)
	rules := fs.String("rules", "", "PrometheusRule YAML (monitoring.coreos.com/v1)")
	dashboard := fs.String("dashboard", "", "Grafana dashboard JSON")
	metrics := fs.String("metrics", "", "Prometheus text exposition with the metrics the expressions may use")
	var allowMissing stringList
	fs.Var(&allowMissing, "allow-missing", "metric the exposition may lack (repeatable)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	p := parser.NewParser(parser.Options{})
	var exprs []string // "where: expr"
	failed := false
	fail := func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "promql: "+format+"\n", a...)
		failed = true
	}
	if *rules != "" {
		data, err := os.ReadFile(*rules)
		if err != nil {
			fail("%v", err)
			return 1
		}
		var obj struct {
			APIVersion string          `json:"apiVersion"`
			Kind       string          `json:"kind"`
			Spec       json.RawMessage `json:"spec"`
		}
		if err := yaml.Unmarshal(data, &obj); err != nil {
			fail("%s: %v", *rules, err)
			return 1
		}
		if obj.APIVersion != "monitoring.coreos.com/v1" || obj.Kind != "PrometheusRule" {
			fail("%s: not a monitoring.coreos.com/v1 PrometheusRule", *rules)
		}
		groupsYAML, err := yaml.JSONToYAML(obj.Spec)
		if err != nil {
			fail("%s: spec: %v", *rules, err)
			return 1
		}
		logger := slog.New(slog.NewTextHandler(io.Discard, nil))
		groups, errs := rulefmt.Parse(groupsYAML, false, model.LegacyValidation, p, logger)
		for _, e := range errs {
			fail("%s: %v", *rules, e)
		}
		if groups != nil {
			for _, g := range groups.Groups {
				for _, r := range g.Rules {
					exprs = append(exprs, fmt.Sprintf("%s alert %s: %s", *rules, r.Alert, r.Expr))
				}
			}
		}
	}
	if *dashboard != "" {
		data, err := os.ReadFile(*dashboard)
		if err != nil {
			fail("%v", err)
			return 1
		}
		var dash struct {
			Panels []struct {
				Title   string `json:"title"`
				Targets []struct {
					Expr string `json:"expr"`
				} `json:"targets"`
			} `json:"panels"`
		}
		if err := json.Unmarshal(data, &dash); err != nil {
			fail("%s: %v", *dashboard, err)
			return 1
		}
		for _, panel := range dash.Panels {
			if len(panel.Targets) == 0 {
				fail("%s: panel %q has no query", *dashboard, panel.Title)
			}
			for _, t := range panel.Targets {
				exprs = append(exprs, fmt.Sprintf("%s panel %q: %s", *dashboard, panel.Title, t.Expr))
			}
		}
	}
	known := map[string]bool{}
	if *metrics != "" {
		data, err := os.ReadFile(*metrics)
		if err != nil {
			fail("%v", err)
			return 1
		}
		textParser := expfmt.NewTextParser(model.LegacyValidation)
		families, err := textParser.TextToMetricFamilies(bytes.NewReader(data))
		if err != nil {
			fail("%s: %v", *metrics, err)
			return 1
		}
		for name, f := range families {
			known[name] = true
			if f.GetType().String() == "HISTOGRAM" || f.GetType().String() == "SUMMARY" {
				for _, suffix := range []string{"_bucket", "_sum", "_count"} {
					known[name+suffix] = true
				}
			}
		}
	}
	for _, a := range allowMissing {
		known[a] = true
	}
	used := map[string]bool{}
	for _, where := range exprs {
		expr := where[strings.LastIndex(where, ": ")+2:]
		node, err := p.ParseExpr(expr)
		if err != nil {
			fail("%s: %v", where, err)
			continue
		}
		parser.Inspect(node, func(n parser.Node, _ []parser.Node) error {
			if vs, ok := n.(*parser.VectorSelector); ok {
				used[vs.Name] = true
				if *metrics != "" && !known[vs.Name] {
					fail("%s: metric %s is not exported", where, vs.Name)
				}
			}
			return nil
		})
	}
	if failed {
		return 1
	}
	names := make([]string, 0, len(used))
	for n := range used {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Printf("promql: %d expressions valid, metrics used: %s\n", len(exprs), strings.Join(names, " "))
	return 0
}
