// Package bench times the upstream allocator on the benchmark scenario
// classes of issue 3 (gen.BenchCases), in-process: one allocation =
// structured.NewAllocator + Allocate for one node, as kube-scheduler does per
// pod (PreFilter) and node (Filter), with a CEL cache shared across
// allocations like the scheduler plugin's.
package bench

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"

	"draplane.dev/tests/reference/gen"
	"draplane.dev/tests/reference/scenario"
)

// Options bound the run.
type Options struct {
	// Budget is the time spent per class (default 8 s).
	Budget time.Duration
	// MaxSamples bounds the allocations per class (default 20000).
	MaxSamples int
	// Timeout bounds one allocation (default 3 s; the scheduler uses 10 s).
	Timeout time.Duration
	// Only runs the classes with these names (all if empty).
	Only []string
}

// ClassResult is one row of the report. Times are per allocation.
type ClassResult struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Scenarios   int    `json:"scenarios"`
	Allocations int    `json:"allocations"`
	MedianNs    int64  `json:"median_ns"`
	P99Ns       int64  `json:"p99_ns"`
	// Timeouts counts allocations stopped by Options.Timeout (their time
	// is counted as the timeout).
	Timeouts int `json:"timeouts"`
	// AllocateOneMedian is the median number of allocateOne calls (the
	// allocator's search steps) per allocation.
	AllocateOneMedian int64 `json:"allocate_one_median"`
	// Outcome of the first allocation: "allocated", "unallocatable",
	// "timeout" or "error: ...".
	Outcome string `json:"outcome"`
}

// Report is the benchmark result.
type Report struct {
	Implementation string        `json:"implementation"`
	Go             string        `json:"go"`
	TimeoutNs      int64         `json:"timeout_ns"`
	Classes        []ClassResult `json:"classes"`
}

