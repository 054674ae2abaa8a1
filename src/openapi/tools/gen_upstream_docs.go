//go:build ignore

// Generates src/openapi/internal/upstream_docs.cc: for every upstream Go type
// whose OpenAPI schema draplane publishes, its description and, for each of
// its JSON fields, the description, the OpenAPI shape of the Go type, the
// list/map/patch markers and whether the field is optional.
//
// draplane's schemas take their structure from its own type definitions
// (src/api/internal/type_mappings.h); this table only adds what upstream
// declares beside the structure: documentation (from
// types_swagger_doc_generated.go), `+listType`/`+listMapKey`/`+mapType`/
// `+structType` comment markers, `patchStrategy`/`patchMergeKey` struct tags,
// optionality (kube-openapi's rule: `+optional`/`+required`, else
// `omitempty`), and the shapes of the fields draplane does not model (kept
// opaque in `unknown_fields`), so that `kubectl explain` lists them.
//
// Reads the sources only (go/ast, standard library; no module needs
// building). Run from the repository root:
//
//	go run src/openapi/tools/gen_upstream_docs.go \
//	    -modcache "$(go env GOMODCACHE)" > src/openapi/internal/upstream_docs.cc
//
// The output is not clang-formatted (it says `clang-format off`).
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

const (
	apiVersion          = "v0.37.2"
	apimachineryVersion = "v0.37.2"
)

// A Go package to read and the types of it to emit (nil: every struct type).
type pkgSpec struct {
	dir    string // relative to the module cache
	prefix string // OpenAPI model name prefix
	types  []string
}

var (
	metaV1  = "k8s.io/apimachinery@" + apimachineryVersion + "/pkg/apis/meta/v1"
	runtime = "k8s.io/apimachinery@" + apimachineryVersion + "/pkg/runtime"
	resQty  = "k8s.io/apimachinery@" + apimachineryVersion + "/pkg/api/resource"
	intstr  = "k8s.io/apimachinery@" + apimachineryVersion + "/pkg/util/intstr"
	api     = "k8s.io/api@" + apiVersion + "/"
)

var packages = []pkgSpec{
	{metaV1, "io.k8s.apimachinery.pkg.apis.meta.v1", []string{
		"ObjectMeta", "OwnerReference", "ManagedFieldsEntry", "Condition",
		"LabelSelector", "LabelSelectorRequirement", "ListMeta", "Status",
		"StatusDetails", "StatusCause", "DeleteOptions", "Preconditions",
		"WatchEvent", "Patch", "FieldsV1", "Time", "MicroTime", "TypeMeta",
		"ListOptions", "CreateOptions", "PatchOptions", "UpdateOptions"}},
	{runtime, "io.k8s.apimachinery.pkg.runtime", []string{"RawExtension"}},
	{intstr, "io.k8s.apimachinery.pkg.util.intstr", []string{"IntOrString"}},
	{resQty, "io.k8s.apimachinery.pkg.api.resource", []string{"Quantity"}},
	{api + "core/v1", "io.k8s.api.core.v1", []string{
		"Namespace", "NamespaceSpec", "NamespaceStatus", "NamespaceList",
		"Node", "NodeSpec", "NodeStatus", "NodeCondition", "Taint", "NodeList",
		"Pod", "PodSpec", "PodStatus", "PodCondition", "PodList",
		"Container", "ResourceRequirements", "ResourceClaim",
		"PodResourceClaim", "PodResourceClaimStatus", "Toleration",
		"PodTemplateSpec", "ObjectReference", "EventSource", "Event",
		"EventList", "ResourceQuota", "ResourceQuotaSpec",
		"ResourceQuotaStatus", "ResourceQuotaList", "NodeSelector",
		"NodeSelectorTerm", "NodeSelectorRequirement", "Binding",
		"LocalObjectReference", "ServiceAccount", "ServiceAccountList"}},
	{api + "authentication/v1", "io.k8s.api.authentication.v1", []string{
		"TokenRequest", "TokenRequestSpec", "TokenRequestStatus",
		"BoundObjectReference"}},
	{api + "autoscaling/v1", "io.k8s.api.autoscaling.v1", []string{
		"Scale", "ScaleSpec", "ScaleStatus"}},
	{api + "coordination/v1", "io.k8s.api.coordination.v1", []string{
		"Lease", "LeaseSpec", "LeaseList"}},
	{api + "apps/v1", "io.k8s.api.apps.v1", []string{
		"Deployment", "DeploymentSpec", "DeploymentStatus", "DeploymentList"}},
	{api + "batch/v1", "io.k8s.api.batch.v1", []string{
		"Job", "JobSpec", "JobStatus", "JobList"}},
	{api + "rbac/v1", "io.k8s.api.rbac.v1", []string{
		"PolicyRule", "AggregationRule", "Role", "RoleList", "ClusterRole",
		"ClusterRoleList", "Subject", "RoleRef", "RoleBinding",
		"RoleBindingList", "ClusterRoleBinding", "ClusterRoleBindingList"}},
	{api + "resource/v1", "io.k8s.api.resource.v1", nil},
	{api + "resource/v1beta2", "io.k8s.api.resource.v1beta2", nil},
	{api + "resource/v1beta1", "io.k8s.api.resource.v1beta1", nil},
}

