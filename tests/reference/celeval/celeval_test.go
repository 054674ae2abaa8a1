package celeval

import (
	"context"
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	dracel "k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/utils/ptr"
)

func TestEvalDevice(t *testing.T) {
	dev := DeviceInput{Driver: "gpu.example.com", Device: resourceapi.Device{
		Name: "gpu-0",
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
			"model":                           {StringValue: ptr.To("a100")},
			"driverVersion":                   {VersionValue: ptr.To("550.54.15")},
			"numa":                            {IntValue: ptr.To(int64(1))},
			"resource.kubernetes.io/pcieRoot": {StringValue: ptr.To("pci0000:01")},
		},
		Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
			"memory": {Value: resource.MustParse("40Gi")},
		},
		AllowMultipleAllocations: ptr.To(true),
	}}
	features := dracel.Features{EnableConsumableCapacity: true}
	for _, tc := range []struct {
		expr      string
		value     any
		errClass  string
		errSubstr string
	}{
		{expr: `device.attributes["gpu.example.com"].model == "a100"`, value: true},
		{expr: `device.capacity["gpu.example.com"].memory.compareTo(quantity("48Gi")) < 0`, value: true},
		{expr: `device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("560.0.0"))`, value: false},
		{expr: `device.attributes["resource.kubernetes.io"].pcieRoot.startsWith("pci")`, value: true},
		{expr: `device.attributes["other.example.com"].size() == 0`, value: true},
		{expr: `device.allowMultipleAllocations`, value: true},
		{expr: `device.attributes["gpu.example.com"].missing == 1`, errClass: "runtime", errSubstr: "no such key: missing"},
		// Attribute values are dyn: a non-bool result fails at runtime.
		{expr: `device.attributes["gpu.example.com"].model`, errClass: "runtime", errSubstr: "could not be converted to bool"},
		{expr: `device.nosuchfield`, errClass: "compile"},
	} {
		got := EvalDevice(context.Background(), tc.expr, dev, features)
		if tc.errClass != "" {
			if got.Error == nil || got.Error.Class != tc.errClass || !strings.Contains(got.Error.Message, tc.errSubstr) {
				t.Errorf("%s: got %+v, want %s error containing %q", tc.expr, got, tc.errClass, tc.errSubstr)
			}
			continue
		}
		if got.Error != nil || got.Value != tc.value {
			t.Errorf("%s: got value %v error %+v, want %v", tc.expr, got.Value, got.Error, tc.value)
		}
	}
	// The scheduler compiles stored expressions: every declaration of the
	// device type is present whatever the features, so
	// allowMultipleAllocations compiles without ConsumableCapacity too.
	if got := EvalDevice(context.Background(), `device.allowMultipleAllocations`, dev, dracel.Features{}); got.Error != nil || got.Value != true {
		t.Errorf("allowMultipleAllocations without ConsumableCapacity: got %+v, want true", got)
	}
}

func TestEvalPlain(t *testing.T) {
	vars := map[string]any{"x": int64(3), "s": "a-b", "l": []any{int64(1), int64(2)}}
	for _, tc := range []struct {
		env      EnvKind
		expr     string
		value    any
		typ      string
		errClass string
	}{
		{env: EnvPlain, expr: "x + 1", value: int64(4), typ: "int"},
		{env: EnvPlain, expr: "s.size()", value: int64(3), typ: "int"},
		{env: EnvPlain, expr: "l.map(v, v * 2)", value: []any{int64(2), int64(4)}, typ: "list"},
		{env: EnvPlain, expr: `{"k": x}`, value: map[string]any{"k": int64(3)}, typ: "map"},
		{env: EnvPlain, expr: "1 / 0", errClass: "runtime"},
		{env: EnvPlain, expr: `quantity("1Gi")`, errClass: "compile"},
		{env: EnvKubernetes, expr: `quantity("1Gi").add(quantity("512Mi"))`, value: "1536Mi", typ: "kubernetes.Quantity"},
		{env: EnvKubernetes, expr: `semver("1.2.3").major()`, value: int64(1), typ: "int"},
		{env: EnvKubernetes, expr: `s.split("-")`, value: []any{"a", "b"}, typ: "list"},
	} {
		got := EvalPlain(context.Background(), tc.env, tc.expr, vars)
		if tc.errClass != "" {
			if got.Error == nil || got.Error.Class != tc.errClass {
				t.Errorf("%s %s: got %+v, want a %s error", tc.env, tc.expr, got, tc.errClass)
			}
			continue
		}
		if got.Error != nil || got.Type != tc.typ || !equalJSON(got.Value, tc.value) {
			t.Errorf("%s %s: got %#v (%s, %+v), want %#v (%s)", tc.env, tc.expr, got.Value, got.Type, got.Error, tc.value, tc.typ)
		}
	}
}

func equalJSON(a, b any) bool {
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k := range x {
			if !equalJSON(x[k], y[k]) {
				return false
			}
		}
		return true
	}
	return a == b
}
