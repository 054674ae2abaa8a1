// Command kube_proto_gen writes draplane's kube.proto: the protobuf messages of
// the Kubernetes kinds draplane accepts in protobuf request bodies, with
// upstream's field numbers and types, annotated with how Go's encoding/json
// writes each field (the go_json.proto options).
//
// It reads the Go structs of k8s.io/api by reflection: the `protobuf` struct
// tags are what upstream's generated (gogo) marshalling code puts on the wire,
// and the `json` tags plus the Go field types decide the JSON form.
//
// Usage: go run . > ../../kube.proto
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The top-level kinds, with the apiVersion they are served at.
var roots = []struct {
	apiVersion string
	obj        any
}{
	{"v1", corev1.Namespace{}},
	{"v1", corev1.ResourceQuota{}},
	{"v1", corev1.Pod{}},
	{"v1", corev1.Node{}},
	{"v1", corev1.Event{}},
	{"v1", corev1.ServiceAccount{}},
	{"apps/v1", appsv1.Deployment{}},
	{"batch/v1", batchv1.Job{}},
	{"coordination.k8s.io/v1", coordinationv1.Lease{}},
	{"rbac.authorization.k8s.io/v1", rbacv1.Role{}},
	{"rbac.authorization.k8s.io/v1", rbacv1.ClusterRole{}},
	{"rbac.authorization.k8s.io/v1", rbacv1.RoleBinding{}},
	{"rbac.authorization.k8s.io/v1", rbacv1.ClusterRoleBinding{}},
	{"authorization.k8s.io/v1", authorizationv1.SelfSubjectAccessReview{}},
	{"authorization.k8s.io/v1", authorizationv1.SubjectAccessReview{}},
	{"authorization.k8s.io/v1", authorizationv1.SelfSubjectRulesReview{}},
	{"authorization.k8s.io/v1", authorizationv1.LocalSubjectAccessReview{}},
	{"authentication.k8s.io/v1", authenticationv1.SelfSubjectReview{}},
	{"authentication.k8s.io/v1", authenticationv1.TokenReview{}},
	{"authentication.k8s.io/v1", authenticationv1.TokenRequest{}},
}

// Message names are the Go type names. Where two packages of the subset
// declare the same name, each such type is listed here with the name its
// message gets instead: the Go name after the API group's. messageName
// stops on any clash not listed.
var renames = map[reflect.Type]string{
	reflect.TypeOf(authenticationv1.ExtraValue(nil)): "AuthenticationExtraValue",
	reflect.TypeOf(authorizationv1.ExtraValue(nil)):  "AuthorizationExtraValue",
}

// Types whose JSON form comes from a custom MarshalJSON; the C++ converter
// implements each format. The proto layout is upstream's generated.proto.
var special = map[reflect.Type]struct {
	format string
	fields []string
}{
	reflect.TypeOf(metav1.Time{}):        {"TIME", []string{"optional int64 seconds = 1;", "optional int32 nanos = 2;"}},
	reflect.TypeOf(metav1.MicroTime{}):   {"MICRO_TIME", []string{"optional int64 seconds = 1;", "optional int32 nanos = 2;"}},
	reflect.TypeOf(resource.Quantity{}):  {"QUANTITY", []string{"optional string string = 1;"}},
	reflect.TypeOf(intstr.IntOrString{}): {"INT_OR_STRING", []string{"optional int64 type = 1;", "optional int32 intVal = 2;", "optional string strVal = 3;"}},
	reflect.TypeOf(metav1.FieldsV1{}):    {"FIELDS_V1", []string{"optional bytes Raw = 1;"}},
}

var (
	marshalerType = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	typeMetaType  = reflect.TypeOf(metav1.TypeMeta{})
	// What gogo's generated code gives every message type.
	protoUnmarshalerType = reflect.TypeOf((*interface{ Unmarshal([]byte) error })(nil)).Elem()
)

type message struct {
	goType reflect.Type
	format string // go_json.proto JsonFormat, "" for STRUCT
	lines  []string
}

var (
	messages = map[string]*message{} // by proto name
	byType   = map[reflect.Type]string{}
)

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "kube_proto_gen: "+format+"\n", args...)
	os.Exit(1)
}

func goName(t reflect.Type) string { return t.PkgPath() + "." + t.Name() }

