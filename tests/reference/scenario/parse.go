// Package scenario reads draplane scenario files (a YAML or JSON stream of
// Kubernetes objects plus one draplane.dev/v1alpha1 Scenario header), builds
// the inputs of the upstream structured allocator the way kube-scheduler's
// DynamicResources plugin does, runs it and renders the result format shared
// with `draplane allocate -o json` (docs/scenario-format.md).
package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/dynamic-resource-allocation/structured"
	sigsjson "sigs.k8s.io/json"
)

// HeaderAPIVersion and HeaderKind identify the scenario header object.
const (
	HeaderAPIVersion = "draplane.dev/v1alpha1"
	HeaderKind       = "Scenario"
)

// Scenario is a parsed scenario, with every resource.k8s.io object converted
// to v1 and defaulted like the API server would.
type Scenario struct {
	Name string
	Node string
	// FeatureNames lists the enabled allocator features (sorted).
	FeatureNames []string
	Features     structured.Features

	Slices     []*resourceapi.ResourceSlice
	Classes    []*resourceapi.DeviceClass
	TaintRules []*resourceapi.DeviceTaintRule
	Claims     []*resourceapi.ResourceClaim
	Nodes      []*corev1.Node
	Namespaces []*corev1.Namespace
}

// header is the draplane.dev/v1alpha1 Scenario object.
type header struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   metav1.ObjectMeta `json:"metadata"`
	Spec       struct {
		Node     string    `json:"node"`
		Features *[]string `json:"features,omitempty"`
	} `json:"spec"`
}

// InputError is returned for scenario files that cannot be read or are not
// well-formed scenarios. It maps to the error class "invalid-scenario".
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErrorf(format string, args ...any) error {
	return &InputError{Err: fmt.Errorf(format, args...)}
}

// ParseFile reads and parses one scenario file.
func ParseFile(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	return Parse(data, path)
}

type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// Parse parses a scenario from a YAML (multi-document) or JSON stream.
// source is only used in error messages.
func Parse(data []byte, source string) (*Scenario, error) {
	docs, err := splitDocuments(data)
	if err != nil {
		return nil, inputErrorf("%s: %v", source, err)
	}
	s := &Scenario{}
	var hdr *header
	seen := map[string]int{}
	var add func(index int, raw []byte) error
	add = func(index int, raw []byte) error {
		var tm typeMeta
		if err := json.Unmarshal(raw, &tm); err != nil {
			return fmt.Errorf("object #%d: %v", index, err)
		}
		where := fmt.Sprintf("object #%d (%s %s)", index, tm.APIVersion, tm.Kind)
		group, version, _ := strings.Cut(tm.APIVersion, "/")
		if version == "" {
			group, version = "", group
		}
		// kubectl-style lists.
		if strings.HasSuffix(tm.Kind, "List") {
			var list struct {
				Items []json.RawMessage `json:"items"`
			}
			if err := json.Unmarshal(raw, &list); err != nil {
				return fmt.Errorf("%s: %v", where, err)
			}
			for _, item := range list.Items {
				if err := add(index, item); err != nil {
					return err
				}
			}
			return nil
		}
		var key string
		switch {
		case tm.APIVersion == HeaderAPIVersion && tm.Kind == HeaderKind:
			if hdr != nil {
				return fmt.Errorf("%s: more than one %s header", where, HeaderKind)
			}
			hdr = &header{}
			if err := strictUnmarshal(raw, hdr); err != nil {
				return fmt.Errorf("%s: %v", where, err)
			}
			return nil
		case group == "resource.k8s.io":
			obj, err := decodeResource(version, tm.Kind, raw)
			if err != nil {
				return fmt.Errorf("%s: %v", where, err)
			}
			switch o := obj.(type) {
			case *resourceapi.ResourceSlice:
				s.Slices = append(s.Slices, o)
				key = "ResourceSlice/" + o.Name
			case *resourceapi.DeviceClass:
				s.Classes = append(s.Classes, o)
				key = "DeviceClass/" + o.Name
			case *resourceapi.DeviceTaintRule:
				s.TaintRules = append(s.TaintRules, o)
				key = "DeviceTaintRule/" + o.Name
			case *resourceapi.ResourceClaim:
				defaultClaim(o)
				s.Claims = append(s.Claims, o)
				key = "ResourceClaim/" + o.Namespace + "/" + o.Name
			}
		case group == "" && version == "v1" && tm.Kind == "Node":
			node := &corev1.Node{}
			if err := strictUnmarshal(raw, node); err != nil {
				return fmt.Errorf("%s: %v", where, err)
			}
			s.Nodes = append(s.Nodes, node)
			key = "Node/" + node.Name
		case group == "" && version == "v1" && tm.Kind == "Namespace":
			ns := &corev1.Namespace{}
			if err := strictUnmarshal(raw, ns); err != nil {
				return fmt.Errorf("%s: %v", where, err)
			}
			s.Namespaces = append(s.Namespaces, ns)
			key = "Namespace/" + ns.Name
		default:
			return fmt.Errorf("%s: unsupported object kind", where)
		}
		if prev, ok := seen[key]; ok {
			return fmt.Errorf("%s: duplicate object %s (first seen as object #%d)", where, key, prev)
		}
		seen[key] = index
		return nil
	}
	for i, raw := range docs {
		if err := add(i, raw); err != nil {
			return nil, inputErrorf("%s: %v", source, err)
		}
	}
	if hdr == nil {
		return nil, inputErrorf("%s: no %s %s header object", source, HeaderAPIVersion, HeaderKind)
	}
	if hdr.Spec.Node == "" {
		return nil, inputErrorf("%s: %s header: spec.node must be set", source, HeaderKind)
	}
	s.Name = hdr.Metadata.Name
	s.Node = hdr.Spec.Node
	if hdr.Spec.Features == nil {
		s.FeatureNames = DefaultFeatureNames()
	} else {
		s.FeatureNames = append([]string{}, (*hdr.Spec.Features)...)
	}
	s.Features, err = FeaturesFromNames(s.FeatureNames)
	if err != nil {
		return nil, inputErrorf("%s: %s header: %v", source, HeaderKind, err)
	}
	sort.Strings(s.FeatureNames)
	return s, nil
}

