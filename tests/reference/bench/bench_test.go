package bench

import (
	"testing"
	"time"
)

// TestClasses runs every class once and pins its outcome.
func TestClasses(t *testing.T) {
	rep, err := Run(Options{Budget: time.Millisecond, MaxSamples: 1, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"gpu-1-of-8":           "allocated",
		"gpu-4-matchattr-of-8": "allocated",
		"mig-h100x8":           "allocated",
		"32-of-31":             "timeout",
		"500-nodes-x-10":       "allocated",
	}
	if len(rep.Classes) != len(want) {
		t.Fatalf("%d classes, want %d", len(rep.Classes), len(want))
	}
	for _, c := range rep.Classes {
		if c.Outcome != want[c.Name] {
			t.Errorf("%s: outcome %q, want %q", c.Name, c.Outcome, want[c.Name])
		}
		if c.Allocations == 0 || c.MedianNs <= 0 {
			t.Errorf("%s: no timing (%+v)", c.Name, c)
		}
		if c.AllocateOneMedian <= 0 {
			t.Errorf("%s: allocateOne statistics not available", c.Name)
		}
	}
}
