package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"sigs.k8s.io/yaml"
)

type doc struct {
	kind string
	obj  any
	// group: resource.k8s.io objects get a random served version.
	resource bool
}

// serialize renders the scenario as a YAML or JSON stream.
func (b *builder) serialize(name, ext string) []byte {
	header := map[string]any{
		"apiVersion": "draplane.dev/v1alpha1",
		"kind":       "Scenario",
		"metadata": map[string]any{
			"name": name,
			"annotations": map[string]any{
				AnnotationGenerator: strconv.Itoa(Version),
				AnnotationSeed:      strconv.FormatUint(b.seed, 10),
				AnnotationFamily:    b.family,
			},
		},
		"spec": map[string]any{"node": targetNode},
	}
	if b.headerNode != "" {
		header["spec"].(map[string]any)["node"] = b.headerNode
	}
	if b.features != nil {
		header["spec"].(map[string]any)["features"] = *b.features
	}

	var others []doc
	for _, n := range b.nodes {
		others = append(others, doc{kind: "Node", obj: n})
	}
	for _, ns := range b.namespaces {
		others = append(others, doc{kind: "Namespace", obj: ns})
	}
	for _, c := range b.classes {
		others = append(others, doc{kind: "DeviceClass", obj: c, resource: true})
	}
	for _, s := range b.slices {
		others = append(others, doc{kind: "ResourceSlice", obj: s, resource: true})
	}
	for _, r := range b.rules {
		others = append(others, doc{kind: "DeviceTaintRule", obj: r, resource: true})
	}
	if !b.plain {
		shuffle(b.r, others)
	}

	// Claims to allocate keep their order; allocated ones go anywhere.
	var claims []doc
	for _, c := range b.claims {
		claims = append(claims, doc{kind: "ResourceClaim", obj: c, resource: true})
	}
	for _, c := range b.allocated {
		at := 0
		if !b.plain {
			at = b.r.intn(len(claims) + 1)
		}
		claims = append(claims[:at], append([]doc{{kind: "ResourceClaim", obj: c, resource: true}}, claims[at:]...)...)
	}
	docs := append(others, claims...)
	if !b.plain && b.r.chance(20) {
		// Interleave claims with the other objects (claim order kept).
		var mixed []doc
		i, j := 0, 0
		for i < len(others) || j < len(claims) {
			if j >= len(claims) || (i < len(others) && b.r.chance(50)) {
				mixed = append(mixed, others[i])
				i++
			} else {
				mixed = append(mixed, claims[j])
				j++
			}
		}
		docs = mixed
	}
	headerAt := 0
	if !b.plain && b.r.chance(10) {
		headerAt = b.r.intn(len(docs) + 1)
	}
	docs = append(docs[:headerAt], append([]doc{{kind: "Scenario", obj: header}}, docs[headerAt:]...)...)

	var out bytes.Buffer
	for i, d := range docs {
		m := toMap(d.obj)
		if d.kind == "Node" || d.kind == "Namespace" {
			delete(m, "status") // only metadata matters
		}
		if d.resource && !b.plain {
			b.chooseVersion(d.kind, m)
		}
		clean(m)
		data, err := json.Marshal(m)
		if err != nil {
			panic(err)
		}
		if ext == "json" {
			var indented bytes.Buffer
			if err := json.Indent(&indented, data, "", "  "); err != nil {
				panic(err)
			}
			out.Write(indented.Bytes())
			out.WriteByte('\n')
			continue
		}
		y, err := yaml.JSONToYAML(data)
		if err != nil {
			panic(err)
		}
		if i > 0 {
			out.WriteString("---\n")
		}
		out.Write(y)
	}
	return out.Bytes()
}

func toMap(obj any) map[string]any {
	data, err := json.Marshal(obj)
	if err != nil {
		panic(fmt.Sprintf("marshal %T: %v", obj, err))
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		panic(err)
	}
	return m
}

// clean drops empty status and spec objects that typed marshalling adds.
func clean(m map[string]any) {
	for _, key := range []string{"status", "spec"} {
		if v, ok := m[key].(map[string]any); ok && len(v) == 0 {
			delete(m, key)
		}
	}
}

// chooseVersion rewrites a v1 object into a randomly chosen served
// version: v1, v1beta2 (same shape) or v1beta1 (basic wrapper, flat
// requests); DeviceTaintRule uses v1beta2 instead of v1beta1.
func (b *builder) chooseVersion(kind string, m map[string]any) {
	roll := b.r.intn(100)
	switch {
	case roll < 65:
		return
	case roll < 85:
		m["apiVersion"] = "resource.k8s.io/v1beta2"
		return
	}
	if kind == "DeviceTaintRule" {
		// Not served as v1beta1 (v1alpha3 exists but is outside the
		// scenario format's versions).
		m["apiVersion"] = "resource.k8s.io/v1beta2"
		return
	}
	m["apiVersion"] = "resource.k8s.io/v1beta1"
	spec, _ := m["spec"].(map[string]any)
	switch kind {
	case "ResourceSlice":
		devices, _ := spec["devices"].([]any)
		for i, d := range devices {
			dev := d.(map[string]any)
			basic := map[string]any{}
			for k, v := range dev {
				if k != "name" {
					basic[k] = v
				}
			}
			devices[i] = map[string]any{"name": dev["name"], "basic": basic}
		}
	case "ResourceClaim":
		devices, _ := spec["devices"].(map[string]any)
		requests, _ := devices["requests"].([]any)
		for i, r := range requests {
			req := r.(map[string]any)
			exactly, ok := req["exactly"].(map[string]any)
			if !ok {
				continue
			}
			flat := map[string]any{"name": req["name"]}
			for k, v := range exactly {
				flat[k] = v
			}
			requests[i] = flat
		}
	}
}