// SplitDocuments returns the JSON form of each non-empty document of a YAML
// or JSON stream.
func SplitDocuments(data []byte) ([]json.RawMessage, error) { return splitDocuments(data) }

// splitDocuments returns the JSON form of each non-empty document.
func splitDocuments(data []byte) ([]json.RawMessage, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var docs []json.RawMessage
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		trimmed := bytes.TrimSpace(raw)
		if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
			continue
		}
		docs = append(docs, raw)
	}
}

// strictUnmarshal decodes like the API server with fieldValidation=Strict:
// case-sensitive, unknown and duplicate fields are errors.
func strictUnmarshal(data []byte, into any) error {
	strictErrs, err := sigsjson.UnmarshalStrict(data, into, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil {
		return err
	}
	if len(strictErrs) > 0 {
		msgs := make([]string, len(strictErrs))
		for i, e := range strictErrs {
			msgs[i] = e.Error()
		}
		return fmt.Errorf("strict decoding error: %s", strings.Join(msgs, ", "))
	}
	return nil
}

// decodeResource converts one resource.k8s.io object of any served version
// to its v1 Go type.
func decodeResource(version, kind string, raw []byte) (any, error) {
	switch version {
	case "v1", "v1beta2":
		// v1beta2 has exactly the v1 shape.
	case "v1beta1":
		var err error
		raw, err = convertV1beta1(kind, raw)
		if err != nil {
			return nil, err
		}
	case "v1alpha3":
		if kind != "DeviceTaintRule" {
			return nil, fmt.Errorf("resource.k8s.io/v1alpha3 only serves DeviceTaintRule")
		}
	default:
		return nil, fmt.Errorf("unsupported version resource.k8s.io/%s", version)
	}
	var obj any
	switch kind {
	case "ResourceSlice":
		obj = &resourceapi.ResourceSlice{}
	case "DeviceClass":
		obj = &resourceapi.DeviceClass{}
	case "DeviceTaintRule":
		if version == "v1beta1" {
			return nil, fmt.Errorf("DeviceTaintRule is not served in resource.k8s.io/v1beta1")
		}
		obj = &resourceapi.DeviceTaintRule{}
	case "ResourceClaim":
		obj = &resourceapi.ResourceClaim{}
	default:
		return nil, fmt.Errorf("unsupported kind")
	}
	if err := strictUnmarshal(raw, obj); err != nil {
		return nil, err
	}
	// Present every object as v1.
	switch o := obj.(type) {
	case *resourceapi.ResourceSlice:
		o.APIVersion = "resource.k8s.io/v1"
	case *resourceapi.DeviceClass:
		o.APIVersion = "resource.k8s.io/v1"
	case *resourceapi.DeviceTaintRule:
		o.APIVersion = "resource.k8s.io/v1"
	case *resourceapi.ResourceClaim:
		o.APIVersion = "resource.k8s.io/v1"
	}
	return obj, nil
}

// convertV1beta1 rewrites the JSON of a v1beta1 object into the v1 shape.
// The differences (k8s.io/kubernetes pkg/apis/resource/v1beta1 conversion):
//   - ResourceSlice: each device wraps its fields in "basic"; spec.nodeName
//     and spec.allNodes are values, not pointers ("" and false mean unset).
//   - ResourceClaim: a request is flat; v1 puts everything but name and
//     firstAvailable into "exactly".
//
// DeviceClass has the same shape.
func convertV1beta1(kind string, raw []byte) ([]byte, error) {
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil {
		return nil, err
	}
	spec, _ := obj["spec"].(map[string]any)
	switch kind {
	case "ResourceSlice":
		if spec != nil {
			if v, ok := spec["nodeName"]; ok && v == "" {
				delete(spec, "nodeName")
			}
			if v, ok := spec["allNodes"]; ok && v == false {
				delete(spec, "allNodes")
			}
			devices, _ := spec["devices"].([]any)
			for _, d := range devices {
				device, ok := d.(map[string]any)
				if !ok {
					continue
				}
				basic, ok := device["basic"].(map[string]any)
				if !ok {
					if device["basic"] == nil {
						delete(device, "basic")
					}
					continue
				}
				delete(device, "basic")
				for k, v := range basic {
					if _, dup := device[k]; dup {
						return nil, fmt.Errorf("device %v: field %q both inside and outside of basic", device["name"], k)
					}
					device[k] = v
				}
			}
		}
	case "ResourceClaim":
		devices, _ := spec["devices"].(map[string]any)
		requests, _ := devices["requests"].([]any)
		for i, r := range requests {
			request, ok := r.(map[string]any)
			if !ok {
				continue
			}
			v1 := map[string]any{}
			exactly := map[string]any{}
			for k, v := range request {
				switch k {
				case "name", "firstAvailable":
					v1[k] = v
				default:
					exactly[k] = v
				}
			}
			if fa, ok := request["firstAvailable"].([]any); !ok || len(fa) == 0 {
				delete(v1, "firstAvailable")
				v1["exactly"] = exactly
			} else if len(exactly) > 0 {
				// Not valid in v1beta1 either; keep the fields so that
				// strict decoding reports them.
				for k, v := range exactly {
					v1[k] = v
				}
			}
			requests[i] = v1
		}
	case "DeviceClass":
	default:
		return nil, fmt.Errorf("unsupported kind")
	}
	obj["apiVersion"] = "resource.k8s.io/v1"
	return json.Marshal(obj)
}

// defaultClaim applies the API server's defaulting for resource.k8s.io/v1
// ResourceClaims that the allocator depends on: allocationMode ExactCount
// with count 1, toleration operator Equal.
func defaultClaim(claim *resourceapi.ResourceClaim) {
	for i := range claim.Spec.Devices.Requests {
		req := &claim.Spec.Devices.Requests[i]
		if req.Exactly != nil {
			defaultMode(&req.Exactly.AllocationMode, &req.Exactly.Count)
			defaultTolerations(req.Exactly.Tolerations)
		}
		for j := range req.FirstAvailable {
			sub := &req.FirstAvailable[j]
			defaultMode(&sub.AllocationMode, &sub.Count)
			defaultTolerations(sub.Tolerations)
		}
	}
}

func defaultMode(mode *resourceapi.DeviceAllocationMode, count *int64) {
	if *mode == "" {
		*mode = resourceapi.DeviceAllocationModeExactCount
	}
	if *mode == resourceapi.DeviceAllocationModeExactCount && *count == 0 {
		*count = 1
	}
}

func defaultTolerations(tolerations []resourceapi.DeviceToleration) {
	for i := range tolerations {
		if tolerations[i].Operator == "" {
			tolerations[i].Operator = resourceapi.DeviceTolerationOpEqual
		}
	}
}

// ParseDevice decodes one resource.k8s.io/v1 Device from JSON or YAML. A
// v1beta1 device (fields wrapped in "basic") is unwrapped.
func ParseDevice(data []byte) (*resourceapi.Device, error) {
	docs, err := splitDocuments(data)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 {
		return nil, fmt.Errorf("want exactly one device document, got %d", len(docs))
	}
	wrapped := []byte(`{"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceSlice","spec":{"devices":[` + string(docs[0]) + `]}}`)
	raw, err := convertV1beta1("ResourceSlice", wrapped)
	if err != nil {
		return nil, err
	}
	var slice resourceapi.ResourceSlice
	if err := strictUnmarshal(raw, &slice); err != nil {
		return nil, err
	}
	return &slice.Spec.Devices[0], nil
}
