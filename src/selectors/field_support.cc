// Which fields each kind can be selected on, and their values.
//
// Accepted fields: the field label conversion functions of k8s.io/kubernetes
// pkg/apis/core/v1/conversion.go (Pod, Node, Namespace, Event),
// pkg/apis/resource/{v1,v1beta2,v1beta1}/conversion.go (ResourceSlice),
// pkg/apis/batch/v1/conversion.go (Job); every other kind has none and gets
// apimachinery's runtime.DefaultMetaV1FieldSelectorConversion.
// Values: the registries' GetAttrs (pkg/registry/.../strategy.go and
// apiserver's generic.DefaultNamespaceScopedAttr/DefaultClusterScopedAttr).

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "api/object.h"
#include "common/go_strconv.h"
#include "common/str_cat.h"
#include "selectors/selectors.h"

namespace draplane::selectors {
namespace {

// ------------------------------------------------------------ JSON access

// The member at `path`, or nullptr when a step is missing or not an object.
const api::Json* Member(const api::Json& object,
                        std::initializer_list<std::string_view> path) {
  const api::Json* at = &object;
  for (std::string_view step : path) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(std::string(step));
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

// A string member; "" when absent, null or not a string (Go's zero value).
std::string Str(const api::Json& object,
                std::initializer_list<std::string_view> path) {
  const api::Json* v = Member(object, path);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

// A bool member as strconv.FormatBool prints it; false when absent.
std::string BoolText(const api::Json& object,
                     std::initializer_list<std::string_view> path) {
  const api::Json* v = Member(object, path);
  return v && v->is_boolean() && v->get<bool>() ? "true" : "false";
}

// An integer member in decimal; 0 when absent.
std::string IntText(const api::Json& object,
                    std::initializer_list<std::string_view> path) {
  const api::Json* v = Member(object, path);
  if (v && v->is_number_integer()) return std::to_string(v->get<int64_t>());
  return "0";
}

// ------------------------------------------------------------ extensions

// DRAPLANE EXTENSIONS: fields upstream does not offer, accepted and valued
// for the kinds named. The only place they are listed.
struct ExtensionField {
  std::string_view group;
  std::string_view kind;
  std::string_view field;
  std::string (*value)(const api::Json& object);
};

std::string ClaimAllocation(const api::Json& claim) {
  const api::Json* v = Member(claim, {"status", "allocation"});
  return v && !v->is_null() ? "true" : "";
}

std::string ClaimReservedFor(const api::Json& claim) {
  const api::Json* v = Member(claim, {"status", "reservedFor"});
  return v && v->is_array() && !v->empty() ? "true" : "";
}

constexpr ExtensionField kExtensionFields[] = {
    {"resource.k8s.io", "ResourceClaim", "status.allocation", ClaimAllocation},
    {"resource.k8s.io", "ResourceClaim", "status.reservedFor",
     ClaimReservedFor},
};

bool IsExtensionField(std::string_view group, std::string_view kind,
                      std::string_view field) {
  for (const ExtensionField& e : kExtensionFields) {
    if (e.group == group && e.kind == kind && e.field == field) return true;
  }
  return false;
}

// ------------------------------------------------------------ conversion

// How a kind's conversion function words its error.
enum class ErrorStyle {
  kCoreV1,         // field label not supported: <f>
  kResourceSlice,  // field label not supported for <gvk>: <f>
  kJob,            // field label "<f>" not supported for Job
  kDefault,        // "<f>" is not a known field selector: only ...
};

struct KindFieldLabels {
  std::string_view group;
  std::string_view kind;
  ErrorStyle style;
  std::vector<std::string_view> fields;
};

// The kinds with a field label conversion function among those draplane
// serves. Pod's "spec.host" alias is handled in ConvertFieldLabel.
const std::vector<KindFieldLabels>& AllKindFieldLabels() {
  static const auto* table = new std::vector<KindFieldLabels>{
      {"",
       "Pod",
       ErrorStyle::kCoreV1,
       {"metadata.name", "metadata.namespace", "spec.nodeName",
        "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
        "spec.hostNetwork", "status.phase", "status.podIP", "status.podIPs",
        "status.nominatedNodeName"}},
      {"",
       "Node",
       ErrorStyle::kCoreV1,
       {"metadata.name", "spec.unschedulable"}},
      {"", "Namespace", ErrorStyle::kCoreV1, {"status.phase", "metadata.name"}},
      {"",
       "Event",
       ErrorStyle::kCoreV1,
       {"involvedObject.kind", "involvedObject.namespace",
        "involvedObject.name", "involvedObject.uid",
        "involvedObject.apiVersion", "involvedObject.resourceVersion",
        "involvedObject.fieldPath", "reason", "reportingComponent", "source",
        "type", "metadata.namespace", "metadata.name"}},
      {"resource.k8s.io",
       "ResourceSlice",
       ErrorStyle::kResourceSlice,
       {"metadata.name", "spec.nodeName", "spec.driver"}},
      {"batch",
       "Job",
       ErrorStyle::kJob,
       {"metadata.name", "metadata.namespace", "status.successful"}},
  };
  return *table;
}

const KindFieldLabels& DefaultFieldLabels() {
  static const auto* labels = new KindFieldLabels{
      "", "", ErrorStyle::kDefault, {"metadata.name", "metadata.namespace"}};
  return *labels;
}

const KindFieldLabels& FieldLabelsFor(std::string_view group,
                                      std::string_view kind) {
  for (const KindFieldLabels& k : AllKindFieldLabels()) {
    if (k.group == group && k.kind == kind) return k;
  }
  return DefaultFieldLabels();
}

// Scheme.ConvertFieldLabel: the (possibly renamed) field, or the kind's
// error.
absl::StatusOr<std::string> ConvertFieldLabel(std::string_view group,
                                              std::string_view kind,
                                              std::string_view version,
                                              const std::string& field) {
  if (IsExtensionField(group, kind, field)) return field;
  const KindFieldLabels& labels = FieldLabelsFor(group, kind);
  for (std::string_view f : labels.fields) {
    if (f == field) return field;
  }
  // Backwards compatibility with old v1 clients (core/v1 conversion.go).
  if (group.empty() && kind == "Pod" && field == "spec.host") {
    return std::string("spec.nodeName");
  }
  switch (labels.style) {
    case ErrorStyle::kCoreV1:
      return absl::InvalidArgumentError(
          StrCat("field label not supported: ", field));
    case ErrorStyle::kResourceSlice: {
      // schema.GroupVersionKind.String(): "<group>/<version>, Kind=<kind>".
      std::string_view v = version;
      if (v.empty()) {
        const api::KindInfo* info = api::FindKind(group, kind);
        v = info && !info->versions.empty() ? info->versions.front() : "v1";
      }
      return absl::InvalidArgumentError(StrCat("field label not supported for ",
                                               group, "/", v, ", Kind=", kind,
                                               ": ", field));
    }
    case ErrorStyle::kJob:
      return absl::InvalidArgumentError(StrCat(
          "field label ", StrconvQuote(field), " not supported for Job"));
    case ErrorStyle::kDefault:
      break;
  }
  return absl::InvalidArgumentError(
      StrCat(StrconvQuote(field),
             " is not a known field selector: only \"metadata.name\", "
             "\"metadata.namespace\""));
}

bool IsNamespaced(std::string_view group, std::string_view kind,
                  const api::Json& object) {
  if (const api::KindInfo* info = api::FindKind(group, kind)) {
    return info->namespaced;
  }
  return Member(object, {"metadata", "namespace"}) != nullptr;
}

}  // namespace

absl::StatusOr<FieldSelector> ConvertFieldSelector(
    const FieldSelector& selector, std::string_view group,
    std::string_view kind, std::string_view version) {
  std::vector<FieldRequirement> converted;
  converted.reserve(selector.Requirements().size());
  for (const FieldRequirement& r : selector.Requirements()) {
    absl::StatusOr<std::string> field =
        ConvertFieldLabel(group, kind, version, r.field);
    if (!field.ok()) return field.status();
    // Transform drops a term converted to an empty field and value.
    if (field->empty() && r.value.empty()) continue;
    converted.push_back(FieldRequirement{*std::move(field), r.op, r.value});
  }
  return FieldSelector(std::move(converted));
}

absl::Status CheckFieldSelectorSupported(const FieldSelector& selector,
                                         std::string_view group,
                                         std::string_view kind,
                                         std::string_view version) {
  return ConvertFieldSelector(selector, group, kind, version).status();
}

std::map<std::string, std::string> SelectableFields(const api::Json& object,
                                                    std::string_view group,
                                                    std::string_view kind) {
  std::map<std::string, std::string> f;
  f["metadata.name"] = Str(object, {"metadata", "name"});
  if (IsNamespaced(group, kind, object)) {
    f["metadata.namespace"] = Str(object, {"metadata", "namespace"});
  }
  if (group.empty() && kind == "Pod") {
    // pkg/registry/core/pod/strategy.go ToSelectableFields, reading the v1
    // form: v1->internal conversion takes serviceAccountName, else the
    // deprecated serviceAccount; and the pod IP from status.podIP, else
    // status.podIPs[0].
    f["spec.nodeName"] = Str(object, {"spec", "nodeName"});
    f["spec.restartPolicy"] = Str(object, {"spec", "restartPolicy"});
    f["spec.schedulerName"] = Str(object, {"spec", "schedulerName"});
    std::string sa = Str(object, {"spec", "serviceAccountName"});
    if (sa.empty()) sa = Str(object, {"spec", "serviceAccount"});
    f["spec.serviceAccountName"] = sa;
    f["spec.hostNetwork"] = BoolText(object, {"spec", "hostNetwork"});
    f["status.phase"] = Str(object, {"status", "phase"});
    std::string ip = Str(object, {"status", "podIP"});
    if (ip.empty()) {
      const api::Json* ips = Member(object, {"status", "podIPs"});
      if (ips && ips->is_array() && !ips->empty()) {
        ip = Str((*ips)[0], {"ip"});
      }
    }
    f["status.podIP"] = ip;
    f["status.nominatedNodeName"] =
        Str(object, {"status", "nominatedNodeName"});
  } else if (group.empty() && kind == "Node") {
    f["spec.unschedulable"] = BoolText(object, {"spec", "unschedulable"});
  } else if (group.empty() && kind == "Namespace") {
    f["status.phase"] = Str(object, {"status", "phase"});
    // "This is a bug, but we need to support it for backward
    // compatibility." (upstream; the conversion function rejects "name").
    f["name"] = f["metadata.name"];
  } else if (group.empty() && kind == "Event") {
    for (std::string_view member :
         {"kind", "namespace", "name", "uid", "apiVersion", "resourceVersion",
          "fieldPath"}) {
      f[StrCat("involvedObject.", member)] =
          Str(object, {"involvedObject", member});
    }
    f["reason"] = Str(object, {"reason"});
    f["type"] = Str(object, {"type"});
    const std::string reporting = Str(object, {"reportingComponent"});
    f["reportingComponent"] = reporting;
    std::string source = Str(object, {"source", "component"});
    f["source"] = source.empty() ? reporting : source;
  } else if (group == "resource.k8s.io" && kind == "ResourceSlice") {
    f["spec.nodeName"] = Str(object, {"spec", "nodeName"});
    f["spec.driver"] = Str(object, {"spec", "driver"});
  } else if (group == "batch" && kind == "Job") {
    f["status.successful"] = IntText(object, {"status", "succeeded"});
  }
  for (const ExtensionField& e : kExtensionFields) {
    if (e.group == group && e.kind == kind) {
      f[std::string(e.field)] = e.value(object);
    }
  }
  return f;
}

}  // namespace draplane::selectors
