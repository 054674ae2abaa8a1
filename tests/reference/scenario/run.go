package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// Error classes of the result format (docs/scenario-format.md).
const (
	// ClassFatal: Allocate returned an error that is not node-local (bad
	// CEL, CEL runtime error, unknown class, "All" on an incomplete or
	// invalid pool, too many devices, constraint violated in "All" mode...).
	ClassFatal = "fatal"
	// ClassInvalidPools: Allocate returned an error wrapping
	// structured.ErrFailedAllocationOnNode ("invalid resource pools were
	// encountered"): nothing could be allocated and a relevant pool is invalid.
	ClassInvalidPools = "invalid-pools"
	// ClassTimeout: the allocation did not finish within the time limit
	// (kube-scheduler's Filter timeout, 10 s by default). Depends on the
	// machine, so the differential runner skips such scenarios.
	ClassTimeout = "timeout"
	// ClassInvalidScenario: the file is not a well-formed scenario.
	ClassInvalidScenario = "invalid-scenario"
)

// ShareIDPlaceholder replaces the random shareID of shared-device results.
const ShareIDPlaceholder = "<share-id>"

// DefaultTimeout is kube-scheduler's default DRA Filter timeout.
const DefaultTimeout = 10 * time.Second

func init() {
	// The "stable" variant iterates pools in Go map order (random). Upstream
	// picks it only when no beta feature is enabled; the 1.37 defaults pick
	// "incubating", which sorts pools. Restricting the choice keeps every
	// feature set deterministic.
	structured.EnableAllocators("incubating", "experimental")
}

// Result is the JSON document printed by `draref allocate`.
type Result struct {
	Scenario string        `json:"scenario"`
	Node     string        `json:"node"`
	Error    *ErrorInfo    `json:"error"`
	Claims   []ClaimResult `json:"claims"`
}

// ErrorInfo describes an allocation error.
type ErrorInfo struct {
	Class   string `json:"class"`
	Message string `json:"message"`
}

// ClaimResult is the outcome for one claim that was to be allocated.
type ClaimResult struct {
	Namespace  string                        `json:"namespace"`
	Name       string                        `json:"name"`
	Allocated  bool                          `json:"allocated"`
	Allocation *resourceapi.AllocationResult `json:"allocation,omitempty"`
}

// Inputs are the arguments of structured.NewAllocator and Allocate.
type Inputs struct {
	Features       structured.Features
	AllocatedState structured.AllocatedState
	Classes        ClassLister
	Slices         []*resourceapi.ResourceSlice
	Node           *corev1.Node
	// Claims to allocate, in stream order.
	Claims []*resourceapi.ResourceClaim
}

// ClassLister implements structured.DeviceClassLister like an informer
// lister: unknown names give a NotFound API error.
type ClassLister struct {
	list   []*resourceapi.DeviceClass
	byName map[string]*resourceapi.DeviceClass
}

// NewClassLister returns a lister for the given classes.
func NewClassLister(classes []*resourceapi.DeviceClass) ClassLister {
	l := ClassLister{list: classes, byName: make(map[string]*resourceapi.DeviceClass, len(classes))}
	for _, c := range classes {
		l.byName[c.Name] = c
	}
	return l
}

func (l ClassLister) List() ([]*resourceapi.DeviceClass, error) { return l.list, nil }

func (l ClassLister) Get(name string) (*resourceapi.DeviceClass, error) {
	if c, ok := l.byName[name]; ok {
		return c, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Group: "resource.k8s.io", Resource: "deviceclass"}, name)
}

// BuildInputs prepares the allocator inputs like kube-scheduler's
// DynamicResources PreFilter:
//   - allocated state from every claim with status.allocation: results with
//     adminAccess are skipped; with ConsumableCapacity, results with a
//     shareID go to AllocatedSharedDeviceIDs (and their consumedCapacity to
//     AggregatedCapacity), all others to AllocatedDevices;
//   - ResourceSlices with DeviceTaintRule taints appended to the matching
//     devices (resourceslice/tracker), when DeviceTaints is enabled;
//   - the Node object named in the header (a bare one if the stream has none);
//   - the claims without status.allocation, in stream order.
func (s *Scenario) BuildInputs() *Inputs {
	in := &Inputs{
		Features: s.Features,
		Classes:  NewClassLister(s.Classes),
		AllocatedState: structured.AllocatedState{
			AllocatedDevices:         sets.New[structured.DeviceID](),
			AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
			AggregatedCapacity:       structured.NewConsumedCapacityCollection(),
		},
	}
	for _, claim := range s.Claims {
		if claim.Status.Allocation == nil {
			in.Claims = append(in.Claims, claim)
			continue
		}
		AddAllocated(&in.AllocatedState, claim.Status.Allocation, s.Features.ConsumableCapacity)
	}
	if s.Features.DeviceTaints && len(s.TaintRules) > 0 {
		in.Slices = ApplyTaintRules(s.Slices, s.TaintRules)
	} else {
		in.Slices = s.Slices
	}
	for _, n := range s.Nodes {
		if n.Name == s.Node {
			in.Node = n
		}
	}
	if in.Node == nil {
		in.Node = &corev1.Node{}
		in.Node.Name = s.Node
	}
	return in
}