// OpenAPI model name prefixes of the packages other packages refer to.
var importPrefixes = map[string]string{
	"k8s.io/apimachinery/pkg/apis/meta/v1": "io.k8s.apimachinery.pkg.apis.meta.v1",
	"k8s.io/apimachinery/pkg/runtime":      "io.k8s.apimachinery.pkg.runtime",
	"k8s.io/api/core/v1":                   "io.k8s.api.core.v1",
}

// Descriptions of metav1.TypeMeta's fields, for types that inline it.
var typeMetaDocs map[string]string

type field struct {
	name, description, shape       string
	listType, listMapKeys, mapType string
	patchStrategy, patchMergeKey   string
	optional                       bool
}

type typeInfo struct {
	name, description, mapType string
	fields                     []field
}

// One parsed package: its type declarations and swagger docs.
type parsedPkg struct {
	spec    pkgSpec
	decls   map[string]*ast.TypeSpec
	docs    map[string]*ast.CommentGroup // GenDecl/TypeSpec doc per type
	imports map[*ast.TypeSpec]map[string]string
	swagger map[string]map[string]string
}

func main() {
	modcache := flag.String("modcache", "", "Go module cache (go env GOMODCACHE)")
	flag.Parse()
	if *modcache == "" {
		fmt.Fprintln(os.Stderr, "-modcache is required")
		os.Exit(2)
	}
	var all []struct {
		prefix string
		types  []typeInfo
	}
	for _, spec := range packages {
		p := parse(filepath.Join(*modcache, spec.dir), spec)
		if spec.dir == metaV1 {
			typeMetaDocs = p.swagger["TypeMeta"]
		}
		names := spec.types
		if names == nil {
			for n, ts := range p.decls {
				if _, ok := ts.Type.(*ast.StructType); ok && ast.IsExported(n) {
					names = append(names, n)
				}
			}
			sort.Strings(names)
		}
		var infos []typeInfo
		for _, n := range names {
			infos = append(infos, p.describe(n))
		}
		all = append(all, struct {
			prefix string
			types  []typeInfo
		}{spec.prefix, infos})
	}
	emit(all)
}

