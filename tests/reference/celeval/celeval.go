// Package celeval evaluates CEL expressions the way upstream does: DRA
// device selectors through k8s.io/dynamic-resource-allocation/cel (the
// scheduler's compiler, environment and cost limit), and free expressions in
// a plain cel-go environment or the Kubernetes base environment.
package celeval

import (
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"sort"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	resourceapi "k8s.io/api/resource/v1"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	dracel "k8s.io/dynamic-resource-allocation/cel"
)

// Result is the JSON document printed by `draref cel eval`.
type Result struct {
	// Value is the result rendered as JSON (null on error).
	Value any `json:"value"`
	// Type is the CEL type name of the value ("" on error).
	Type  string `json:"type,omitempty"`
	Error *Error `json:"error"`
}

// Error classes: "compile" (the expression does not compile in the
// environment), "runtime" (evaluation failed: no such key, cost limit,
// type errors...), "input" (bad device or variable input).
type Error struct {
	Class   string `json:"class"`
	Message string `json:"message"`
}

// DeviceInput is what a DRA selector sees.
type DeviceInput struct {
	Driver string
	Device resourceapi.Device
}

// EvalDevice compiles expr with the scheduler's DRA CEL compiler (stored
// expressions environment, LRU cache as in kube-scheduler, no cost
// estimation) and evaluates it against the device, exactly like the
// allocator's selector check. Runtime errors get the same
// EnhanceRuntimeError wrapping as in the allocator.
func EvalDevice(ctx context.Context, expr string, in DeviceInput, features dracel.Features) Result {
	cache := dracel.NewCache(10, features)
	compiled := cache.GetOrCompile(expr)
	if compiled.Error != nil {
		return Result{Error: &Error{Class: "compile", Message: compiled.Error.Error()}}
	}
	matches, _, err := compiled.DeviceMatches(ctx, dracel.Device{
		Driver:                   in.Driver,
		AllowMultipleAllocations: in.Device.AllowMultipleAllocations,
		Attributes:               in.Device.Attributes,
		Capacity:                 in.Device.Capacity,
	})
	if err != nil {
		return Result{Error: &Error{Class: "runtime", Message: dracel.EnhanceRuntimeError(err).Error()}}
	}
	return Result{Value: matches, Type: "bool"}
}

// EnvKind selects the environment of EvalPlain.
type EnvKind string

const (
	// EnvPlain is cel-go's standard environment (cel.NewEnv) plus the
	// variables.
	EnvPlain EnvKind = "plain"
	// EnvKubernetes is the Kubernetes base environment (stored expressions,
	// k8s.io/apiserver pkg/cel/environment) plus the variables.
	EnvKubernetes EnvKind = "k8s"
)

// EvalPlain compiles and evaluates expr in the chosen environment with the
// given variables (declared as dyn, values from JSON).
func EvalPlain(ctx context.Context, kind EnvKind, expr string, vars map[string]any) Result {
	names := make([]string, 0, len(vars))
	for name := range vars {
		names = append(names, name)
	}
	sort.Strings(names)
	opts := make([]cel.EnvOption, 0, len(names))
	for _, name := range names {
		opts = append(opts, cel.Variable(name, cel.DynType))
	}
	var env *cel.Env
	var err error
	switch kind {
	case EnvPlain:
		env, err = cel.NewEnv(opts...)
	case EnvKubernetes:
		base := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).StoredExpressionsEnv()
		env, err = base.Extend(opts...)
	default:
		err = fmt.Errorf("unknown environment %q", kind)
	}
	if err != nil {
		return Result{Error: &Error{Class: "input", Message: err.Error()}}
	}
	ast, issues := env.Compile(expr)
	if issues != nil && issues.Err() != nil {
		return Result{Error: &Error{Class: "compile", Message: issues.Err().Error()}}
	}
	progOpts := []cel.ProgramOption{cel.CostLimit(resourceapi.CELSelectorExpressionMaxCost), cel.InterruptCheckFrequency(100)}
	prg, err := env.Program(ast, progOpts...)
	if err != nil {
		return Result{Error: &Error{Class: "compile", Message: err.Error()}}
	}
	val, _, err := prg.ContextEval(ctx, vars)
	if err != nil {
		return Result{Error: &Error{Class: "runtime", Message: err.Error()}}
	}
	return Result{Value: ToJSON(val), Type: val.Type().TypeName()}
}

// ToJSON renders a CEL value as a JSON-compatible Go value: bool, int64,
// uint64, float64 (NaN and infinities as strings), string, bytes as base64,
// null, lists, maps (keys rendered with %v), optionals as their value or
// null, Kubernetes Quantity and Semver as their canonical strings, other
// types via their string conversion.
func ToJSON(val ref.Val) any {
	switch v := val.(type) {
	case types.Bool:
		return bool(v)
	case types.Int:
		return int64(v)
	case types.Uint:
		return uint64(v)
	case types.Double:
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Sprint(f)
		}
		return f
	case types.String:
		return string(v)
	case types.Bytes:
		return base64.StdEncoding.EncodeToString([]byte(v))
	case types.Null:
		return nil
	case *types.Optional:
		if v.HasValue() {
			return ToJSON(v.GetValue())
		}
		return nil
	case apiservercel.Quantity:
		return v.Quantity.String()
	case apiservercel.Semver:
		return v.Version.String()
	case traits.Lister:
		out := []any{}
		it := v.Iterator()
		for it.HasNext() == types.True {
			out = append(out, ToJSON(it.Next()))
		}
		return out
	case traits.Mapper:
		out := map[string]any{}
		it := v.Iterator()
		for it.HasNext() == types.True {
			k := it.Next()
			out[fmt.Sprint(ToJSON(k))] = ToJSON(v.Get(k))
		}
		return out
	}
	if s, ok := val.ConvertToType(types.StringType).(types.String); ok {
		return string(s)
	}
	return fmt.Sprint(val.Value())
}