// AddAllocated records the devices of one allocation result in the state,
// as kube-scheduler's foreachAllocatedDevice does.
func AddAllocated(state *structured.AllocatedState, allocation *resourceapi.AllocationResult, consumableCapacity bool) {
	for _, result := range allocation.Devices.Results {
		if ptr.Deref(result.AdminAccess, false) {
			continue
		}
		id := structured.MakeDeviceID(result.Driver, result.Pool, result.Device)
		if consumableCapacity && result.ShareID != nil {
			state.AllocatedSharedDeviceIDs.Insert(structured.MakeSharedDeviceID(id, result.ShareID))
			if result.ConsumedCapacity != nil {
				state.AggregatedCapacity.Insert(structured.NewDeviceConsumedCapacity(id, result.ConsumedCapacity))
			}
			continue
		}
		state.AllocatedDevices.Insert(id)
	}
}

// ApplyTaintRules returns the slices with the taints of matching
// DeviceTaintRules appended to their devices, in rule order; the same
// selection as k8s.io/dynamic-resource-allocation/resourceslice/tracker.
func ApplyTaintRules(slices []*resourceapi.ResourceSlice, rules []*resourceapi.DeviceTaintRule) []*resourceapi.ResourceSlice {
	out := make([]*resourceapi.ResourceSlice, len(slices))
	for i, slice := range slices {
		patched := slice
		for _, rule := range rules {
			sel := rule.Spec.DeviceSelector
			if sel == nil {
				continue
			}
			if sel.Driver != nil && *sel.Driver != slice.Spec.Driver {
				continue
			}
			if sel.Pool != nil && *sel.Pool != slice.Spec.Pool.Name {
				continue
			}
			for d := range slice.Spec.Devices {
				if sel.Device != nil && *sel.Device != slice.Spec.Devices[d].Name {
					continue
				}
				if patched == slice {
					patched = slice.DeepCopy()
				}
				patched.Spec.Devices[d].Taints = append(patched.Spec.Devices[d].Taints, rule.Spec.Taint)
			}
		}
		out[i] = patched
	}
	return out
}

// CELFeatures returns the CEL compiler features matching allocator features.
func CELFeatures(f structured.Features) cel.Features {
	return cel.Features{EnableConsumableCapacity: f.ConsumableCapacity, EnableListTypeAttributes: f.ListTypeAttributes}
}

// Options control Run.
type Options struct {
	// Timeout bounds one Allocate call; 0 means DefaultTimeout, negative none.
	Timeout time.Duration
}

// Run allocates the scenario's unallocated claims on its node with the
// upstream allocator and returns the result document.
func Run(ctx context.Context, s *Scenario, opts Options) *Result {
	in := s.BuildInputs()
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	res := &Result{Scenario: s.Name, Node: s.Node, Claims: []ClaimResult{}}
	allocator, err := structured.NewAllocator(ctx, in.Features, in.AllocatedState, in.Classes, in.Slices, cel.NewCache(10, CELFeatures(in.Features)))
	var results []resourceapi.AllocationResult
	if err == nil {
		results, err = allocator.Allocate(ctx, in.Node, in.Claims)
	}
	if err != nil {
		res.Error = &ErrorInfo{Class: ClassifyError(err), Message: err.Error()}
		return res
	}
	allocated := len(results) == len(in.Claims)
	for i, claim := range in.Claims {
		cr := ClaimResult{Namespace: claim.Namespace, Name: claim.Name, Allocated: allocated}
		if allocated {
			cr.Allocation = Normalize(&results[i])
		}
		res.Claims = append(res.Claims, cr)
	}
	return res
}

// ClassifyError maps an Allocate error to an error class.
func ClassifyError(err error) string {
	switch {
	case errors.Is(err, structured.ErrFailedAllocationOnNode):
		return ClassInvalidPools
	case errors.Is(err, context.DeadlineExceeded):
		return ClassTimeout
	default:
		return ClassFatal
	}
}

// Normalize removes the non-deterministic parts of an allocation result:
// shareIDs become ShareIDPlaceholder, allocationTimestamp is dropped.
func Normalize(a *resourceapi.AllocationResult) *resourceapi.AllocationResult {
	out := a.DeepCopy()
	out.AllocationTimestamp = nil
	for i := range out.Devices.Results {
		if out.Devices.Results[i].ShareID != nil {
			out.Devices.Results[i].ShareID = ptr.To(types.UID(ShareIDPlaceholder))
		}
	}
	return out
}

// InvalidScenarioResult is the result document for an unreadable scenario.
func InvalidScenarioResult(err error) *Result {
	return &Result{Error: &ErrorInfo{Class: ClassInvalidScenario, Message: err.Error()}, Claims: []ClaimResult{}}
}

// Marshal renders a result: two-space indentation, no HTML escaping, one
// trailing newline. Equal results give identical bytes.
func Marshal(r *Result, indent bool) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(r); err != nil {
		// Only plain data types: cannot happen.
		panic(fmt.Sprintf("marshal result: %v", err))
	}
	return buf.Bytes()
}