func parse(dir string, spec pkgSpec) *parsedPkg {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
		n := fi.Name()
		return !strings.HasSuffix(n, "_test.go") && !strings.HasPrefix(n, "zz_generated") &&
			!strings.HasSuffix(n, ".pb.go")
	}, parser.ParseComments)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	p := &parsedPkg{spec: spec, decls: map[string]*ast.TypeSpec{},
		docs: map[string]*ast.CommentGroup{}, imports: map[*ast.TypeSpec]map[string]string{},
		swagger: map[string]map[string]string{}}
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			imports := map[string]string{}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				name := filepath.Base(path)
				if imp.Name != nil {
					name = imp.Name.Name
				}
				imports[name] = path
			}
			for _, d := range f.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok {
					continue
				}
				for _, s := range gd.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						p.decls[s.Name.Name] = s
						p.imports[s] = imports
						if s.Doc != nil {
							p.docs[s.Name.Name] = s.Doc
						} else {
							p.docs[s.Name.Name] = gd.Doc
						}
					case *ast.ValueSpec:
						for i, n := range s.Names {
							if !strings.HasPrefix(n.Name, "map_") || i >= len(s.Values) {
								continue
							}
							lit, ok := s.Values[i].(*ast.CompositeLit)
							if !ok {
								continue
							}
							m := map[string]string{}
							for _, e := range lit.Elts {
								kv := e.(*ast.KeyValueExpr)
								k, _ := strconv.Unquote(kv.Key.(*ast.BasicLit).Value)
								v, _ := strconv.Unquote(kv.Value.(*ast.BasicLit).Value)
								m[k] = v
							}
							p.swagger[strings.TrimPrefix(n.Name, "map_")] = m
						}
					}
				}
			}
		}
	}
	return p
}

// The comment text of a declaration without markers, as one paragraph per
// blank-line-separated block (openapi-gen's rendering, simplified).
func commentText(cg *ast.CommentGroup) string {
	if cg == nil {
		return ""
	}
	var paras []string
	var cur []string
	for _, line := range strings.Split(cg.Text(), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "+") {
			continue
		}
		if line == "" {
			if len(cur) > 0 {
				paras = append(paras, strings.Join(cur, " "))
				cur = nil
			}
			continue
		}
		cur = append(cur, line)
	}
	if len(cur) > 0 {
		paras = append(paras, strings.Join(cur, " "))
	}
	return strings.Join(paras, "\n\n")
}

func markers(cg *ast.CommentGroup) map[string][]string {
	out := map[string][]string{}
	if cg == nil {
		return out
	}
	for _, c := range cg.List {
		line := strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
		if !strings.HasPrefix(line, "+") {
			continue
		}
		kv := strings.SplitN(strings.TrimPrefix(line, "+"), "=", 2)
		v := ""
		if len(kv) == 2 {
			v = kv[1]
		}
		out[kv[0]] = append(out[kv[0]], v)
	}
	return out
}

func (p *parsedPkg) describe(name string) typeInfo {
	ts, ok := p.decls[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "%s: no type %s\n", p.spec.dir, name)
		os.Exit(1)
	}
	info := typeInfo{name: name}
	if doc, ok := p.swagger[name][""]; ok {
		info.description = doc
	} else {
		info.description = commentText(p.docs[name])
	}
	tm := markers(p.docs[name])
	if v := tm["structType"]; len(v) > 0 {
		info.mapType = v[0]
	}
	if v := tm["mapType"]; len(v) > 0 {
		info.mapType = v[0]
	}
	st, ok := ts.Type.(*ast.StructType)
	if !ok {
		return info
	}
	p.addFields(&info, st, p.imports[ts], name)
	return info
}

