// Package runner drives the differential test: generated (or given)
// scenarios run through the upstream allocator in-process and through
// `draplane allocate`, compared on feasibility, chosen devices and error
// class.
package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"draplane.dev/tests/reference/scenario"
)

// Outcome is the comparable part of a result document, decoded from either
// side's JSON.
type Outcome struct {
	Scenario string       `json:"scenario"`
	Node     string       `json:"node"`
	Error    *ErrorInfo   `json:"error"`
	Claims   []ClaimEntry `json:"claims"`
}

// ErrorInfo is the error object of the result format.
type ErrorInfo struct {
	Class   string `json:"class"`
	Message string `json:"message"`
}

// ClaimEntry is one claim of the result format.
type ClaimEntry struct {
	Namespace  string          `json:"namespace"`
	Name       string          `json:"name"`
	Allocated  bool            `json:"allocated"`
	Allocation json.RawMessage `json:"allocation,omitempty"`
	Reasons    json.RawMessage `json:"reasons,omitempty"`
}

type deviceResult struct {
	Request string `json:"request"`
	Driver  string `json:"driver"`
	Pool    string `json:"pool"`
	Device  string `json:"device"`
}

type allocationDevices struct {
	Devices struct {
		Results []deviceResult `json:"results"`
	} `json:"devices"`
}

// DecodeOutcome parses a result document.
func DecodeOutcome(data []byte) (*Outcome, error) {
	var o Outcome
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&o); err != nil {
		return nil, err
	}
	return &o, nil
}

// OutcomeOf converts an in-process result.
func OutcomeOf(r *scenario.Result) *Outcome {
	o, err := DecodeOutcome(scenario.Marshal(r, false))
	if err != nil {
		panic(err) // our own output
	}
	return o
}

// Mismatch categories, in the order they are checked.
const (
	MismatchErrorClass   = "error-class"
	MismatchErrorMessage = "error-message"
	MismatchClaims       = "claims"
	MismatchFeasibility  = "feasibility"
	MismatchDevices      = "devices"
	MismatchAllocation   = "allocation"
)

// Difference is one way two outcomes differ.
type Difference struct {
	Category string
	Detail   string
}

func (d Difference) String() string { return d.Category + ": " + d.Detail }

// Compare returns the differences of got (draplane) from want (upstream).
// Always compared: error class (or its absence), the claims listed, their
// feasibility, and per claim the chosen devices in order (request, driver,
// pool, device). With full, also the error message and the complete
// allocation objects (node selector, configs, tolerations, consumed
// capacity, adminAccess, shareID placeholder...). draplane's extra
// "reasons" are never compared.
func Compare(want, got *Outcome, full bool) []Difference {
	var diffs []Difference
	add := func(cat, format string, args ...any) {
		diffs = append(diffs, Difference{Category: cat, Detail: fmt.Sprintf(format, args...)})
	}
	wantClass, gotClass := errClass(want), errClass(got)
	if wantClass != gotClass {
		add(MismatchErrorClass, "upstream %s, draplane %s", describeErr(want), describeErr(got))
		return diffs
	}
	if want.Error != nil {
		if full && want.Error.Message != got.Error.Message {
			add(MismatchErrorMessage, "upstream %q, draplane %q", want.Error.Message, got.Error.Message)
		}
		return diffs
	}
	if len(want.Claims) != len(got.Claims) {
		add(MismatchClaims, "upstream lists %d claims, draplane %d", len(want.Claims), len(got.Claims))
		return diffs
	}
	for i := range want.Claims {
		w, g := want.Claims[i], got.Claims[i]
		id := w.Namespace + "/" + w.Name
		if w.Namespace != g.Namespace || w.Name != g.Name {
			add(MismatchClaims, "claim #%d: upstream %s, draplane %s/%s", i, id, g.Namespace, g.Name)
			continue
		}
		if w.Allocated != g.Allocated {
			add(MismatchFeasibility, "claim %s: upstream allocated=%v, draplane allocated=%v", id, w.Allocated, g.Allocated)
			continue
		}
		if !w.Allocated {
			continue
		}
		wd, werr := devicesOf(w.Allocation)
		gd, gerr := devicesOf(g.Allocation)
		if werr != nil || gerr != nil {
			add(MismatchDevices, "claim %s: cannot decode allocation (upstream: %v, draplane: %v)", id, werr, gerr)
			continue
		}
		if !reflect.DeepEqual(wd, gd) {
			add(MismatchDevices, "claim %s: upstream %s, draplane %s", id, formatDevices(wd), formatDevices(gd))
			continue
		}
		if full && !jsonEqual(w.Allocation, g.Allocation) {
			add(MismatchAllocation, "claim %s: upstream %s, draplane %s", id, compactJSON(w.Allocation), compactJSON(g.Allocation))
		}
	}
	return diffs
}

func errClass(o *Outcome) string {
	if o.Error == nil {
		return ""
	}
	return o.Error.Class
}

func describeErr(o *Outcome) string {
	if o.Error == nil {
		return "no error"
	}
	return fmt.Sprintf("error %s (%s)", o.Error.Class, o.Error.Message)
}

func devicesOf(raw json.RawMessage) ([]deviceResult, error) {
	var a allocationDevices
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, err
	}
	if a.Devices.Results == nil {
		return []deviceResult{}, nil
	}
	return a.Devices.Results, nil
}

func formatDevices(ds []deviceResult) string {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, d := range ds {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s:%s/%s/%s", d.Request, d.Driver, d.Pool, d.Device)
	}
	b.WriteByte(']')
	return b.String()
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