// messageName returns the proto message name of struct type t, generating the
// message (and those it uses) on first use.
func messageName(t reflect.Type) string {
	if name, ok := byType[t]; ok {
		return name
	}
	name := t.Name()
	if renamed, ok := renames[t]; ok {
		name = renamed
	}
	if other, ok := messages[name]; ok {
		fail("message name %s used by both %s and %s; add both to `renames`", name, goName(other.goType), goName(t))
	}
	m := &message{goType: t}
	messages[name] = m
	byType[t] = name
	if sp, ok := special[t]; ok {
		m.format = sp.format
		m.lines = sp.fields
		return name
	}
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) {
		fail("%s has a custom MarshalJSON; add it to `special`", goName(t))
	}
	if t.Kind() == reflect.Slice {
		// A named []string as a map value (ExtraValue): go-to-protobuf
		// wraps it in a message of one repeated field, `items`.
		if t.Elem().Kind() != reflect.String || !reflect.PointerTo(t).Implements(protoUnmarshalerType) {
			fail("%s: named slice %s is not a generated []string wrapper", goName(t), t)
		}
		m.format = "STRING_LIST"
		m.lines = []string{"repeated string items = 1;"}
		return name
	}
	for i := 0; i < t.NumField(); i++ {
		m.lines = append(m.lines, fieldLines(t, t.Field(i))...)
	}
	checkUniqueJSONNames(t)
	return name
}

// jsonNames lists the JSON keys struct t writes, with embedded structs
// expanded. The converter writes an embedded struct's fields in place, which
// is encoding/json's result only when no key repeats (otherwise the
// shallower field would win).
func jsonNames(t reflect.Type) []string {
	var names []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Type == typeMetaType && f.Anonymous {
			names = append(names, "apiVersion", "kind")
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" && f.Anonymous {
			e := f.Type
			if e.Kind() == reflect.Pointer {
				e = e.Elem()
			}
			names = append(names, jsonNames(e)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
	}
	return names
}

func checkUniqueJSONNames(t reflect.Type) {
	seen := map[string]bool{}
	for _, n := range jsonNames(t) {
		if seen[n] {
			fail("%s: JSON key %q appears twice (embedded struct conflict)", goName(t), n)
		}
		seen[n] = true
	}
}

type protoTag struct {
	wire     string
	number   int
	repeated bool
	name     string
}

func parseProtoTag(tag string) protoTag {
	parts := strings.Split(tag, ",")
	if len(parts) < 3 {
		fail("bad protobuf tag %q", tag)
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil {
		fail("bad protobuf tag %q", tag)
	}
	p := protoTag{wire: parts[0], number: n}
	for _, part := range parts[2:] {
		if part == "rep" {
			p.repeated = true
		}
		if v, ok := strings.CutPrefix(part, "name="); ok {
			p.name = v
		}
	}
	return p
}

// scalarType is the proto type of a Go scalar (or message) type.
func scalarType(t reflect.Type, wire string) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int32:
		return "int32"
	case reflect.Int64:
		return "int64"
	case reflect.Float64:
		if wire != "fixed64" {
			fail("float64 with wire %s", wire)
		}
		return "double"
	case reflect.Struct:
		return messageName(t)
	}
	fail("unsupported Go type %s", t)
	return ""
}

