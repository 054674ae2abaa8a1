package runner

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
)

func decode(t *testing.T, s string) *Outcome {
	t.Helper()
	o, err := DecodeOutcome([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

const alloc = `{"scenario":"s","node":"n","error":null,"claims":[{"namespace":"d","name":"c","allocated":true,
 "allocation":{"devices":{"results":[{"request":"r","driver":"d.example.com","pool":"p","device":"dev-0"}]},"nodeSelector":null}}]}`

func TestCompare(t *testing.T) {
	base := decode(t, alloc)
	for name, tc := range map[string]struct {
		got      string
		full     bool
		category string
	}{
		"same":                  {got: alloc},
		"same with reasons":     {got: strings.Replace(alloc, `"allocated":true,`, `"allocated":true,"reasons":["x"],`, 1)},
		"other device":          {got: strings.Replace(alloc, "dev-0", "dev-1", 1), category: MismatchDevices},
		"not allocated":         {got: `{"scenario":"s","node":"n","error":null,"claims":[{"namespace":"d","name":"c","allocated":false,"reasons":["no"]}]}`, category: MismatchFeasibility},
		"error":                 {got: `{"scenario":"s","node":"n","error":{"class":"fatal","message":"m"},"claims":[]}`, category: MismatchErrorClass},
		"node selector ignored": {got: strings.Replace(alloc, `"nodeSelector":null`, `"nodeSelector":{}`, 1)},
		"node selector full":    {got: strings.Replace(alloc, `"nodeSelector":null`, `"nodeSelector":{}`, 1), full: true, category: MismatchAllocation},
		"other claim":           {got: strings.Replace(alloc, `"name":"c"`, `"name":"x"`, 1), category: MismatchClaims},
	} {
		t.Run(name, func(t *testing.T) {
			diffs := Compare(base, decode(t, tc.got), tc.full)
			switch {
			case tc.category == "" && len(diffs) > 0:
				t.Fatalf("unexpected differences: %v", diffs)
			case tc.category != "" && (len(diffs) == 0 || diffs[0].Category != tc.category):
				t.Fatalf("got %v, want a %s difference", diffs, tc.category)
			}
		})
	}
	errOutcome := decode(t, `{"scenario":"s","node":"n","error":{"class":"fatal","message":"a"},"claims":[]}`)
	other := decode(t, `{"scenario":"s","node":"n","error":{"class":"fatal","message":"b"},"claims":[]}`)
	if d := Compare(errOutcome, other, false); len(d) != 0 {
		t.Errorf("messages compared without --full: %v", d)
	}
	if d := Compare(errOutcome, other, true); len(d) != 1 || d[0].Category != MismatchErrorMessage {
		t.Errorf("messages not compared with --full: %v", d)
	}
}

// TestSelfCheck runs the self-check mode (generation, parsing, determinism)
// on a few seeds.
func TestSelfCheck(t *testing.T) {
	sum, err := Run(Config{SeedStart: 0, SeedEnd: 40, Jobs: 2, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 0 || sum.Passed+sum.Skipped != 40 {
		t.Fatalf("summary %s", sum)
	}
}

func TestMinimizeHelpers(t *testing.T) {
	var m map[string]any
	if err := json.Unmarshal([]byte(`{"spec":{"devices":[1,2,3]}}`), &m); err != nil {
		t.Fatal(err)
	}
	l, ok := lookupList(m, []string{"spec", "devices"})
	if !ok || len(l) != 3 {
		t.Fatalf("lookupList: %v %v", l, ok)
	}
	setList(m, []string{"spec", "devices"}, l[:1])
	if l, _ := lookupList(m, []string{"spec", "devices"}); len(l) != 1 {
		t.Fatalf("setList: %v", m)
	}
	setList(m, []string{"spec", "devices"}, nil)
	if _, ok := m["spec"].(map[string]any)["devices"]; ok {
		t.Fatalf("empty list not removed: %v", m)
	}
}
