package gen

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	dracel "k8s.io/dynamic-resource-allocation/cel"

	"draplane.dev/tests/reference/scenario"
)

// TestDeterministic: the same seed gives the same bytes.
func TestDeterministic(t *testing.T) {
	for seed := uint64(0); seed < 300; seed++ {
		a, b := Generate(seed), Generate(seed)
		if !bytes.Equal(a.Data, b.Data) || a.Name != b.Name {
			t.Fatalf("seed %d: two runs differ", seed)
		}
		if !strings.HasPrefix(a.Name, "gen-"+itoa(seed)+"-") {
			t.Fatalf("seed %d: name %q does not carry the seed", seed, a.Name)
		}
	}
}

// TestStable pins what seeds 0..99 generate. If it fails after an
// intentional generator change, bump Version and update the hash.
func TestStable(t *testing.T) {
	h := sha256.New()
	for seed := uint64(0); seed < 100; seed++ {
		h.Write(Generate(seed).Data)
	}
	got := hex.EncodeToString(h.Sum(nil))
	const want = "2f356267b937053c06285163c65837a3db006b894f9b510247374f05fdd28ed7"
	if got != want {
		t.Fatalf("generator v%d output changed: hash %s, want %s (bump gen.Version and update the hash when intended)", Version, got, want)
	}
}

// TestScenariosRun: every generated scenario parses and upstream answers
// without a timeout; the outcomes are not all the same.
func TestScenariosRun(t *testing.T) {
	classes := map[string]int{}
	for seed := uint64(0); seed < 200; seed++ {
		g := Generate(seed)
		sc, err := scenario.Parse(g.Data, g.Name)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, g.Data)
		}
		res := scenario.Run(context.Background(), sc, scenario.Options{})
		switch {
		case res.Error != nil:
			classes[res.Error.Class]++
		case len(res.Claims) > 0 && res.Claims[0].Allocated:
			classes["allocated"]++
		default:
			classes["unallocatable"]++
		}
	}
	if classes[scenario.ClassTimeout] > 0 {
		t.Errorf("%d scenarios timed out", classes[scenario.ClassTimeout])
	}
	for _, c := range []string{"allocated", "unallocatable", scenario.ClassFatal, scenario.ClassInvalidPools} {
		if classes[c] == 0 {
			t.Errorf("no scenario with outcome %s in seeds 0..199: %v", c, classes)
		}
	}
	t.Logf("outcomes: %v", classes)
}

// TestCoverage: the features issue 3 lists all appear in seeds 0..499.
func TestCoverage(t *testing.T) {
	checks := map[string]string{
		"allocationMode All":          "allocationMode: All",
		"firstAvailable":              "firstAvailable:",
		"matchAttribute string":       "matchAttribute: gpu.example.com/model",
		"matchAttribute int":          "matchAttribute: gpu.example.com/numa",
		"matchAttribute bool":         "matchAttribute: gpu.example.com/ecc",
		"matchAttribute version":      "matchAttribute: gpu.example.com/driverVersion",
		"matchAttribute cross-driver": "matchAttribute: resource.kubernetes.io/pcieRoot",
		"distinctAttribute":           "distinctAttribute:",
		"adminAccess":                 "adminAccess: true",
		"admin namespace":             "resource.kubernetes.io/admin-access",
		"device taint":                "taints:",
		"DeviceTaintRule":             "kind: DeviceTaintRule",
		"tolerations":                 "tolerations:",
		"shared counters":             "sharedCounters:",
		"consumesCounters":            "consumesCounters:",
		"H100 MIG":                    "3g.40gb",
		"A100 MIG":                    "3g.20gb",
		"allowMultipleAllocations":    "allowMultipleAllocations: true",
		"validRange policy":           "validRange:",
		"validValues policy":          "validValues:",
		"capacity requests":           "capacity:\n",
		"shareID in use":              "shareID:",
		"incomplete pool":             "name: node-1-b-0",
		"invalid pool":                "name: broken-",
		"replaced generation":         "name: node-1-c-old",
		"nodeSelector slice":          "nodeSelectorTerms:",
		"allNodes slice":              "allNodes: true",
		"perDeviceNodeSelection":      "perDeviceNodeSelection: true",
		"quantity()":                  "quantity(",
		"semver()":                    "semver(",
		"string functions":            "startsWith(",
		"optional chaining":           ".?optional",
		"v1beta1":                     "apiVersion: resource.k8s.io/v1beta1",
		"v1beta2":                     "apiVersion: resource.k8s.io/v1beta2",
		"feature subset":              "features:",
		"class config":                "source: class",
		"claim config":                "source: claim",
	}
	found := map[string]bool{}
	jsonStreams := 0
	runtimeErrors := 0
	for seed := uint64(0); seed < 500; seed++ {
		g := Generate(seed)
		text := string(g.Data)
		if g.Ext == "json" {
			jsonStreams++
			continue
		}
		for name, needle := range checks {
			if strings.Contains(text, needle) {
				found[name] = true
			}
		}
		if seed < 150 {
			sc, err := scenario.Parse(g.Data, g.Name)
			if err != nil {
				t.Fatal(err)
			}
			if res := scenario.Run(context.Background(), sc, scenario.Options{}); res.Error != nil && strings.Contains(res.Error.Message, "CEL runtime error") {
				runtimeErrors++
			}
		}
	}
	for name := range checks {
		if !found[name] {
			t.Errorf("no generated scenario covers %s (looked for %q)", name, checks[name])
		}
	}
	if jsonStreams == 0 {
		t.Error("no JSON stream scenario")
	}
	if runtimeErrors == 0 {
		t.Error("no scenario hits a CEL runtime error")
	}
}

