package celgen

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"draplane.dev/tests/reference/scenario"
	dracel "k8s.io/dynamic-resource-allocation/cel"
)

func defaultFeatures(t *testing.T) dracel.Features {
	t.Helper()
	f, err := scenario.FeaturesFromNames(scenario.DefaultFeatureNames())
	if err != nil {
		t.Fatal(err)
	}
	return scenario.CELFeatures(f)
}

func TestGenerateIsDeterministic(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(0); seed < 20; seed++ {
		a, sa, err := Generate(ctx, seed, defaultFeatures(t))
		if err != nil {
			t.Fatal(err)
		}
		b, sb, err := Generate(ctx, seed, defaultFeatures(t))
		if err != nil {
			t.Fatal(err)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) || sa != sb {
			t.Fatalf("seed %d: two runs differ", seed)
		}
	}
}

func TestGenerateCoversResultsAndErrors(t *testing.T) {
	var results, errors, compiled, generated int
	for seed := uint64(0); seed < 50; seed++ {
		cs, st, err := Generate(context.Background(), seed, defaultFeatures(t))
		if err != nil {
			t.Fatal(err)
		}
		compiled += st.Compiled
		generated += st.Generated
		for _, c := range cs {
			if (c.Result == nil) == (c.Error == nil) {
				t.Fatalf("seed %d %q: want exactly one of result and error", seed, c.Expression)
			}
			if c.Result != nil {
				results++
			} else {
				errors++
			}
		}
	}
	if results < 500 || errors < 500 {
		t.Errorf("results %d, errors %d: want both well represented", results, errors)
	}
	if compiled*10 < generated*8 {
		t.Errorf("only %d of %d generated expressions compile", compiled, generated)
	}
}

// The prebuilt activation of the benchmark must evaluate like
// DeviceMatches, or its timings would measure something else.
func TestBenchActivationAgreesWithDeviceMatches(t *testing.T) {
	data, err := os.ReadFile("../../../bench/cel_inputs.json")
	if err != nil {
		t.Skip("bench/cel_inputs.json not found:", err)
	}
	in, err := ParseBenchInput(data)
	if err != nil {
		t.Fatal(err)
	}
	compiler := dracel.GetCompiler(defaultFeatures(t))
	ctx := context.Background()
	for _, e := range in.Expressions {
		compiled := compiler.CompileCELExpression(e.Expression, dracel.Options{DisableCostEstimation: true})
		if compiled.Error != nil {
			t.Fatalf("%s: %v", e.Name, compiled.Error)
		}
		for _, d := range in.Devices {
			input := dracel.Device{Driver: d.Driver, AllowMultipleAllocations: d.Device.AllowMultipleAllocations,
				Attributes: d.Device.Attributes, Capacity: d.Device.Capacity}
			want, _, werr := compiled.DeviceMatches(ctx, input)
			act, err := activation(compiled, input)
			if err != nil {
				t.Fatal(err)
			}
			v, _, gerr := compiled.Program.ContextEval(ctx, act)
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("%s on %s: DeviceMatches error %v, prebuilt error %v", e.Name, d.Name, werr, gerr)
			}
			if werr == nil && !reflect.DeepEqual(v.Value(), want) {
				t.Errorf("%s on %s: DeviceMatches %v, prebuilt %v", e.Name, d.Name, want, v.Value())
			}
		}
	}
}