func (p *parsedPkg) addFields(info *typeInfo, st *ast.StructType, imports map[string]string, docType string) {
	for _, f := range st.Fields.List {
		tag := ""
		if f.Tag != nil {
			tag, _ = strconv.Unquote(f.Tag.Value)
		}
		st := reflect.StructTag(tag)
		jsonTag := st.Get("json")
		jsonName := strings.Split(jsonTag, ",")[0]
		if jsonName == "-" {
			continue
		}
		embedded := len(f.Names) == 0
		if embedded && jsonName == "" {
			// encoding/json promotes the fields of an embedded struct
			// without a JSON name (`json:",inline"`, `json:""`).
			if id, ok := f.Type.(*ast.Ident); ok {
				if emb, ok := p.decls[id.Name]; ok {
					if est, ok := emb.Type.(*ast.StructType); ok {
						p.addFields(info, est, p.imports[emb], id.Name)
					}
				}
			}
			if sel, ok := f.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "TypeMeta" {
				for _, n := range []string{"apiVersion", "kind"} {
					info.fields = append(info.fields, field{name: n,
						description: typeMetaDocs[n], shape: "string", optional: true})
				}
			}
			continue
		}
		if jsonName == "" || (!embedded && !ast.IsExported(f.Names[0].Name)) {
			continue
		}
		m := markers(f.Doc)
		fd := field{name: jsonName}
		fd.description = p.swagger[docType][jsonName]
		fd.shape = p.shape(f.Type, imports)
		if v := m["listType"]; len(v) > 0 {
			fd.listType = v[0]
		}
		fd.listMapKeys = strings.Join(m["listMapKey"], ",")
		if v := m["mapType"]; len(v) > 0 {
			fd.mapType = v[0]
		}
		if v := m["structType"]; len(v) > 0 {
			fd.mapType = v[0]
		}
		fd.patchStrategy = st.Get("patchStrategy")
		fd.patchMergeKey = st.Get("patchMergeKey")
		_, opt := m["optional"]
		_, req := m["required"]
		switch {
		case req:
			fd.optional = false
		case opt:
			fd.optional = true
		default:
			fd.optional = strings.Contains(jsonTag, ",omitempty")
		}
		info.fields = append(info.fields, fd)
	}
}

// The OpenAPI shape of a Go type expression:
//
//	string int32 int64 bool double bytes Time MicroTime Quantity IntOrString
//	object (opaque)  ref:<model name>  []<shape>  map[]<shape>
func (p *parsedPkg) shape(e ast.Expr, imports map[string]string) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return p.shape(t.X, imports)
	case *ast.ArrayType:
		if id, ok := t.Elt.(*ast.Ident); ok && id.Name == "byte" {
			return "bytes"
		}
		return "[]" + p.shape(t.Elt, imports)
	case *ast.MapType:
		return "map[]" + p.shape(t.Value, imports)
	case *ast.InterfaceType:
		return "object"
	case *ast.SelectorExpr:
		pkg := imports[t.X.(*ast.Ident).Name]
		switch pkg + "." + t.Sel.Name {
		case "k8s.io/apimachinery/pkg/apis/meta/v1.Time":
			return "Time"
		case "k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":
			return "MicroTime"
		case "k8s.io/apimachinery/pkg/apis/meta/v1.Duration":
			return "string"
		case "k8s.io/apimachinery/pkg/api/resource.Quantity":
			return "Quantity"
		case "k8s.io/apimachinery/pkg/util/intstr.IntOrString":
			return "IntOrString"
		case "k8s.io/apimachinery/pkg/types.UID":
			return "string"
		}
		if prefix, ok := importPrefixes[pkg]; ok {
			return "ref:" + prefix + "." + t.Sel.Name
		}
		return "object"
	case *ast.Ident:
		switch t.Name {
		case "string":
			return "string"
		case "int32", "uint32", "int", "uint16", "int16", "uint8":
			return "int32"
		case "int64", "uint64":
			return "int64"
		case "bool":
			return "bool"
		case "float64", "float32":
			return "double"
		}
		if ts, ok := p.decls[t.Name]; ok {
			if _, isStruct := ts.Type.(*ast.StructType); isStruct {
				return "ref:" + p.spec.prefix + "." + t.Name
			}
			return p.shape(ts.Type, p.imports[ts])
		}
		return "object"
	}
	return "object"
}

// ------------------------------------------------------------------ output

var pool = map[string]int{}
var poolOrder []string

func intern(s string) int {
	if i, ok := pool[s]; ok {
		return i
	}
	pool[s] = len(poolOrder)
	poolOrder = append(poolOrder, s)
	return pool[s]
}