// TestSelectorMenusCompile: every selector the generator uses compiles in
// the scheduler's DRA CEL environment, and the error menus really fail at
// runtime on a device without the attribute.
func TestSelectorMenusCompile(t *testing.T) {
	cache := dracel.NewCache(100, dracel.Features{EnableConsumableCapacity: true})
	menus := [][]string{gpuSelectors, gpuErrorSelectors, nicSelectors, nicErrorSelectors, sharedSelectors, migSelectorsByCapacity, migErrorSelectors}
	for _, menu := range menus {
		for _, expr := range menu {
			if r := cache.GetOrCompile(expr); r.Error != nil {
				t.Errorf("%s: %v", expr, r.Error)
			}
		}
	}
	b := &builder{r: newRNG(1)}
	dev := b.gpuDevices(1, "gpu", 0)[0]
	delete(dev.Attributes, "optional")
	for _, expr := range gpuErrorSelectors {
		r := cache.GetOrCompile(expr)
		_, _, err := r.DeviceMatches(context.Background(), dracel.Device{Driver: gpuDriver, Attributes: dev.Attributes, Capacity: dev.Capacity})
		if err == nil && !strings.Contains(expr, "||") {
			t.Errorf("%s: no runtime error on a device without the attribute", expr)
		}
	}
	for _, expr := range gpuSelectors {
		r := cache.GetOrCompile(expr)
		if _, _, err := r.DeviceMatches(context.Background(), dracel.Device{Driver: gpuDriver, Attributes: dev.Attributes, Capacity: dev.Capacity}); err != nil {
			t.Errorf("%s: runtime error on a generated GPU: %v", expr, err)
		}
	}
}

// TestMIGGeometry: DynamicMIG publishing gives 26 devices per H100 and 25
// per A100 (MIG already enabled, no full GPU), within the 64-device limit.
func TestMIGGeometry(t *testing.T) {
	for name, want := range map[string]int{"h100-80gb": 26, "a100-40gb": 25} {
		b := &builder{r: newRNG(1)}
		b.migNode(migModels[name], 2)
		var counters, devices int
		for _, s := range b.slices {
			counters += len(s.Spec.SharedCounters)
			if len(s.Spec.Devices) > 0 && len(s.Spec.Devices) != want {
				t.Errorf("%s: slice %s has %d devices, want %d", name, s.Name, len(s.Spec.Devices), want)
			}
			if len(s.Spec.Devices) > resourceapi.ResourceSliceMaxDevicesWithAdvancedFeatures {
				t.Errorf("%s: too many devices in %s", name, s.Name)
			}
			devices += len(s.Spec.Devices)
			for _, set := range s.Spec.SharedCounters {
				if len(set.Counters) != 15 {
					t.Errorf("%s: counter set %s has %d counters, want 15", name, set.Name, len(set.Counters))
				}
			}
		}
		if counters != 2 || devices != 2*want {
			t.Errorf("%s: %d counter sets, %d devices", name, counters, devices)
		}
	}
}

func itoa(u uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			return string(b[i:])
		}
	}
}