func fieldLines(parent reflect.Type, f reflect.StructField) []string {
	ptag := f.Tag.Get("protobuf")
	jtag := f.Tag.Get("json")
	if ptag == "" || ptag == "-" {
		if f.Type == typeMetaType && f.Anonymous {
			return nil // apiVersion/kind travel in runtime.Unknown.typeMeta
		}
		fail("%s.%s has no protobuf tag", goName(parent), f.Name)
	}
	if jtag == "-" {
		fail("%s.%s is on the wire but not in JSON", goName(parent), f.Name)
	}
	jparts := strings.Split(jtag, ",")
	jsonName := jparts[0]
	var omitempty, omitzero bool
	for _, o := range jparts[1:] {
		switch o {
		case "omitempty":
			omitempty = true
		case "omitzero":
			omitzero = true
		case "inline", "string":
			if o == "string" {
				fail("%s.%s uses json ,string", goName(parent), f.Name)
			}
		default:
			fail("%s.%s: unknown json option %q", goName(parent), f.Name, o)
		}
	}
	inline := false
	if jsonName == "" {
		if f.Anonymous {
			inline = true
		} else {
			jsonName = f.Name
		}
	}
	p := parseProtoTag(ptag)
	if p.name == "" {
		if !f.Anonymous {
			fail("%s.%s: protobuf tag %q has no name", goName(parent), f.Name, ptag)
		}
		// go-to-protobuf names an unnamed embedded field after its type
		// (EphemeralContainer.ephemeralContainerCommon).
		p.name = strings.ToLower(f.Name[:1]) + f.Name[1:]
	}

	var opts []string
	if p.name != jsonName && !inline {
		opts = append(opts, fmt.Sprintf("json_name = %q", jsonName))
	}
	if omitempty {
		opts = append(opts, "(omitempty) = true")
	}
	if omitzero {
		opts = append(opts, "(omitzero) = true")
	}
	if inline {
		opts = append(opts, "(inline) = true")
	}

	t := f.Type
	var decl string
	switch {
	case t.Kind() == reflect.Pointer:
		e := t.Elem()
		if e.Kind() == reflect.Slice || e.Kind() == reflect.Map || e.Kind() == reflect.Pointer {
			fail("%s.%s: pointer to %s", goName(parent), f.Name, e.Kind())
		}
		opts = append(opts, "(pointer) = true")
		decl = "optional " + scalarType(e, p.wire)
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		decl = "optional bytes"
	case t.Kind() == reflect.Slice:
		e := t.Elem()
		if e.Kind() == reflect.Pointer || e.Kind() == reflect.Slice || e.Kind() == reflect.Map {
			fail("%s.%s: slice of %s", goName(parent), f.Name, e.Kind())
		}
		if t.Name() != "" {
			// go-to-protobuf may wrap a named slice in a message
			// (ExtraValue); only map values are handled that way here.
			fail("%s.%s: named slice type %s", goName(parent), f.Name, t)
		}
		// (ISCSI portals are tagged "opt" but are a repeated field in
		// upstream's generated.proto like every other slice.)
		decl = "repeated " + scalarType(e, p.wire)
	case t.Kind() == reflect.Map:
		if t.Key().Kind() != reflect.String {
			fail("%s.%s: map key %s", goName(parent), f.Name, t.Key())
		}
		v := t.Elem()
		switch {
		case v.Kind() == reflect.String:
			decl = fmt.Sprintf("map<string, %s>", scalarType(v, "bytes"))
		case v.Kind() == reflect.Struct, v.Kind() == reflect.Slice && v.Name() != "":
			decl = fmt.Sprintf("map<string, %s>", messageName(v))
		default:
			fail("%s.%s: map value %s", goName(parent), f.Name, v)
		}
	default:
		// (Some scalars are tagged "rep" by mistake upstream; the Go type
		// decides, as in upstream's generated.proto.)
		decl = "optional " + scalarType(t, p.wire)
	}
	line := fmt.Sprintf("%s %s = %d", decl, p.name, p.number)
	if len(opts) > 0 {
		line += " [" + strings.Join(opts, ", ") + "]"
	}
	return []string{line + ";"}
}

func main() {
	var rootNames []string
	for _, r := range roots {
		t := reflect.TypeOf(r.obj)
		messageName(t)
		rootNames = append(rootNames, fmt.Sprintf("%s %s -> %s", r.apiVersion, t.Name(), byType[t]))
	}
	names := make([]string, 0, len(messages))
	for n := range messages {
		names = append(names, n)
	}
	sort.Strings(names)

	var b strings.Builder
	b.WriteString(`// GENERATED by src/protobuf/tools/kube_proto_gen from the Go structs of
// k8s.io/api and k8s.io/apimachinery v0.37.2. Do not edit by hand; rerun the
// generator (see src/protobuf/README.md).
//
// The protobuf messages of the kinds draplane accepts in protobuf request
// bodies (and every message they contain), with upstream's field numbers and
// types, so that the bytes a Go client writes parse here field for field.
// Message names are upstream's Go type names, except where two packages of
// this subset share one: those get their API group's name in front
// (AuthenticationExtraValue, AuthorizationExtraValue). The go_type option
// names the Go type. Fields are declared in Go struct order, which is the
// order encoding/json writes them in. The go_json.proto options say how
// encoding/json writes each field (omitempty, omitzero, pointer, embedded
// struct) and which messages have a custom JSON form.
//
// Kinds:
`)
	for _, r := range rootNames {
		b.WriteString("//   " + r + "\n")
	}
	b.WriteString(`
syntax = "proto2";

package draplane.kube;

import "go_json.proto";

option optimize_for = CODE_SIZE;

// runtime.Unknown, the envelope after the "k8s\0" magic
// (k8s.io/apimachinery/pkg/runtime/generated.proto).
message Unknown {
  option (go_type) = "k8s.io/apimachinery/pkg/runtime.Unknown";
  optional TypeMeta typeMeta = 1;
  optional bytes raw = 2;
  optional string contentEncoding = 3;
  optional string contentType = 4;
}

message TypeMeta {
  option (go_type) = "k8s.io/apimachinery/pkg/runtime.TypeMeta";
  optional string apiVersion = 1;
  optional string kind = 2;
}
`)
	for _, n := range names {
		m := messages[n]
		fmt.Fprintf(&b, "\nmessage %s {\n", n)
		fmt.Fprintf(&b, "  option (go_type) = %q;\n", goName(m.goType))
		if m.format != "" {
			fmt.Fprintf(&b, "  option (json_format) = %s;\n", m.format)
		}
		for _, l := range m.lines {
			b.WriteString("  " + l + "\n")
		}
		b.WriteString("}\n")
	}
	os.Stdout.WriteString(b.String())
}