// Run executes the benchmark.
func Run(opts Options) (*Report, error) {
	if opts.Budget == 0 {
		opts.Budget = 8 * time.Second
	}
	if opts.MaxSamples == 0 {
		opts.MaxSamples = 20000
	}
	if opts.Timeout == 0 {
		opts.Timeout = 3 * time.Second
	}
	rep := &Report{Implementation: "k8s.io/dynamic-resource-allocation " + moduleVersion(), TimeoutNs: opts.Timeout.Nanoseconds()}
	for _, bc := range gen.BenchCases() {
		if len(opts.Only) > 0 && !contains(opts.Only, bc.Name) {
			continue
		}
		sc, err := scenario.Parse(bc.Data, bc.Name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", bc.Name, err)
		}
		var res ClassResult
		if bc.PerNode > 0 {
			res = runPerNode(sc, bc, opts)
		} else {
			res = runSingle(sc, opts)
		}
		res.Name, res.Title = bc.Name, bc.Title
		rep.Classes = append(rep.Classes, res)
	}
	return rep, nil
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

type sample struct {
	d        time.Duration
	steps    int64
	timedOut bool
}

func allocateOnce(in *scenario.Inputs, celCache *cel.Cache, node string, claims []*resourceapi.ResourceClaim, timeout time.Duration) ([]resourceapi.AllocationResult, error, sample) {
	nodeObj := in.Node
	if node != "" && node != nodeObj.Name {
		nodeObj = nodeObj.DeepCopy()
		nodeObj.Name = node
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	alloc, err := structured.NewAllocator(ctx, in.Features, in.AllocatedState, in.Classes, in.Slices, celCache)
	var results []resourceapi.AllocationResult
	if err == nil {
		results, err = alloc.Allocate(ctx, nodeObj, claims)
	}
	s := sample{d: time.Since(start)}
	if alloc != nil {
		s.steps = allocateOneCalls(alloc)
	}
	if err != nil && scenario.ClassifyError(err) == scenario.ClassTimeout {
		s.timedOut = true
	}
	return results, err, s
}

// allocateOneCalls reads the allocator's search statistics through
// reflection (its Stats type lives in an internal package).
func allocateOneCalls(alloc structured.Allocator) int64 {
	m := reflect.ValueOf(alloc).MethodByName("GetStats")
	if !m.IsValid() {
		return -1
	}
	out := m.Call(nil)
	if len(out) != 1 {
		return -1
	}
	f := out[0].FieldByName("NumAllocateOneInvocations")
	if !f.IsValid() {
		return -1
	}
	return f.Int()
}

func outcomeOf(results []resourceapi.AllocationResult, err error, want int) string {
	switch {
	case err != nil && scenario.ClassifyError(err) == scenario.ClassTimeout:
		return "timeout"
	case err != nil:
		return "error: " + err.Error()
	case len(results) == want:
		return "allocated"
	default:
		return "unallocatable"
	}
}

// runSingle repeats the scenario's allocation (nothing is committed).
func runSingle(sc *scenario.Scenario, opts Options) ClassResult {
	in := sc.BuildInputs()
	celCache := cel.NewCache(10, scenario.CELFeatures(in.Features))
	var samples []sample
	res := ClassResult{Scenarios: 1}
	deadline := time.Now().Add(opts.Budget)
	for len(samples) < opts.MaxSamples && (len(samples) < 3 || time.Now().Before(deadline)) {
		results, err, s := allocateOnce(in, celCache, "", in.Claims, opts.Timeout)
		if len(samples) == 0 {
			res.Outcome = outcomeOf(results, err, len(in.Claims))
		}
		samples = append(samples, s)
		if s.timedOut && time.Now().After(deadline) {
			break
		}
	}
	summarize(&res, samples)
	return res
}

// runPerNode allocates a copy of the claim on node-0, node-1, ... in turn,
// committing each result, for bc.Rounds rounds (or until the budget is
// spent).
func runPerNode(sc *scenario.Scenario, bc gen.BenchCase, opts Options) ClassResult {
	in := sc.BuildInputs()
	celCache := cel.NewCache(10, scenario.CELFeatures(in.Features))
	template := in.Claims[0]
	nodes := map[string]bool{}
	for _, n := range sc.Nodes {
		nodes[n.Name] = true
	}
	res := ClassResult{Scenarios: 1}
	var samples []sample
	deadline := time.Now().Add(opts.Budget)
	nodesUsed := map[string]bool{}
loop:
	for round := 0; round < bc.Rounds; round++ {
		for n := 0; n < bc.PerNode; n++ {
			if len(samples) >= opts.MaxSamples || (len(samples) >= 3 && time.Now().After(deadline)) {
				break loop
			}
			node := fmt.Sprintf("node-%d", n)
			claim := template.DeepCopy()
			claim.Name = fmt.Sprintf("claim-%d-%d", round, n)
			results, err, s := allocateOnce(in, celCache, node, []*resourceapi.ResourceClaim{claim}, opts.Timeout)
			if len(samples) == 0 {
				res.Outcome = outcomeOf(results, err, 1)
			}
			samples = append(samples, s)
			nodesUsed[node] = true
			if err == nil && len(results) == 1 {
				scenario.AddAllocated(&in.AllocatedState, &results[0], in.Features.ConsumableCapacity)
			}
		}
	}
	res.Scenarios = len(nodesUsed)
	summarize(&res, samples)
	return res
}

func summarize(res *ClassResult, samples []sample) {
	res.Allocations = len(samples)
	if len(samples) == 0 {
		return
	}
	ds := make([]time.Duration, len(samples))
	steps := make([]int64, len(samples))
	for i, s := range samples {
		ds[i] = s.d
		steps[i] = s.steps
		if s.timedOut {
			res.Timeouts++
		}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	sort.Slice(steps, func(i, j int) bool { return steps[i] < steps[j] })
	res.MedianNs = ds[len(ds)/2].Nanoseconds()
	res.P99Ns = ds[min(len(ds)-1, (len(ds)*99+99)/100-1)].Nanoseconds()
	res.AllocateOneMedian = steps[len(steps)/2]
}
