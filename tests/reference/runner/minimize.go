package runner

import (
	"bytes"
	"context"
	"encoding/json"

	"sigs.k8s.io/yaml"

	"draplane.dev/tests/reference/scenario"
)

// maxMinimizeSteps bounds the number of draplane runs spent on shrinking
// one mismatching scenario.
const maxMinimizeSteps = 400

type minimized struct {
	data             []byte
	refJSON, gotJSON []byte
	diffs            []Difference
}

// minimize greedily removes objects, then devices, requests, constraints,
// configs, selectors and allocation results, keeping each removal after
// which the scenario still parses, upstream still answers in time, and
// draplane still produces a result document whose first difference has the
// same category (or, for category "draplane", still crashes, hangs or
// prints no result document). Returns nil if the scenario cannot be
// decoded.
func (cfg *Config) minimize(data []byte, category, tmp string) *minimized {
	raws, err := scenario.SplitDocuments(data)
	if err != nil {
		return nil
	}
	docs := make([]map[string]any, 0, len(raws))
	for _, r := range raws {
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			return nil
		}
		docs = append(docs, m)
	}
	steps := 0
	var best *minimized
	check := func(candidate []map[string]any) bool {
		if steps >= maxMinimizeSteps {
			return false
		}
		steps++
		out := render(candidate)
		sc, err := scenario.Parse(out, "minimized")
		if err != nil {
			return false
		}
		ref := scenario.Run(context.Background(), sc, scenario.Options{Timeout: cfg.Timeout})
		if ref.Error != nil && ref.Error.Class == scenario.ClassTimeout {
			return false
		}
		got, gotRaw, err := cfg.runDraplane(out, "yaml", tmp)
		if category == "draplane" {
			// Shrinking a crash, hang or unreadable output.
			if err == nil {
				return false
			}
			best = &minimized{data: out, refJSON: scenario.Marshal(ref, true), gotJSON: gotRaw, diffs: []Difference{{Category: "draplane", Detail: err.Error()}}}
			return true
		}
		if err != nil || (got.Error != nil && got.Error.Class == scenario.ClassInvalidScenario) {
			return false
		}
		diffs := Compare(OutcomeOf(ref), got, cfg.Full)
		if len(diffs) == 0 || diffs[0].Category != category {
			return false
		}
		best = &minimized{data: out, refJSON: scenario.Marshal(ref, true), gotJSON: gotRaw, diffs: diffs}
		return true
	}
	if !check(docs) {
		return nil
	}
	// Whole objects (never the header).
	for progress := true; progress; {
		progress = false
		for i := 0; i < len(docs); i++ {
			if docs[i]["kind"] == scenario.HeaderKind {
				continue
			}
			candidate := append(append([]map[string]any{}, docs[:i]...), docs[i+1:]...)
			if check(candidate) {
				docs = candidate
				progress = true
				i--
			}
		}
	}
	// List elements inside objects.
	lists := [][]string{
		{"spec", "devices"},                // ResourceSlice
		{"spec", "sharedCounters"},         // ResourceSlice
		{"spec", "devices", "requests"},    // ResourceClaim
		{"spec", "devices", "constraints"}, // ResourceClaim
		{"spec", "devices", "config"},      // ResourceClaim
		{"status", "allocation", "devices", "results"},
		{"spec", "selectors"}, // DeviceClass
		{"spec", "config"},    // DeviceClass
	}
	for progress := true; progress; {
		progress = false
		for d := range docs {
			for _, path := range lists {
				for i := 0; ; i++ {
					list, ok := lookupList(docs[d], path)
					if !ok || i >= len(list) {
						break
					}
					candidate := cloneDocs(docs)
					shortened := append(append([]any{}, list[:i]...), list[i+1:]...)
					setList(candidate[d], path, shortened)
					if check(candidate) {
						docs = candidate
						progress = true
						i--
					}
				}
			}
		}
	}
	return best
}

func render(docs []map[string]any) []byte {
	var out bytes.Buffer
	for i, d := range docs {
		data, err := json.Marshal(d)
		if err != nil {
			panic(err)
		}
		y, err := yaml.JSONToYAML(data)
		if err != nil {
			panic(err)
		}
		if i > 0 {
			out.WriteString("---\n")
		}
		out.Write(y)
	}
	return out.Bytes()
}

func cloneDocs(docs []map[string]any) []map[string]any {
	out := make([]map[string]any, len(docs))
	for i, d := range docs {
		data, _ := json.Marshal(d)
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		_ = dec.Decode(&m)
		out[i] = m
	}
	return out
}

func lookupList(m map[string]any, path []string) ([]any, bool) {
	cur := m
	for i, key := range path {
		if i == len(path)-1 {
			l, ok := cur[key].([]any)
			return l, ok
		}
		next, ok := cur[key].(map[string]any)
		if !ok {
			return nil, false
		}
		cur = next
	}
	return nil, false
}

func setList(m map[string]any, path []string, list []any) {
	cur := m
	for _, key := range path[:len(path)-1] {
		cur = cur[key].(map[string]any)
	}
	if len(list) == 0 {
		delete(cur, path[len(path)-1])
		return
	}
	cur[path[len(path)-1]] = list
}
