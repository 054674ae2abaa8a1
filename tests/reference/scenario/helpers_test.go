package scenario_test

import (
	"encoding/json"
	"errors"

	"draplane.dev/tests/reference/scenario"
)

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// toJSON renders the decoded objects of a scenario for comparisons.
func toJSON(s *scenario.Scenario) string {
	data, err := json.Marshal(struct {
		Slices any
		Claims any
	}{s.Slices, s.Claims})
	if err != nil {
		panic(err)
	}
	return string(data)
}
