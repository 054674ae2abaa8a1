package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	dracel "k8s.io/dynamic-resource-allocation/cel"

	"draplane.dev/tests/reference/celeval"
	"draplane.dev/tests/reference/scenario"
)

func cmdAllocate(args []string) int {
	fs := flag.NewFlagSet("allocate", flag.ContinueOnError)
	file := fs.String("f", "", "scenario file (YAML or JSON stream; - for stdin)")
	compact := fs.Bool("compact", false, "print the result on one line instead of indented")
	timeout := fs.Duration("timeout", scenario.DefaultTimeout, "time limit of the Allocate call (kube-scheduler's Filter timeout); 0 = none")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: draref allocate -f scenario.yaml [--compact] [--timeout 10s]")
		fs.PrintDefaults()
		fmt.Fprintln(fs.Output(), "\nexit status: 0 result printed (also when allocation failed or upstream returned an error), 1 invalid scenario, 2 usage")
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *file == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	var data []byte
	var err error
	if *file == "-" {
		data, err = io.ReadAll(os.Stdin)
	} else {
		data, err = os.ReadFile(*file)
	}
	var res *scenario.Result
	code := 0
	if err == nil {
		var sc *scenario.Scenario
		sc, err = scenario.Parse(data, *file)
		if err == nil {
			t := *timeout
			if t == 0 {
				t = -1
			}
			res = scenario.Run(context.Background(), sc, scenario.Options{Timeout: t})
		}
	}
	if err != nil {
		res = scenario.InvalidScenarioResult(err)
		fmt.Fprintln(os.Stderr, "draref:", err)
		code = 1
	}
	os.Stdout.Write(scenario.Marshal(res, !*compact))
	return code
}

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func cmdCELEval(args []string) int {
	fs := flag.NewFlagSet("cel eval", flag.ContinueOnError)
	expr := fs.String("expr", "", "CEL expression")
	deviceJSON := fs.String("device-json", "", "file with one resource.k8s.io/v1 Device (JSON or YAML; a v1beta1 \"basic\" wrapper is unwrapped)")
	driver := fs.String("driver", "", "driver name of the device (with --device-json)")
	file := fs.String("f", "", "scenario file to take the device from (with --device)")
	device := fs.String("device", "", "DRIVER/POOL/DEVICE in the scenario's ResourceSlices")
	featureList := fs.String("features", "", "comma-separated allocator features for the DRA compiler (default: the scenario's, else Kubernetes 1.37 defaults)")
	plain := fs.Bool("plain", false, "evaluate in a plain environment with --var variables instead of against a device")
	envKind := fs.String("env", "plain", "environment for --plain: plain (cel-go standard library) or k8s (Kubernetes base environment)")
	var vars stringList
	fs.Var(&vars, "var", "name=JSON variable for --plain (repeatable)")
	compact := fs.Bool("compact", false, "print on one line")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: draref cel eval --expr EXPR --device-json FILE --driver NAME
       draref cel eval --expr EXPR -f scenario.yaml --device DRIVER/POOL/DEVICE
       draref cel eval --plain [--env plain|k8s] --expr EXPR [--var name=JSON ...]`)
		fs.PrintDefaults()
		fmt.Fprintln(fs.Output(), "\nprints {\"value\": ..., \"type\": ..., \"error\": null | {\"class\": compile|runtime|input, \"message\": ...}}; exit status 0 when evaluated, 1 on error, 2 usage")
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *expr == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	ctx := context.Background()
	var res celeval.Result
	switch {
	case *plain:
		values := map[string]any{}
		for _, v := range vars {
			name, value, ok := strings.Cut(v, "=")
			if !ok || name == "" {
				fmt.Fprintf(os.Stderr, "draref: --var %q: want name=JSON\n", v)
				return 2
			}
			var decoded any
			if err := json.Unmarshal([]byte(value), &decoded); err != nil {
				res = celeval.Result{Error: &celeval.Error{Class: "input", Message: fmt.Sprintf("--var %s: %v", name, err)}}
				break
			}
			values[name] = normalizeJSONNumbers(decoded)
		}
		if res.Error == nil {
			res = celeval.EvalPlain(ctx, celeval.EnvKind(*envKind), *expr, values)
		}
	case *deviceJSON != "":
		if *driver == "" {
			fmt.Fprintln(os.Stderr, "draref: --device-json needs --driver")
			return 2
		}
		dev, err := readDevice(*deviceJSON)
		if err != nil {
			res = celeval.Result{Error: &celeval.Error{Class: "input", Message: err.Error()}}
			break
		}
		features, err := celFeatures(*featureList, nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, "draref:", err)
			return 2
		}
		res = celeval.EvalDevice(ctx, *expr, celeval.DeviceInput{Driver: *driver, Device: *dev}, features)
	case *file != "" && *device != "":
		sc, err := scenario.ParseFile(*file)
		if err != nil {
			res = celeval.Result{Error: &celeval.Error{Class: "input", Message: err.Error()}}
			break
		}
		in, err := findDevice(sc, *device)
		if err != nil {
			res = celeval.Result{Error: &celeval.Error{Class: "input", Message: err.Error()}}
			break
		}
		features, err := celFeatures(*featureList, sc)
		if err != nil {
			fmt.Fprintln(os.Stderr, "draref:", err)
			return 2
		}
		res = celeval.EvalDevice(ctx, *expr, *in, features)
	default:
		fs.Usage()
		return 2
	}
	out, err := marshalJSON(res, !*compact)
	if err != nil {
		fmt.Fprintln(os.Stderr, "draref:", err)
		return 1
	}
	os.Stdout.Write(out)
	if res.Error != nil {
		return 1
	}
	return 0
}

// normalizeJSONNumbers turns integral float64 values into int64 so that
// `--var x=3` is a CEL int, as a JSON integer should be.
func normalizeJSONNumbers(v any) any {
	switch t := v.(type) {
	case float64:
		if t == float64(int64(t)) && t >= -9007199254740992 && t <= 9007199254740992 {
			return int64(t)
		}
		return t
	case []any:
		for i := range t {
			t[i] = normalizeJSONNumbers(t[i])
		}
		return t
	case map[string]any:
		for k := range t {
			t[k] = normalizeJSONNumbers(t[k])
		}
		return t
	}
	return v
}

func celFeatures(list string, sc *scenario.Scenario) (dracel.Features, error) {
	var names []string
	switch {
	case list != "":
		names = strings.Split(list, ",")
	case sc != nil:
		names = sc.FeatureNames
	default:
		names = scenario.DefaultFeatureNames()
	}
	f, err := scenario.FeaturesFromNames(names)
	if err != nil {
		return dracel.Features{}, err
	}
	return scenario.CELFeatures(f), nil
}

func readDevice(path string) (*resourceapi.Device, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return scenario.ParseDevice(data)
}

func findDevice(sc *scenario.Scenario, id string) (*celeval.DeviceInput, error) {
	parts := strings.Split(id, "/")
	if len(parts) < 3 {
		return nil, fmt.Errorf("--device %q: want DRIVER/POOL/DEVICE", id)
	}
	// Pool names may contain slashes; the driver and device name cannot.
	driver, dev := parts[0], parts[len(parts)-1]
	pool := strings.Join(parts[1:len(parts)-1], "/")
	for _, s := range sc.Slices {
		if s.Spec.Driver != driver || s.Spec.Pool.Name != pool {
			continue
		}
		for i := range s.Spec.Devices {
			if s.Spec.Devices[i].Name == dev {
				return &celeval.DeviceInput{Driver: driver, Device: s.Spec.Devices[i]}, nil
			}
		}
	}
	return nil, fmt.Errorf("device %s not found in the scenario's ResourceSlices", id)
}

func cmdVersion(args []string) int {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Println("draref (no build info)")
		return 0
	}
	fmt.Printf("draref %s\n", info.GoVersion)
	for _, dep := range info.Deps {
		switch dep.Path {
		case "k8s.io/dynamic-resource-allocation", "k8s.io/api", "k8s.io/apimachinery", "k8s.io/apiserver", "github.com/google/cel-go", "k8s.io/component-helpers":
			fmt.Printf("%s %s\n", dep.Path, dep.Version)
		}
	}
	return 0
}

// marshalJSON encodes without HTML escaping.
func marshalJSON(v any, indent bool) ([]byte, error) {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(sb.String()), nil
}
