package scenario_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/dynamic-resource-allocation/structured"

	"draplane.dev/tests/reference/scenario"
)

var update = flag.Bool("update", false, "rewrite testdata/*.expected.json from the current output")

// TestGolden runs every scenario in ../testdata and compares the result
// document byte for byte with its .expected.json.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("../testdata/*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if !(strings.HasSuffix(f, ".yaml") || (strings.HasSuffix(f, ".json") && !strings.HasSuffix(f, ".expected.json"))) {
			continue
		}
		n++
		name := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		t.Run(name, func(t *testing.T) {
			sc, err := scenario.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got := scenario.Marshal(scenario.Run(context.Background(), sc, scenario.Options{}), true)
			want := strings.TrimSuffix(f, filepath.Ext(f)) + ".expected.json"
			if *update {
				if err := os.WriteFile(want, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			expected, err := os.ReadFile(want)
			if err != nil {
				t.Fatalf("%v (run go test ./scenario -update to create it)", err)
			}
			if !bytes.Equal(got, expected) {
				t.Errorf("result differs from %s:\n%s", want, got)
			}
		})
	}
	if n < 10 {
		t.Fatalf("only %d scenarios in testdata", n)
	}
}

func TestParseErrors(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"no header": {`{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}`, "no draplane.dev/v1alpha1 Scenario header"},
		"two headers": {`
apiVersion: draplane.dev/v1alpha1
kind: Scenario
spec: {node: a}
---
apiVersion: draplane.dev/v1alpha1
kind: Scenario
spec: {node: a}`, "more than one Scenario header"},
		"no node":         {"apiVersion: draplane.dev/v1alpha1\nkind: Scenario\nspec: {}", "spec.node must be set"},
		"unknown feature": {"apiVersion: draplane.dev/v1alpha1\nkind: Scenario\nspec: {node: a, features: [Bogus]}", `unknown feature "Bogus"`},
		"unknown field": {`
apiVersion: draplane.dev/v1alpha1
kind: Scenario
spec: {node: a}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: c}
spec: {selector: []}`, `unknown field "spec.selector"`},
		"unknown kind": {`
apiVersion: draplane.dev/v1alpha1
kind: Scenario
spec: {node: a}
---
apiVersion: v1
kind: Pod
metadata: {name: p}`, "unsupported object kind"},
		"duplicate": {`
apiVersion: draplane.dev/v1alpha1
kind: Scenario
spec: {node: a}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: c}
---
apiVersion: resource.k8s.io/v1beta1
kind: DeviceClass
metadata: {name: c}`, "duplicate object DeviceClass/c"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := scenario.Parse([]byte(tc.in), "in")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want one containing %q", err, tc.want)
			}
			var ie *scenario.InputError
			if !errorsAs(err, &ie) {
				t.Fatalf("error %v is not an InputError", err)
			}
		})
	}
}

// TestDefaultFeatures pins the Kubernetes 1.37 defaults.
func TestDefaultFeatures(t *testing.T) {
	sc, err := scenario.Parse([]byte("apiVersion: draplane.dev/v1alpha1\nkind: Scenario\nspec: {node: a}"), "in")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(sc.FeatureNames, ",")
	want := "AdminAccess,ConsumableCapacity,DeviceBindingAndStatus,DeviceTaints,FractionalCapacityRange,PartitionableDevices,PrioritizedList"
	if got != want {
		t.Fatalf("default features %s, want %s", got, want)
	}
	sc, err = scenario.Parse([]byte("apiVersion: draplane.dev/v1alpha1\nkind: Scenario\nspec: {node: a, features: []}"), "in")
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.FeatureNames) != 0 || sc.Features != (structured.Features{}) {
		t.Fatalf("features: [] must disable everything, got %v", sc.FeatureNames)
	}
}

// TestV1beta1Conversion checks that the v1beta1 and v1 forms of the same
// objects decode to the same v1 objects.
func TestV1beta1Conversion(t *testing.T) {
	v1 := `
apiVersion: draplane.dev/v1alpha1
kind: Scenario
spec: {node: node1}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: d.example.com
  nodeName: node1
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  devices:
  - name: a
    attributes: {x: {int: 1}}
    capacity: {mem: {value: 1Gi}}
    taints: [{key: k, effect: NoSchedule}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - name: r
      exactly: {deviceClassName: cls, count: 2, adminAccess: true, tolerations: [{key: k, operator: Exists}]}
    - name: f
      firstAvailable: [{name: s1, deviceClassName: cls}]
`
	beta := `
apiVersion: draplane.dev/v1alpha1
kind: Scenario
spec: {node: node1}
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: d.example.com
  nodeName: node1
  allNodes: false
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  devices:
  - name: a
    basic:
      attributes: {x: {int: 1}}
      capacity: {mem: {value: 1Gi}}
      taints: [{key: k, effect: NoSchedule}]
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - name: r
      deviceClassName: cls
      count: 2
      adminAccess: true
      tolerations: [{key: k, operator: Exists}]
    - name: f
      firstAvailable: [{name: s1, deviceClassName: cls}]
`
	a, err := scenario.Parse([]byte(v1), "v1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := scenario.Parse([]byte(beta), "v1beta1")
	if err != nil {
		t.Fatalf("%v\n%s", err, beta)
	}
	ja := scenario.Marshal(&scenario.Result{Scenario: toJSON(a)}, false)
	jb := scenario.Marshal(&scenario.Result{Scenario: toJSON(b)}, false)
	if !bytes.Equal(ja, jb) {
		t.Fatalf("v1beta1 decodes differently:\nv1:      %s\nv1beta1: %s", ja, jb)
	}
}
