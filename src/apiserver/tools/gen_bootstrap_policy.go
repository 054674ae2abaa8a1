//go:build ignore

// Generates src/apiserver/internal/bootstrap_policy_objects.cc: upstream
// Kubernetes' RBAC bootstrap policy (the ClusterRoles, ClusterRoleBindings,
// Roles and RoleBindings kube-apiserver reconciles at start) as one JSON
// array, one compact object per line.
//
// The policy is not transcribed: it is read from upstream's own golden files,
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata/*.yaml of
// k8s.io/kubernetes, which upstream's TestBootstrap* tests compare against
// what bootstrappolicy builds (default feature gates; the all-gates-on
// variant cluster-roles-featuregates.yaml is not read). Each file is a v1
// List written by sigs.k8s.io/yaml; the reader below accepts only the subset
// of YAML those files use (block mappings and sequences, plain, single- and
// double-quoted one-line scalars, null, {} and []) and fails on anything
// else rather than guess.
//
// Standard library only. Run from the repository root:
//
//	go run src/apiserver/tools/gen_bootstrap_policy.go \
//	    -modcache "$(go env GOMODCACHE)" > src/apiserver/internal/bootstrap_policy_objects.cc
//
// (`go mod download k8s.io/kubernetes@v1.37.2` fetches the module.) The
// JSON literal is fenced by `clang-format off` / `clang-format on`.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

const kubernetesVersion = "v1.37.2"

var testdata = "k8s.io/kubernetes@" + kubernetesVersion +
	"/plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata"

// The lists, in the order they are emitted, and the kind of their items.
var lists = []struct{ file, kind string }{
	{"cluster-roles.yaml", "ClusterRole"},
	{"cluster-role-bindings.yaml", "ClusterRoleBinding"},
	{"controller-roles.yaml", "ClusterRole"},
	{"controller-role-bindings.yaml", "ClusterRoleBinding"},
	{"namespace-roles.yaml", "Role"},
	{"namespace-role-bindings.yaml", "RoleBinding"},
}

// The fields an object of each kind may have besides apiVersion, kind and
// metadata (rbac.authorization.k8s.io/v1).
var bodyFields = map[string][]string{
	"ClusterRole":        {"rules", "aggregationRule"},
	"Role":               {"rules"},
	"ClusterRoleBinding": {"subjects", "roleRef"},
	"RoleBinding":        {"subjects", "roleRef"},
}

// The metadata fields emitted, in this order; creationTimestamp (null in
// upstream's output) is dropped, anything else is an error.
var metadataFields = []string{"name", "namespace", "labels", "annotations"}

// The raw string literal's delimiter; `)` + it + `"` must not occur in the
// JSON (it cannot: in JSON a `)` is only ever inside a string, where `"` is
// escaped), and the generator checks.
const delimiter = "rbac"

func main() {
	modcache := flag.String("modcache", "", "Go module cache (go env GOMODCACHE)")
	flag.Parse()
	if *modcache == "" {
		fmt.Fprintln(os.Stderr, "-modcache is required")
		os.Exit(2)
	}
	var lines []string
	for _, l := range lists {
		path := filepath.Join(*modcache, testdata, l.file)
		src, err := os.ReadFile(path)
		if err != nil {
			fail("%v (go mod download k8s.io/kubernetes@%s)", err, kubernetesVersion)
		}
		doc := parseYAML(path, string(src))
		for i, item := range listItems(path, doc) {
			obj := object(fmt.Sprintf("%s: items[%d]", path, i), item, l.kind)
			lines = append(lines, encode(obj))
		}
	}
	emit(lines)
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "gen_bootstrap_policy: "+format+"\n", args...)
	os.Exit(1)
}

// ---- The checked object model ----

// A YAML mapping with its keys in document order.
type mapping struct {
	keys   []string
	values map[string]any
}

func (m *mapping) get(k string) (any, bool) {
	v, ok := m.values[k]
	return v, ok
}

// The items of a v1 List.
func listItems(path string, doc any) []any {
	m, ok := doc.(*mapping)
	if !ok {
		fail("%s: not a mapping", path)
	}
	for _, k := range m.keys {
		switch k {
		case "apiVersion", "kind", "items", "metadata":
		default:
			fail("%s: unexpected List field %q", path, k)
		}
	}
	if v, _ := m.get("apiVersion"); v != "v1" {
		fail("%s: apiVersion %v, want v1", path, v)
	}
	if v, _ := m.get("kind"); v != "List" {
		fail("%s: kind %v, want List", path, v)
	}
	if md, ok := m.get("metadata"); ok {
		if mm, ok := md.(*mapping); !ok || len(mm.keys) != 0 {
			fail("%s: List metadata is not {}", path)
		}
	}
	items, ok := m.values["items"].([]any)
	if !ok || len(items) == 0 {
		fail("%s: no items", path)
	}
	return items
}

// An item checked against its kind, with apiVersion, kind and metadata first
// and the metadata reduced to name, namespace, labels and annotations; the
// rest keeps upstream's values and order.
func object(where string, item any, kind string) *mapping {
	m, ok := item.(*mapping)
	if !ok {
		fail("%s: not a mapping", where)
	}
	if v, _ := m.get("apiVersion"); v != "rbac.authorization.k8s.io/v1" {
		fail("%s: apiVersion %v", where, v)
	}
	if v, _ := m.get("kind"); v != kind {
		fail("%s: kind %v, want %s", where, v, kind)
	}
	out := &mapping{values: map[string]any{}}
	add := func(k string, v any) {
		out.keys = append(out.keys, k)
		out.values[k] = v
	}
	add("apiVersion", m.values["apiVersion"])
	add("kind", kind)
	md, ok := m.values["metadata"].(*mapping)
	if !ok {
		fail("%s: no metadata", where)
	}
	meta := &mapping{values: map[string]any{}}
	for _, k := range md.keys {
		if k == "creationTimestamp" {
			if md.values[k] != nil {
				fail("%s: creationTimestamp is set", where)
			}
			continue
		}
		if !contains(metadataFields, k) {
			fail("%s: unexpected metadata field %q", where, k)
		}
	}
	for _, k := range metadataFields {
		if v, ok := md.get(k); ok {
			meta.keys = append(meta.keys, k)
			meta.values[k] = v
		}
	}
	if name, _ := meta.values["name"].(string); name == "" {
		fail("%s: no metadata.name", where)
	}
	namespaced := kind == "Role" || kind == "RoleBinding"
	if ns, _ := meta.values["namespace"].(string); (ns != "") != namespaced {
		fail("%s: metadata.namespace %q for a %s", where, ns, kind)
	}
	add("metadata", meta)
	for _, k := range m.keys {
		switch {
		case k == "apiVersion" || k == "kind" || k == "metadata":
		case contains(bodyFields[kind], k):
			add(k, m.values[k])
		default:
			fail("%s: unexpected %s field %q", where, kind, k)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ---- JSON ----

// Compact JSON, keys in mapping order, no HTML escaping.
func encode(v any) string {
	var b strings.Builder
	encodeTo(&b, v)
	return b.String()
}

func encodeTo(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case string:
		b.WriteString(jsonString(v))
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			encodeTo(b, e)
		}
		b.WriteByte(']')
	case *mapping:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(jsonString(k))
			b.WriteByte(':')
			encodeTo(b, v.values[k])
		}
		b.WriteByte('}')
	default:
		fail("cannot encode %T", v)
	}
}

func jsonString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		fail("%v", err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// ---- Output ----

func emit(lines []string) {
	body := "[\n" + strings.Join(lines, ",\n") + "\n]"
	if strings.Contains(body, ")"+delimiter+"\"") {
		fail("the JSON contains the raw string delimiter )%s\"", delimiter)
	}
	w := os.Stdout
	fmt.Fprintf(w, `// GENERATED by src/apiserver/tools/gen_bootstrap_policy.go from
// k8s.io/kubernetes %s
// (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata: cluster-roles,
// cluster-role-bindings, controller-roles, controller-role-bindings,
// namespace-roles, namespace-role-bindings). DO NOT EDIT; regenerate from the
// repository root with
//   go run src/apiserver/tools/gen_bootstrap_policy.go -modcache "$(go env
//   GOMODCACHE)" > src/apiserver/internal/bootstrap_policy_objects.cc

#include "apiserver/internal/bootstrap_policy_objects.h"

namespace draplane::apiserver::internal {

std::string_view BootstrapPolicyObjects() {
  // %d objects, one per line.
  // clang-format off
  static constexpr std::string_view kObjects = R"%s(%s)%s";
  // clang-format on
  return kObjects;
}

}  // namespace draplane::apiserver::internal
`, kubernetesVersion, len(lines), delimiter, body, delimiter)
}

// ---- A reader for the YAML subset sigs.k8s.io/yaml writes here ----

type line struct {
	no     int // 1-based, for errors
	indent int
	text   string
}

type yamlReader struct {
	path  string
	lines []line
	pos   int
}

func parseYAML(path, src string) any {
	r := &yamlReader{path: path}
	if !strings.HasSuffix(src, "\n") {
		r.fail(0, "no final newline")
	}
	for i, t := range strings.Split(strings.TrimSuffix(src, "\n"), "\n") {
		no := i + 1
		if !utf8.ValidString(t) {
			r.fail(no, "not UTF-8")
		}
		if strings.ContainsAny(t, "\t\r") {
			r.fail(no, "tab or carriage return")
		}
		if strings.TrimSpace(t) == "" {
			r.fail(no, "blank line")
		}
		if strings.HasSuffix(t, " ") {
			r.fail(no, "trailing space")
		}
		text := strings.TrimLeft(t, " ")
		if strings.HasPrefix(text, "#") || strings.HasPrefix(text, "---") ||
			strings.HasPrefix(text, "...") || strings.HasPrefix(text, "%") {
			r.fail(no, "comment, directive or document marker")
		}
		r.lines = append(r.lines, line{no, len(t) - len(text), text})
	}
	if len(r.lines) == 0 || r.lines[0].indent != 0 {
		r.fail(1, "the document does not start at column 0")
	}
	v := r.node(0)
	if r.pos != len(r.lines) {
		r.fail(r.lines[r.pos].no, "unexpected indentation")
	}
	return v
}

func (r *yamlReader) fail(no int, format string, args ...any) {
	fail("%s:%d: %s", r.path, no, fmt.Sprintf(format, args...))
}

func isSeqEntry(text string) bool { return text == "-" || strings.HasPrefix(text, "- ") }

// The block node whose first line is the current one, at indent.
func (r *yamlReader) node(indent int) any {
	if isSeqEntry(r.lines[r.pos].text) {
		return r.sequence(indent)
	}
	return r.mapping(indent)
}

func (r *yamlReader) sequence(indent int) []any {
	out := []any{}
	for r.pos < len(r.lines) && r.lines[r.pos].indent == indent && isSeqEntry(r.lines[r.pos].text) {
		l := &r.lines[r.pos]
		if l.text == "-" {
			r.fail(l.no, "empty sequence entry")
		}
		// "- rest": rest is the first line of a node two columns in.
		rest := l.text[2:]
		if strings.HasPrefix(rest, " ") {
			r.fail(l.no, "more than one space after -")
		}
		if isSeqEntry(rest) || keyEnd(rest) >= 0 {
			l.indent, l.text = indent+2, rest
			out = append(out, r.node(indent+2))
			continue
		}
		out = append(out, r.scalar(l.no, rest))
		r.pos++
	}
	return out
}

func (r *yamlReader) mapping(indent int) *mapping {
	m := &mapping{values: map[string]any{}}
	for r.pos < len(r.lines) && r.lines[r.pos].indent == indent && !isSeqEntry(r.lines[r.pos].text) {
		l := r.lines[r.pos]
		end := keyEnd(l.text)
		if end < 0 {
			r.fail(l.no, "expected a mapping key")
		}
		key, ok := r.scalar(l.no, l.text[:end]).(string)
		if !ok {
			r.fail(l.no, "a key that is not a string")
		}
		if _, dup := m.values[key]; dup {
			r.fail(l.no, "duplicate key %q", key)
		}
		rest := l.text[end+1:]
		r.pos++
		var v any
		switch {
		case rest != "":
			if !strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, "  ") {
				r.fail(l.no, "expected one space after the key")
			}
			v = r.scalar(l.no, rest[1:])
		case r.pos < len(r.lines) && r.lines[r.pos].indent > indent:
			v = r.node(r.lines[r.pos].indent)
		case r.pos < len(r.lines) && r.lines[r.pos].indent == indent && isSeqEntry(r.lines[r.pos].text):
			// sigs.k8s.io/yaml does not indent a sequence under its key.
			v = r.sequence(indent)
		default:
			r.fail(l.no, "a key without a value")
		}
		m.keys = append(m.keys, key)
		m.values[key] = v
	}
	return m
}

// The index of the ':' that ends the mapping key at the start of text, or -1
// when text is not "key:" or "key: value".
func keyEnd(text string) int {
	i := 0
	switch {
	case strings.HasPrefix(text, "'"):
		i = 1
		for i < len(text) {
			if text[i] == '\'' {
				if i+1 < len(text) && text[i+1] == '\'' {
					i += 2
					continue
				}
				break
			}
			i++
		}
		i++
	case strings.HasPrefix(text, `"`):
		i = 1
		for i < len(text) && text[i] != '"' {
			if text[i] == '\\' {
				i++
			}
			i++
		}
		i++
	default:
		for i < len(text) {
			if text[i] == ':' && (i+1 == len(text) || text[i+1] == ' ') {
				return i
			}
			i++
		}
		return -1
	}
	if i < len(text) && text[i] == ':' && (i+1 == len(text) || text[i+1] == ' ') {
		return i
	}
	return -1
}

// Plain scalars YAML (1.1, as go-yaml resolves them) would read as something
// other than a string or null. RBAC objects hold strings only, and
// sigs.k8s.io/yaml quotes strings that look like these, so one is an error.
var nonString = regexp.MustCompile(`^(?:` +
	`[-+]?(?:[0-9][0-9_]*)?\.?[0-9][0-9_]*(?:[eE][-+]?[0-9]+)?` + // numbers
	`|[-+]?0[xX][0-9a-fA-F_]+|[-+]?0[bB][01_]+|[-+]?0[oO]?[0-7_]+` +
	`|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?` + // sexagesimal
	`|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)` +
	`|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*` + // timestamps
	`|y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE` +
	`|on|On|ON|off|Off|OFF|=|<<)$`)

// A one-line scalar: null, a string, or the empty flow collections.
func (r *yamlReader) scalar(no int, s string) any {
	switch {
	case s == "{}":
		return &mapping{values: map[string]any{}}
	case s == "[]":
		return []any{}
	case s == "null" || s == "Null" || s == "NULL" || s == "~":
		return nil
	case strings.HasPrefix(s, "'"):
		if len(s) < 2 || !strings.HasSuffix(s, "'") {
			r.fail(no, "unterminated single-quoted scalar %s", s)
		}
		inner := s[1 : len(s)-1]
		if strings.Count(inner, "'")%2 != 0 || strings.Contains(strings.ReplaceAll(inner, "''", ""), "'") {
			r.fail(no, "malformed single-quoted scalar %s", s)
		}
		return strings.ReplaceAll(inner, "''", "'")
	case strings.HasPrefix(s, `"`):
		return r.doubleQuoted(no, s)
	}
	if strings.ContainsAny(s[:1], "-?:,[]{}#&*!|>'\"%@`") && !(len(s) > 1 && strings.ContainsAny(s[:1], "-?:") && s[1] != ' ') {
		r.fail(no, "unsupported YAML construct %s", s)
	}
	if strings.Contains(s, ": ") || strings.Contains(s, " #") || strings.HasSuffix(s, ":") {
		r.fail(no, "unsupported plain scalar %s", s)
	}
	if nonString.MatchString(s) {
		r.fail(no, "plain scalar %s is not a string", s)
	}
	return s
}

func (r *yamlReader) doubleQuoted(no int, s string) string {
	var b strings.Builder
	i := 1
	for {
		if i >= len(s) {
			r.fail(no, "unterminated double-quoted scalar %s", s)
		}
		c := s[i]
		if c == '"' {
			if i != len(s)-1 {
				r.fail(no, "text after a double-quoted scalar %s", s)
			}
			return b.String()
		}
		if c != '\\' {
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			r.fail(no, "unterminated escape in %s", s)
		}
		e := s[i+1]
		i += 2
		simple := map[byte]string{'0': "\x00", 'a': "\a", 'b': "\b", 't': "\t",
			'n': "\n", 'v': "\v", 'f': "\f", 'r': "\r", 'e': "\x1b", ' ': " ",
			'"': `"`, '/': "/", '\\': `\`, 'N': "\u0085", '_': "\u00a0",
			'L': "\u2028", 'P': "\u2029"}
		if t, ok := simple[e]; ok {
			b.WriteString(t)
			continue
		}
		n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
		if n == 0 || i+n > len(s) {
			r.fail(no, "unsupported escape \\%c in %s", e, s)
		}
		cp, err := strconv.ParseUint(s[i:i+n], 16, 32)
		if err != nil || !utf8.ValidRune(rune(cp)) {
			r.fail(no, "bad escape in %s", s)
		}
		b.WriteRune(rune(cp))
		i += n
	}
}
