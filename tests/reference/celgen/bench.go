package celgen

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	resourceapi "k8s.io/api/resource/v1"
	apiservercel "k8s.io/apiserver/pkg/cel"
	dracel "k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/utils/ptr"

	"github.com/blang/semver/v4"
)

// BenchInput is the side-by-side benchmark's input (bench/cel_inputs.json):
// every expression is timed against every device.
type BenchInput struct {
	Devices []struct {
		Name   string             `json:"name"`
		Driver string             `json:"driver"`
		Device resourceapi.Device `json:"device"`
	} `json:"devices"`
	Expressions []struct {
		Name       string `json:"name"`
		Expression string `json:"expression"`
	} `json:"expressions"`
}

// BenchRow is one (expression, device) timing.
type BenchRow struct {
	Name       string `json:"name"`
	Expression string `json:"expression"`
	Device     string `json:"device"`
	// DeviceMatches: upstream's per-call path (attribute maps rebuilt,
	// ContextEval, bool conversion): what the scheduler pays per device.
	DeviceMatchesNs     float64 `json:"device_matches_ns"`
	DeviceMatchesAllocs int64   `json:"device_matches_allocs"`
	// Eval: Program.ContextEval with an activation built once.
	EvalNs     float64 `json:"eval_ns"`
	EvalAllocs int64   `json:"eval_allocs"`
	Result     *bool   `json:"result"`
	Error      *string `json:"error"`
}

// BenchReport is what `draref cel bench` prints.
type BenchReport struct {
	Implementation string     `json:"implementation"`
	Go             string     `json:"go,omitempty"`
	BenchTime      string     `json:"benchtime"`
	Rows           []BenchRow `json:"rows"`
}

// RunBench times every expression on every device. benchTime is the
// testing.Benchmark time per measurement.
func RunBench(in *BenchInput, features dracel.Features, benchTime time.Duration) (*BenchReport, error) {
	testing.Init()
	if err := flag.CommandLine.Set("test.benchtime", benchTime.String()); err != nil {
		return nil, err
	}
	ctx := context.Background()
	compiler := dracel.GetCompiler(features)
	rep := &BenchReport{Implementation: "cel-go (k8s.io/dynamic-resource-allocation/cel)", BenchTime: benchTime.String()}
	for _, e := range in.Expressions {
		compiled := compiler.CompileCELExpression(e.Expression, dracel.Options{DisableCostEstimation: true})
		if compiled.Error != nil {
			return nil, fmt.Errorf("%s: %v", e.Name, compiled.Error)
		}
		for _, d := range in.Devices {
			input := dracel.Device{
				Driver:                   d.Driver,
				AllowMultipleAllocations: d.Device.AllowMultipleAllocations,
				Attributes:               d.Device.Attributes,
				Capacity:                 d.Device.Capacity,
			}
			row := BenchRow{Name: e.Name, Expression: e.Expression, Device: d.Name}
			matches, _, err := compiled.DeviceMatches(ctx, input)
			if err != nil {
				msg := dracel.EnhanceRuntimeError(err).Error()
				row.Error = &msg
			} else {
				row.Result = &matches
			}
			res := testing.Benchmark(func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_, _, _ = compiled.DeviceMatches(ctx, input)
				}
			})
			row.DeviceMatchesNs = float64(res.T.Nanoseconds()) / float64(res.N)
			row.DeviceMatchesAllocs = res.AllocsPerOp()

			act, err := activation(compiled, input)
			if err != nil {
				return nil, fmt.Errorf("%s on %s: %v", e.Name, d.Name, err)
			}
			prg := compiled.Program
			res = testing.Benchmark(func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					v, _, _ := prg.ContextEval(ctx, act)
					if v != nil {
						_, _ = v.(types.Bool)
					}
				}
			})
			row.EvalNs = float64(res.T.Nanoseconds()) / float64(res.N)
			row.EvalAllocs = res.AllocsPerOp()
			rep.Rows = append(rep.Rows, row)
		}
	}
	return rep, nil
}

// activation builds DeviceMatches' variables once (same construction as
// dynamic-resource-allocation/cel DeviceMatches, whose helpers are
// unexported).
func activation(c dracel.CompilationResult, input dracel.Device) (any, error) {
	attributes := map[string]any{}
	for name, attr := range input.Attributes {
		v, err := attributeValue(attr)
		if err != nil {
			return nil, err
		}
		domain, id := splitName(string(name), input.Driver)
		if attributes[domain] == nil {
			attributes[domain] = map[string]any{}
		}
		attributes[domain].(map[string]any)[id] = v
	}
	capacity := map[string]any{}
	for name, c := range input.Capacity {
		domain, id := splitName(string(name), input.Driver)
		if capacity[domain] == nil {
			capacity[domain] = map[string]apiservercel.Quantity{}
		}
		value := c.Value
		capacity[domain].(map[string]apiservercel.Quantity)[id] = apiservercel.Quantity{Quantity: &value}
	}
	adapter := c.Environment.CELTypeAdapter()
	empty := adapter.NativeToValue(map[string]any{})
	vars := map[string]any{
		"device": map[string]any{
			"driver":                   input.Driver,
			"allowMultipleAllocations": ptr.Deref(input.AllowMultipleAllocations, false),
			"attributes":               defaultMapper{types.NewStringInterfaceMap(adapter, attributes), empty},
			"capacity":                 defaultMapper{types.NewStringInterfaceMap(adapter, capacity), empty},
		},
	}
	return cel.NewActivation(vars)
}

type defaultMapper struct {
	traits.Mapper
	def ref.Val
}

func (m defaultMapper) Find(key ref.Val) (ref.Val, bool) {
	if v, ok := m.Mapper.Find(key); ok {
		return v, true
	}
	return m.def, true
}

func splitName(name, driver string) (string, string) {
	for i := 0; i < len(name); i++ {
		if name[i] == '/' {
			return name[:i], name[i+1:]
		}
	}
	return driver, name
}

func attributeValue(attr resourceapi.DeviceAttribute) (any, error) {
	switch {
	case attr.IntValues != nil:
		return attr.IntValues, nil
	case attr.BoolValues != nil:
		return attr.BoolValues, nil
	case attr.StringValues != nil:
		return attr.StringValues, nil
	case attr.VersionValues != nil:
		out := make([]apiservercel.Semver, len(attr.VersionValues))
		for i, s := range attr.VersionValues {
			v, err := semver.Parse(s)
			if err != nil {
				return nil, err
			}
			out[i] = apiservercel.Semver{Version: v}
		}
		return out, nil
	case attr.IntValue != nil:
		return *attr.IntValue, nil
	case attr.BoolValue != nil:
		return *attr.BoolValue, nil
	case attr.StringValue != nil:
		return *attr.StringValue, nil
	case attr.VersionValue != nil:
		v, err := semver.Parse(*attr.VersionValue)
		if err != nil {
			return nil, err
		}
		return apiservercel.Semver{Version: v}, nil
	}
	return nil, fmt.Errorf("unsupported attribute value")
}

// ParseBenchInput decodes bench/cel_inputs.json.
func ParseBenchInput(data []byte) (*BenchInput, error) {
	var in BenchInput
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, err
	}
	if len(in.Devices) == 0 || len(in.Expressions) == 0 {
		return nil, fmt.Errorf("want at least one device and one expression")
	}
	return &in, nil
}
