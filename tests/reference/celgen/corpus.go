package celgen

import (
	"context"
	"encoding/json"

	dracel "k8s.io/dynamic-resource-allocation/cel"
)

// Version changes whenever the same seed would generate something else.
const Version = 1

// ExpressionsPerSeed is how many expressions one seed generates before
// dropping those cel-go does not compile.
const ExpressionsPerSeed = 8

// Case is one (expression, device) pair with cel-go's outcome under
// DeviceMatches semantics: Result is set when the selector evaluated to a
// bool, Error otherwise (runtime errors with EnhanceRuntimeError applied,
// as the allocator reports them).
type Case struct {
	Seed       uint64          `json:"seed"`
	Expression string          `json:"expression"`
	Driver     string          `json:"driver"`
	Device     json.RawMessage `json:"device"`
	Result     *bool           `json:"result"`
	Error      *string         `json:"error"`
}

// Stats counts what Generate did.
type Stats struct {
	Generated, Compiled int
}

// Generate returns the cases of one seed: the seed's devices crossed with
// those of its expressions that compile in the DRA environment (the
// scheduler's compiler, StoredExpressions, features as given).
func Generate(ctx context.Context, seed uint64, features dracel.Features) ([]Case, Stats, error) {
	r := newRNG(seed)
	devices := genDevices(r)
	encoded := make([]json.RawMessage, len(devices))
	for i, d := range devices {
		data, err := json.Marshal(d.Device)
		if err != nil {
			return nil, Stats{}, err
		}
		encoded[i] = data
	}
	compiler := dracel.GetCompiler(features)
	var out []Case
	var st Stats
	for i := 0; i < ExpressionsPerSeed; i++ {
		g := &exprGen{r: r}
		expr := g.topLevel()
		st.Generated++
		compiled := compiler.CompileCELExpression(expr, dracel.Options{DisableCostEstimation: true})
		if compiled.Error != nil {
			continue
		}
		st.Compiled++
		for j, d := range devices {
			c := Case{Seed: seed, Expression: expr, Driver: d.Driver, Device: encoded[j]}
			matches, _, err := compiled.DeviceMatches(ctx, dracel.Device{
				Driver:                   d.Driver,
				AllowMultipleAllocations: d.Device.AllowMultipleAllocations,
				Attributes:               d.Device.Attributes,
				Capacity:                 d.Device.Capacity,
			})
			if err != nil {
				msg := dracel.EnhanceRuntimeError(err).Error()
				c.Error = &msg
			} else {
				c.Result = &matches
			}
			out = append(out, c)
		}
	}
	return out, st, nil
}