func cppString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '?':
			b.WriteString(`\?`) // no trigraphs
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\%03o`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func emit(all []struct {
	prefix string
	types  []typeInfo
}) {
	intern("")
	type row struct {
		prefix string
		t      typeInfo
		first  int
	}
	var rows []row
	var fieldLines []string
	for _, pkg := range all {
		for _, t := range pkg.types {
			rows = append(rows, row{pkg.prefix, t, len(fieldLines)})
			for _, f := range t.fields {
				fieldLines = append(fieldLines, fmt.Sprintf(
					"    {%d, %d, %d, %d, %d, %d, %d, %d, %v},",
					intern(f.name), intern(f.description), intern(f.shape),
					intern(f.listType), intern(f.listMapKeys), intern(f.mapType),
					intern(f.patchStrategy), intern(f.patchMergeKey), f.optional))
			}
		}
	}
	var typeLines []string
	for _, r := range rows {
		typeLines = append(typeLines, fmt.Sprintf("    {%d, %d, %d, %d, %d},",
			intern(r.prefix+"."+r.t.name), intern(r.t.description),
			intern(r.t.mapType), r.first, len(r.t.fields)))
	}
	w := os.Stdout
	fmt.Fprintf(w, `// GENERATED by src/openapi/tools/gen_upstream_docs.go from k8s.io/api %s
// and k8s.io/apimachinery %s (types.go markers and tags,
// types_swagger_doc_generated.go descriptions). DO NOT EDIT; regenerate from
// the repository root with
//   go run src/openapi/tools/gen_upstream_docs.go -modcache "$(go env
//   GOMODCACHE)" > src/openapi/internal/upstream_docs.cc
// clang-format off

#include "openapi/internal/upstream_docs.h"

#include <algorithm>
#include <iterator>

namespace draplane::openapi::internal {
namespace {

constexpr std::string_view kText[] = {
`, apiVersion, apimachineryVersion)
	for _, s := range poolOrder {
		fmt.Fprintf(w, "    %s,\n", cppString(s))
	}
	fmt.Fprintf(w, "};\n\nstruct FieldRow {\n  uint16_t name, description, shape, list_type, list_map_keys, map_type,\n      patch_strategy, patch_merge_key;\n  bool optional;\n};\n\n")
	fmt.Fprintf(w, "constexpr FieldRow kFields[] = {\n%s\n};\n\n", strings.Join(fieldLines, "\n"))
	fmt.Fprintf(w, "struct TypeRow {\n  uint16_t model_name, description, map_type;\n  uint16_t first_field, field_count;\n};\n\n")
	fmt.Fprintf(w, "constexpr TypeRow kTypes[] = {\n%s\n};\n\n", strings.Join(typeLines, "\n"))
	fmt.Fprint(w, `}  // namespace

const UpstreamType* FindUpstreamType(std::string_view model_name) {
  static const auto* types = [] {
    auto* out = new std::vector<UpstreamType>;
    out->reserve(std::size(kTypes));
    for (const TypeRow& row : kTypes) {
      UpstreamType t;
      t.model_name = kText[row.model_name];
      t.description = kText[row.description];
      t.map_type = kText[row.map_type];
      for (uint16_t i = row.first_field; i < row.first_field + row.field_count;
           ++i) {
        const FieldRow& f = kFields[i];
        t.fields.push_back({kText[f.name], kText[f.description], kText[f.shape],
                            kText[f.list_type], kText[f.list_map_keys],
                            kText[f.map_type], kText[f.patch_strategy],
                            kText[f.patch_merge_key], f.optional});
      }
      out->push_back(std::move(t));
    }
    std::sort(out->begin(), out->end(), [](const auto& a, const auto& b) {
      return a.model_name < b.model_name;
    });
    return out;
  }();
  auto it = std::lower_bound(
      types->begin(), types->end(), model_name,
      [](const UpstreamType& t, std::string_view n) { return t.model_name < n; });
  if (it == types->end() || it->model_name != model_name) return nullptr;
  return &*it;
}

}  // namespace draplane::openapi::internal
`)
}
