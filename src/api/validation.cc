// Defaulting and validation matching Kubernetes 1.37 (master, mid-2026):
//
//  - k8s.io/kubernetes pkg/apis/resource/validation/validation.go (the
//    hand-written rules; their declarative twins in
//    pkg/apis/resource/v1/zz_generated.validations.go report the same
//    problems),
//  - pkg/apis/core/validation/validation.go (ObjectMeta wrappers, node
//    selectors, pod resource claims, container resources.claims),
//  - k8s.io/apimachinery pkg/api/validation/objectmeta.go,
//    pkg/apis/meta/v1/validation (labels, conditions, managed fields),
//  - pkg/apis/resource/v1 defaults (+ defaulter-gen `+default` tags).
//
// Every check, its order, its field path and its message follow upstream.
// Where upstream prints a Go value with %#v that contains pointer addresses
// (and so is not reproducible), a Go-syntax rendering with a fixed address or
// a JSON rendering is used instead; see the notes at RenderJson and GoPtr.
#include "api/validation.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <ctime>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/internal/type_mappings.h"
#include "common/go_strconv.h"
#include "common/name_validation.h"
#include "common/str_cat.h"

namespace draplane::api {
namespace {

namespace nv = ::draplane::name_validation;
using Errs = FieldErrorList;

constexpr std::string_view kFieldImmutable = "field is immutable";
constexpr std::string_view kIsNegative = "must be greater than or equal to 0";
constexpr int kDeviceTaintRuleStatusMaxConditions = 8;
constexpr int kTotalAnnotationSizeLimit = 256 * 1024;
constexpr int kMaxConditionReasonLength = 1024;
constexpr int kMaxConditionMessageLength = 32 * 1024;
constexpr int kFieldManagerMaxLength = 128;
constexpr int kMaxSubresourceNameLength = 256;
constexpr int kAttributeAndCapacityMaxKeyLength =
    kDeviceMaxDomainLength + 1 + kDeviceMaxIdLength;

void Extend(Errs& list, Errs more) { Append(list, std::move(more)); }

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      parts.push_back(s.substr(start));
      return parts;
    }
    parts.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::string Join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out.append(sep);
    out.append(items[i]);
  }
  return out;
}

// ------------------------------------------------ Go value rendering
// field.Error prints bad values of composite types with %#v.

std::string GoStrings(const std::vector<std::string>& v) {
  if (v.empty()) return "[]string(nil)";
  std::vector<std::string> quoted;
  for (const auto& s : v) quoted.push_back(StrconvQuote(s));
  return StrCat("[]string{", Join(quoted, ", "), "}");
}

// Upstream prints pointer fields of structs as (*T)(0xc00...), an address
// that differs on every run. A fixed address keeps the shape of the message.
std::string GoPtr(std::string_view type, bool set) {
  return StrCat("(*", type, ")(", set ? "0xc000000000" : "nil", ")");
}

std::string GoNodeSelectorRequirements(
    const std::vector<NodeSelectorRequirement>& reqs) {
  if (reqs.empty()) return "[]core.NodeSelectorRequirement(nil)";
  std::vector<std::string> items;
  for (const auto& r : reqs) {
    items.push_back(StrCat(
        "core.NodeSelectorRequirement{Key:", StrconvQuote(r.key), ", Operator:",
        StrconvQuote(r.operator_), ", Values:", GoStrings(r.values), "}"));
  }
  return StrCat("[]core.NodeSelectorRequirement{", Join(items, ", "), "}");
}

std::string GoNodeSelectorTerms(const std::vector<NodeSelectorTerm>& terms) {
  if (terms.empty()) return "[]core.NodeSelectorTerm(nil)";
  std::vector<std::string> items;
  for (const auto& t : terms) {
    items.push_back(StrCat(
        "core.NodeSelectorTerm{MatchExpressions:",
        GoNodeSelectorRequirements(t.match_expressions),
        ", MatchFields:", GoNodeSelectorRequirements(t.match_fields), "}"));
  }
  return StrCat("[]core.NodeSelectorTerm{", Join(items, ", "), "}");
}

std::string GoPodResourceClaim(const PodResourceClaim& c) {
  return StrCat("core.PodResourceClaim{Name:", StrconvQuote(c.name),
                ", ResourceClaimName:",
                GoPtr("string", c.resource_claim_name.has_value()),
                ", ResourceClaimTemplateName:",
                GoPtr("string", c.resource_claim_template_name.has_value()),
                "}");
}

std::string GoDeviceAttribute(const DeviceAttributeFields& a) {
  auto list_int = [](const std::vector<int64_t>& v) {
    if (v.empty()) return std::string("[]int64(nil)");
    std::vector<std::string> s;
    for (int64_t x : v) s.push_back(std::to_string(x));
    return StrCat("[]int64{", Join(s, ", "), "}");
  };
  auto list_bool = [](const std::vector<bool>& v) {
    if (v.empty()) return std::string("[]bool(nil)");
    std::vector<std::string> s;
    for (bool x : v) s.push_back(x ? "true" : "false");
    return StrCat("[]bool{", Join(s, ", "), "}");
  };
  return StrCat("resource.DeviceAttribute{IntValue:",
                GoPtr("int64", a.int_value.has_value()),
                ", BoolValue:", GoPtr("bool", a.bool_value.has_value()),
                ", StringValue:", GoPtr("string", a.string_value.has_value()),
                ", VersionValue:", GoPtr("string", a.version_value.has_value()),
                ", IntValues:", list_int(a.ints),
                ", BoolValues:", list_bool(a.bools),
                ", StringValues:", GoStrings(a.strings),
                ", VersionValues:", GoStrings(a.versions), "}");
}

// time.Time.String() of a metav1.Time decoded by an API server running in
// UTC: "2006-01-02 15:04:05.999999999 +0000 UTC".
std::string GoTimeString(const std::optional<Time>& t) {
  if (!t.has_value() || t->empty()) return "0001-01-01 00:00:00 +0000 UTC";
  const std::string& s = *t;
  std::tm tm{};
  int year, mon, day, hour, min, sec;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &year, &mon, &day,
                  &hour, &min, &sec) != 6) {
    return s;
  }
  size_t pos = 19;
  std::string frac;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
      frac += s[pos++];
    }
  }
  long offset = 0;
  if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh = 0, om = 0;
    std::sscanf(s.c_str() + pos + 1, "%2d:%2d", &oh, &om);
    offset = (s[pos] == '+' ? 1 : -1) * (oh * 3600L + om * 60L);
  }
  tm.tm_year = year - 1900;
  tm.tm_mon = mon - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = min;
  tm.tm_sec = sec;
  time_t secs = timegm(&tm) - offset;
  std::tm utc{};
  gmtime_r(&secs, &utc);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &utc);
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  if (frac.size() > 9) frac.resize(9);
  std::string out = buf;
  if (!frac.empty()) out += "." + frac;
  return out + " +0000 UTC";
}

// ------------------------------------------------ structural equality and
// JSON rendering. Eq is apimachinery's Semantic.DeepEqual (quantities
// compare by value); RenderJson is a compact JSON rendering used for
// struct-valued bad values (upstream prints those with %#v, including
// pointer addresses that differ on every run).

template <class T>
bool Eq(const T& a, const T& b) {
  return internal::SemanticEqual(a, b);
}

template <class T>
BadValue RenderJson(const T& v) {
  return BadValue::Json(DumpJson(internal::ToJson(v)));
}

// ------------------------------------------------ list helpers
// validateSlice / validateSet / validateMap of resource validation.go.

template <class T, class ItemFn>
Errs ValidateSlice(const std::vector<T>& items, int max_size, ItemFn item,
                   const FieldPath& path) {
  if (max_size >= 0 && static_cast<int64_t>(items.size()) > max_size) {
    return {TooMany(path, static_cast<int64_t>(items.size()), max_size)};
  }
  Errs errs;
  for (size_t i = 0; i < items.size(); ++i) {
    Extend(errs, item(items[i], path.Index(static_cast<int64_t>(i))));
  }
  return errs;
}

// The key of a set item: compared by `id`, reported as `shown`.
struct SetKey {
  std::string id;
  BadValue shown;
};

template <class T, class ItemFn, class KeyFn>
Errs ValidateSet(const std::vector<T>& items, int max_size, ItemFn item,
                 KeyFn key, const FieldPath& path) {
  if (max_size >= 0 && static_cast<int64_t>(items.size()) > max_size) {
    return {TooMany(path, static_cast<int64_t>(items.size()), max_size)};
  }
  Errs errs;
  for (size_t i = 0; i < items.size(); ++i) {
    Extend(errs, item(items[i], path.Index(static_cast<int64_t>(i))));
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < items.size(); ++i) {
    SetKey k = key(items[i]);
    if (!seen.insert(k.id).second) {
      errs.push_back(Duplicate(path.Index(static_cast<int64_t>(i)), k.shown));
    }
  }
  return errs;
}

SetKey StringKey(const std::string& s) { return {s, BadValue(s)}; }

std::string TruncateIfTooLong(std::string_view s, int max_len) {
  if (max_len < 16) max_len = 16;
  if (static_cast<int>(s.size()) <= max_len) return std::string(s);
  const std::string ellipsis = "...";
  int remaining = max_len - static_cast<int>(ellipsis.size());
  return StrCat(s.substr(0, (remaining + 1) / 2), ellipsis,
                s.substr(s.size() - remaining / 2));
}

// `m`: a std::map or FlatMap of string keys.
template <class Map, class KeyFn, class ItemFn>
Errs ValidateMap(const Map& m, int max_size, int truncate_key_len, KeyFn key_fn,
                 ItemFn item_fn, const FieldPath& path) {
  if (max_size >= 0 && static_cast<int64_t>(m.size()) > max_size) {
    return {TooMany(path, static_cast<int64_t>(m.size()), max_size)};
  }
  Errs errs;
  for (const auto& [key, item] : m) {
    FieldPath key_path = path.Key(TruncateIfTooLong(key, truncate_key_len));
    Extend(errs, key_fn(key, path));
    Extend(errs, item_fn(item, key_path));
  }
  return errs;
}

// ------------------------------------------------ basic formats

Errs InvalidEach(const FieldPath& path, std::string_view value,
                 const std::vector<std::string>& msgs) {
  Errs errs;
  for (const auto& m : msgs) errs.push_back(Invalid(path, value, m));
  return errs;
}

Errs ValidateDNS1123Label(std::string_view v, const FieldPath& p) {
  return InvalidEach(p, v, nv::IsDNS1123Label(v));
}
Errs ValidateDNS1123Subdomain(std::string_view v, const FieldPath& p) {
  return InvalidEach(p, v, nv::IsDNS1123Subdomain(v));
}
// metav1validation.ValidateLabelName.
Errs ValidateLabelName(std::string_view v, const FieldPath& p) {
  return InvalidEach(p, v, nv::IsQualifiedName(v));
}
Errs ValidateLabelValue(std::string_view v, const FieldPath& p) {
  return InvalidEach(p, v, nv::IsLabelValue(v));
}

// corevalidation.ValidateCSIDriverName (used for DRA driver names).
Errs ValidateDriverName(std::string_view name, const FieldPath& path) {
  if (name.empty()) return {Required(path)};
  Errs errs;
  if (name.size() > static_cast<size_t>(kDriverNameMaxLength)) {
    errs.push_back(TooLong(path, kDriverNameMaxLength));
  }
  for (const auto& msg : nv::IsDNS1123Subdomain(ToLower(name))) {
    errs.push_back(Invalid(path, name, msg));
  }
  return errs;
}

Errs ValidatePoolName(std::string_view name, const FieldPath& path) {
  if (name.empty()) return {Required(path)};
  Errs errs;
  if (name.size() > static_cast<size_t>(kPoolNameMaxLength)) {
    errs.push_back(TooLong(path, kPoolNameMaxLength));
  }
  for (std::string_view part : Split(name, '/')) {
    Extend(errs, ValidateDNS1123Subdomain(part, path));
  }
  return errs;
}

Errs ValidateUID(std::string_view uid, const FieldPath& path) {
  if (auto err = nv::UUIDValidateError(uid)) {
    return {Invalid(path, uid, StrCat("error validating uid: ", *err))};
  }
  if (uid.size() != 36 || ToLower(uid) != uid) {
    return {Invalid(path, uid,
                    "uid must be in RFC 4122 normalized form, "
                    "`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase "
                    "hexadecimal characters")};
  }
  return {};
}

Errs ValidateNodeName(std::string_view name, const FieldPath& path) {
  return InvalidEach(path, name, nv::NameIsDNSSubdomain(name, false));
}

Errs ValidateCIdentifier(std::string_view id, const FieldPath& path) {
  Errs errs;
  if (id.size() > static_cast<size_t>(kDeviceMaxIdLength)) {
    errs.push_back(TooLong(path, kDeviceMaxIdLength));
  }
  Extend(errs, InvalidEach(path, id, nv::IsCIdentifier(id)));
  return errs;
}

Errs ValidateQualifiedName(std::string_view name, const FieldPath& path) {
  Errs errs;
  std::vector<std::string_view> parts = Split(name, '/');
  switch (parts.size()) {
    case 1:
      Extend(errs, ValidateCIdentifier(parts[0], path));
      break;
    case 2:
      if (parts[0].empty()) {
        errs.push_back(Invalid(path, "", "the domain must not be empty"));
      } else {
        Extend(errs, ValidateDriverName(parts[0], path));
      }
      if (parts[1].empty()) {
        errs.push_back(Invalid(path, "", "the name must not be empty"));
      } else {
        Extend(errs, ValidateCIdentifier(parts[1], path));
      }
      break;
    default:
      errs.push_back(
          Invalid(path, name, "must not contain more than one slash"));
  }
  return errs;
}

Errs ValidateFullyQualifiedName(std::string_view name, const FieldPath& path) {
  Errs errs = ValidateQualifiedName(name, path);
  if (name.find('/') == std::string_view::npos) {
    errs.push_back(Invalid(path, name,
                           "a fully qualified name must be a domain and a "
                           "name separated by a slash"));
  }
  return errs;
}

// v1helper.IsExtendedResourceName.
bool IsExtendedResourceName(std::string_view name) {
  bool native = name.find('/') == std::string_view::npos ||
                name.find("kubernetes.io/") != std::string_view::npos;
  if (native || name.substr(0, 9) == "requests.") return false;
  return nv::IsQualifiedName(StrCat("requests.", name)).empty();
}

// ------------------------------------------------ object metadata

using NameFn = std::vector<std::string> (*)(std::string_view, bool);

// schema.FromAPIVersionAndKind(...).Version.
std::string VersionOf(std::string_view api_version) {
  if (api_version.empty() || api_version == "/") return "";
  size_t slashes = std::count(api_version.begin(), api_version.end(), '/');
  if (slashes == 0) return std::string(api_version);
  if (slashes == 1)
    return std::string(api_version.substr(api_version.find('/') + 1));
  return "";
}

std::string GroupOf(std::string_view api_version) {
  size_t slashes = std::count(api_version.begin(), api_version.end(), '/');
  if (slashes != 1) return "";
  return std::string(api_version.substr(0, api_version.find('/')));
}

std::string GoOwnerReference(const OwnerReference& r) {
  return StrCat("v1.OwnerReference{APIVersion:", StrconvQuote(r.api_version),
                ", Kind:", StrconvQuote(r.kind),
                ", Name:", StrconvQuote(r.name), ", UID:", StrconvQuote(r.uid),
                ", Controller:", GoPtr("bool", r.controller.has_value()),
                ", BlockOwnerDeletion:",
                GoPtr("bool", r.block_owner_deletion.has_value()), "}");
}

Errs ValidateOwnerReferences(const std::vector<OwnerReference>& refs,
                             const FieldPath& path) {
  Errs errs;
  std::string first_controller;
  for (const OwnerReference& ref : refs) {
    std::string version = VersionOf(ref.api_version);
    if (version.empty()) {
      errs.push_back(Invalid(path.Child("apiVersion"), ref.api_version,
                             "version must not be empty"));
    }
    if (ref.kind.empty()) {
      errs.push_back(
          Invalid(path.Child("kind"), ref.kind, "must not be empty"));
    }
    if (ref.name.empty()) {
      errs.push_back(
          Invalid(path.Child("name"), ref.name, "must not be empty"));
    }
    if (ref.uid.empty()) {
      errs.push_back(Invalid(path.Child("uid"), ref.uid, "must not be empty"));
    }
    if (GroupOf(ref.api_version).empty() && version == "v1" &&
        ref.kind == "Event") {
      errs.push_back(
          Invalid(path, BadValue::Json(GoOwnerReference(ref)),
                  "/v1, Kind=Event is disallowed from being an owner"));
    }
    if (ref.controller.value_or(false)) {
      std::string name = StrCat(ref.kind, "/", ref.name);
      if (!first_controller.empty()) {
        std::vector<std::string> all;
        for (const auto& r : refs) all.push_back(GoOwnerReference(r));
        errs.push_back(Invalid(
            path,
            BadValue::Json(
                StrCat("[]v1.OwnerReference{", Join(all, ", "), "}")),
            StrCat("Only one reference can have Controller set to true. Found "
                   "\"true\" in references for ",
                   first_controller, " and ", name)));
      } else {
        first_controller = name;
      }
    }
  }
  return errs;
}

Errs ValidateLabels(const std::map<std::string, std::string>& labels,
                    const FieldPath& path) {
  Errs errs;
  for (const auto& [k, v] : labels) {
    Extend(errs, ValidateLabelName(k, path));
    Extend(errs, ValidateLabelValue(v, path));
  }
  return errs;
}

Errs ValidateAnnotations(const std::map<std::string, std::string>& annotations,
                         const FieldPath& path) {
  Errs errs;
  int64_t total = 0;
  for (const auto& [k, v] : annotations) {
    Extend(errs, InvalidEach(path, k, nv::IsQualifiedName(ToLower(k))));
    total += static_cast<int64_t>(k.size() + v.size());
  }
  if (total > kTotalAnnotationSizeLimit) {
    errs.push_back(TooLong(path, kTotalAnnotationSizeLimit));
  }
  return errs;
}

Errs ValidateFinalizers(const std::vector<std::string>& finalizers,
                        const FieldPath& path) {
  Errs errs;
  bool orphan = false, foreground = false;
  for (const std::string& f : finalizers) {
    Extend(errs, InvalidEach(path, f, nv::IsQualifiedName(f)));
    orphan |= f == "orphan";
    foreground |= f == "foregroundDeletion";
  }
  if (orphan && foreground) {
    errs.push_back(Invalid(path, BadValue::Json(GoStrings(finalizers)),
                           "finalizer orphan and foregroundDeletion cannot be "
                           "both set"));
  }
  return errs;
}

Errs ValidateFieldManager(std::string_view manager, const FieldPath& path) {
  Errs errs;
  if (manager.size() > static_cast<size_t>(kFieldManagerMaxLength)) {
    errs.push_back(TooLong(path, kFieldManagerMaxLength));
  }
  for (size_t i = 0; i < manager.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(manager[i]);
    if (c < 0x20 || c == 0x7f) {
      char buf[64];
      std::snprintf(buf, sizeof(buf),
                    "invalid character U+%04X (at position %zu)", c, i);
      errs.push_back(Invalid(path, manager, buf));
    }
  }
  return errs;
}

Errs ValidateManagedFields(const std::vector<ManagedFieldsEntry>& entries,
                           const FieldPath& path) {
  Errs errs;
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    FieldPath p = path.Index(static_cast<int64_t>(i));
    if (e.operation != "Apply" && e.operation != "Update") {
      errs.push_back(Invalid(p.Child("operation"), e.operation,
                             "must be `Apply` or `Update`"));
    }
    if (!e.fields_type.empty() && e.fields_type != "FieldsV1") {
      errs.push_back(
          Invalid(p.Child("fieldsType"), e.fields_type, "must be `FieldsV1`"));
    }
    Extend(errs, ValidateFieldManager(e.manager, p.Child("manager")));
    if (e.subresource.size() > static_cast<size_t>(kMaxSubresourceNameLength)) {
      errs.push_back(
          TooLong(p.Child("subresource"), kMaxSubresourceNameLength));
    }
  }
  return errs;
}

// core validateKubeFinalizerName for every finalizer.
Errs ValidateKubeFinalizers(const std::vector<std::string>& finalizers,
                            const FieldPath& path) {
  static const std::set<std::string> kStandard = {"kubernetes", "orphan",
                                                  "foregroundDeletion"};
  Errs errs;
  for (size_t i = 0; i < finalizers.size(); ++i) {
    const std::string& f = finalizers[i];
    if (f.find('/') == std::string::npos && !kStandard.count(f)) {
      errs.push_back(Invalid(path.Index(static_cast<int64_t>(i)), f,
                             "name is neither a standard finalizer name nor "
                             "is it fully qualified"));
    }
  }
  return errs;
}

Errs ValidateObjectMetaCommon(const ObjectMeta& meta, bool namespaced,
                              const FieldPath& path) {
  Errs errs;
  if (namespaced) {
    if (meta.namespace_.empty()) {
      errs.push_back(Required(path.Child("namespace")));
    } else {
      Extend(errs, InvalidEach(path.Child("namespace"), meta.namespace_,
                               nv::NameIsDNSLabel(meta.namespace_, false)));
    }
  } else if (!meta.namespace_.empty()) {
    errs.push_back(
        Forbidden(path.Child("namespace"), "not allowed on this type"));
  }
  if (meta.generation < 0) {
    errs.push_back(
        Invalid(path.Child("generation"), meta.generation, kIsNegative));
  }
  Extend(errs, ValidateLabels(meta.labels, path.Child("labels")));
  Extend(errs,
         ValidateAnnotations(meta.annotations, path.Child("annotations")));
  Extend(errs, ValidateOwnerReferences(meta.owner_references,
                                       path.Child("ownerReferences")));
  Extend(errs, ValidateFinalizers(meta.finalizers, path.Child("finalizers")));
  Extend(errs, ValidateManagedFields(meta.managed_fields,
                                     path.Child("managedFields")));
  return errs;
}

// How generateName is treated: corevalidation.ValidateObjectMeta validates
// it as a name prefix; ValidateObjectMetaWithOpts (used by the DRA kinds)
// expects the server to have generated a name from it already.
enum class GenerateName { kValidatePrefix, kMustBeResolved };

// corevalidation.ValidateObjectMeta / ValidateObjectMetaWithOpts.
Errs ValidateObjectMeta(const ObjectMeta& meta, bool namespaced, NameFn name_fn,
                        GenerateName generate_name,
                        const FieldPath& path = FieldPath("metadata")) {
  Errs errs;
  if (generate_name == GenerateName::kValidatePrefix) {
    if (!meta.generate_name.empty()) {
      Extend(errs, InvalidEach(path.Child("generateName"), meta.generate_name,
                               name_fn(meta.generate_name, true)));
    }
  } else if (!meta.generate_name.empty() && meta.name.empty()) {
    errs.push_back(InternalError(
        path.Child("name"),
        StrCat("generateName was specified (", StrconvQuote(meta.generate_name),
               "), but no name was generated")));
  }
  if (meta.name.empty()) {
    errs.push_back(
        Required(path.Child("name"), "name or generateName is required"));
  } else {
    Extend(errs, InvalidEach(path.Child("name"), meta.name,
                             name_fn(meta.name, false)));
  }
  Extend(errs, ValidateObjectMetaCommon(meta, namespaced, path));
  Extend(errs,
         ValidateKubeFinalizers(meta.finalizers, path.Child("finalizers")));
  return errs;
}

BadValue OptionalInt(const std::optional<int64_t>& v) {
  return v ? BadValue(*v) : BadValue::Json("null");
}

// corevalidation.ValidateObjectMetaUpdate.
Errs ValidateObjectMetaUpdate(const ObjectMeta& meta, const ObjectMeta& old,
                              const FieldPath& path = FieldPath("metadata")) {
  Errs errs;
  if (old.deletion_timestamp.has_value()) {
    std::set<std::string> old_set(old.finalizers.begin(), old.finalizers.end());
    std::set<std::string> extra;
    for (const auto& f : meta.finalizers) {
      if (!old_set.count(f)) extra.insert(f);
    }
    if (!extra.empty()) {
      errs.push_back(Forbidden(
          path.Child("finalizers"),
          StrCat("no new finalizers can be added if the object is being "
                 "deleted, found new finalizers ",
                 GoStrings({extra.begin(), extra.end()}))));
    }
  }
  if (meta.resource_version.empty()) {
    errs.push_back(Invalid(path.Child("resourceVersion"), meta.resource_version,
                           "must be specified for an update"));
  }
  if (meta.generation < old.generation) {
    errs.push_back(Invalid(path.Child("generation"), meta.generation,
                           "must not be decremented"));
  }
  if (meta.name != old.name) {
    errs.push_back(Invalid(path.Child("name"), meta.name, kFieldImmutable));
  }
  if (meta.namespace_ != old.namespace_) {
    errs.push_back(
        Invalid(path.Child("namespace"), meta.namespace_, kFieldImmutable));
  }
  if (meta.uid != old.uid) {
    errs.push_back(Invalid(path.Child("uid"), meta.uid, kFieldImmutable));
  }
  if (meta.creation_timestamp.value_or("") !=
      old.creation_timestamp.value_or("")) {
    errs.push_back(
        Invalid(path.Child("creationTimestamp"),
                BadValue::Json(GoTimeString(meta.creation_timestamp)),
                kFieldImmutable));
  }
  if (meta.deletion_timestamp != old.deletion_timestamp) {
    errs.push_back(
        Invalid(path.Child("deletionTimestamp"),
                meta.deletion_timestamp
                    ? BadValue::Json(GoTimeString(meta.deletion_timestamp))
                    : BadValue::Json("null"),
                kFieldImmutable));
  }
  if (meta.deletion_grace_period_seconds != old.deletion_grace_period_seconds) {
    errs.push_back(Invalid(path.Child("deletionGracePeriodSeconds"),
                           OptionalInt(meta.deletion_grace_period_seconds),
                           kFieldImmutable));
  }
  Extend(errs, ValidateLabels(meta.labels, path.Child("labels")));
  Extend(errs,
         ValidateAnnotations(meta.annotations, path.Child("annotations")));
  Extend(errs, ValidateOwnerReferences(meta.owner_references,
                                       path.Child("ownerReferences")));
  Extend(errs, ValidateManagedFields(meta.managed_fields,
                                     path.Child("managedFields")));
  Extend(errs,
         ValidateKubeFinalizers(meta.finalizers, path.Child("finalizers")));
  return errs;
}

// corevalidation.ValidateTemplateObjectMeta: only labels and annotations.
Errs ValidateTemplateObjectMeta(const ObjectMeta& meta, const FieldPath& path) {
  Errs errs = ValidateAnnotations(meta.annotations, path.Child("annotations"));
  Extend(errs, ValidateLabels(meta.labels, path.Child("labels")));
  auto forbid = [&](bool set, std::string_view name) {
    if (set) errs.push_back(Forbidden(path.Child(name), "cannot be set"));
  };
  // Field order of metav1.ObjectMeta, names lower-cased on the first rune.
  forbid(!meta.name.empty(), "name");
  forbid(!meta.generate_name.empty(), "generateName");
  forbid(!meta.namespace_.empty(), "namespace");
  forbid(!meta.self_link.empty(), "selfLink");
  forbid(!meta.uid.empty(), "uID");
  forbid(!meta.resource_version.empty(), "resourceVersion");
  forbid(meta.generation != 0, "generation");
  forbid(
      meta.creation_timestamp.has_value() && !meta.creation_timestamp->empty(),
      "creationTimestamp");
  forbid(meta.deletion_timestamp.has_value(), "deletionTimestamp");
  forbid(meta.deletion_grace_period_seconds.has_value(),
         "deletionGracePeriodSeconds");
  forbid(!meta.owner_references.empty(), "ownerReferences");
  forbid(!meta.finalizers.empty(), "finalizers");
  forbid(!meta.managed_fields.empty(), "managedFields");
  return errs;
}

// ------------------------------------------------ conditions, node selectors

Errs ValidateConditions(const std::vector<Condition>& conditions,
                        const FieldPath& path) {
  Errs errs;
  std::set<std::string> types;
  for (size_t i = 0; i < conditions.size(); ++i) {
    const Condition& c = conditions[i];
    FieldPath p = path.Index(static_cast<int64_t>(i));
    if (!types.insert(c.type).second) {
      errs.push_back(Duplicate(p.Child("type"), c.type));
    }
    Extend(errs, ValidateLabelName(c.type, p.Child("type")));
    if (c.status != "True" && c.status != "False" && c.status != "Unknown") {
      errs.push_back(NotSupported(p.Child("status"), c.status,
                                  {"False", "True", "Unknown"}));
    }
    if (c.observed_generation < 0) {
      errs.push_back(Invalid(p.Child("observedGeneration"),
                             c.observed_generation,
                             "must be greater than or equal to zero"));
    }
    if (!c.last_transition_time.has_value() ||
        c.last_transition_time->empty()) {
      errs.push_back(Required(p.Child("lastTransitionTime"), "must be set"));
    }
    if (c.reason.empty()) {
      errs.push_back(Required(p.Child("reason"), "must be set"));
    } else {
      Extend(errs, InvalidEach(p.Child("reason"), c.reason,
                               nv::IsConditionReason(c.reason)));
      if (c.reason.size() > static_cast<size_t>(kMaxConditionReasonLength)) {
        errs.push_back(TooLong(p.Child("reason"), kMaxConditionReasonLength));
      }
    }
    if (c.message.size() > static_cast<size_t>(kMaxConditionMessageLength)) {
      errs.push_back(TooLong(p.Child("message"), kMaxConditionMessageLength));
    }
  }
  return errs;
}

Errs ValidateNodeSelectorRequirement(const NodeSelectorRequirement& rq,
                                     const FieldPath& path) {
  Errs errs;
  const std::string& op = rq.operator_;
  if (op == "In" || op == "NotIn") {
    if (rq.values.empty()) {
      errs.push_back(Required(path.Child("values"),
                              "must be specified when `operator` is 'In' or "
                              "'NotIn'"));
    }
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (!rq.values.empty()) {
      errs.push_back(Forbidden(path.Child("values"),
                               "may not be specified when `operator` is "
                               "'Exists' or 'DoesNotExist'"));
    }
  } else if (op == "Gt" || op == "Lt") {
    if (rq.values.size() != 1) {
      errs.push_back(Required(path.Child("values"),
                              "must be specified single value when "
                              "`operator` is 'Lt' or 'Gt'"));
    }
  } else {
    errs.push_back(
        Invalid(path.Child("operator"), op, "not a valid selector operator"));
  }
  Extend(errs, ValidateLabelName(rq.key, path.Child("key")));
  for (size_t i = 0; i < rq.values.size(); ++i) {
    Extend(errs, ValidateLabelValue(
                     rq.values[i],
                     path.Child("values").Index(static_cast<int64_t>(i))));
  }
  return errs;
}

Errs ValidateNodeFieldSelectorRequirement(const NodeSelectorRequirement& rq,
                                          const FieldPath& path) {
  Errs errs;
  if (rq.operator_ == "In" || rq.operator_ == "NotIn") {
    if (rq.values.size() != 1) {
      errs.push_back(Required(path.Child("values"),
                              "must be only one value when `operator` is 'In' "
                              "or 'NotIn' for node field selector"));
    }
  } else {
    errs.push_back(Invalid(path.Child("operator"), rq.operator_,
                           "not a valid selector operator"));
  }
  if (rq.key != "metadata.name") {
    errs.push_back(
        Invalid(path.Child("key"), rq.key, "not a valid field selector key"));
  } else {
    for (size_t i = 0; i < rq.values.size(); ++i) {
      Extend(errs, ValidateNodeName(
                       rq.values[i],
                       path.Child("values").Index(static_cast<int64_t>(i))));
    }
  }
  return errs;
}

Errs ValidateNodeSelector(const NodeSelector& ns, const FieldPath& path) {
  FieldPath terms_path = path.Child("nodeSelectorTerms");
  if (ns.node_selector_terms.empty()) {
    return {Required(terms_path, "must have at least one node selector term")};
  }
  Errs errs;
  for (size_t i = 0; i < ns.node_selector_terms.size(); ++i) {
    const NodeSelectorTerm& term = ns.node_selector_terms[i];
    FieldPath tp = terms_path.Index(static_cast<int64_t>(i));
    for (size_t j = 0; j < term.match_expressions.size(); ++j) {
      Extend(errs,
             ValidateNodeSelectorRequirement(
                 term.match_expressions[j],
                 tp.Child("matchExpressions").Index(static_cast<int64_t>(j))));
    }
    for (size_t j = 0; j < term.match_fields.size(); ++j) {
      Extend(errs, ValidateNodeFieldSelectorRequirement(
                       term.match_fields[j],
                       tp.Child("matchFields").Index(static_cast<int64_t>(j))));
    }
  }
  return errs;
}

// ------------------------------------------------ shared DRA pieces

struct Context {
  const ValidationOptions& options;
  bool stored = false;
};

Errs ValidateCELExpression(const std::string& expression, const FieldPath& path,
                           const Context& ctx) {
  // A stored expression was valid when it was stored; it is never
  // re-validated.
  if (ctx.stored) return {};
  if (expression.size() >
      static_cast<size_t>(kCELSelectorExpressionMaxLength)) {
    return {TooLong(path, kCELSelectorExpressionMaxLength)};
  }
  if (ctx.options.compile_cel) {
    absl::Status status = ctx.options.compile_cel(expression);
    if (status.code() == absl::StatusCode::kResourceExhausted) {
      return {Forbidden(path, "too complex, exceeds cost limit")};
    }
    if (!status.ok()) {
      return {Invalid(
          path, expression,
          std::string(status.message().data(), status.message().size()))};
    }
  }
  return {};
}

Errs ValidateSelector(const DeviceSelector& selector, const FieldPath& path,
                      const Context& ctx) {
  if (!selector.cel.has_value()) return {Required(path.Child("cel"))};
  return ValidateCELExpression(selector.cel->expression,
                               path.Child("cel").Child("expression"), ctx);
}

Errs ValidateSelectorSlice(const std::vector<DeviceSelector>& selectors,
                           const FieldPath& path, const Context& ctx) {
  return ValidateSlice(
      selectors, kDeviceSelectorsMaxSize,
      [&](const DeviceSelector& s, const FieldPath& p) {
        return ValidateSelector(s, p, ctx);
      },
      path);
}

// validateRawExtension: `json` stands for the raw bytes (null == empty).
Errs ValidateRawExtension(const Json& json, const FieldPath& path, bool stored,
                          int max_length) {
  if (json.is_null()) return {Required(path)};
  if (!stored && DumpJson(json).size() > static_cast<size_t>(max_length)) {
    return {TooLong(path, max_length)};
  }
  if (!json.is_object()) {
    return {Invalid(path, "<value omitted>", "must be a valid JSON object")};
  }
  return {};
}

Errs ValidateOpaqueConfiguration(const OpaqueDeviceConfiguration& config,
                                 const FieldPath& path, bool stored) {
  Errs errs = ValidateDriverName(config.driver, path.Child("driver"));
  Extend(errs, ValidateRawExtension(config.parameters, path.Child("parameters"),
                                    stored, kOpaqueParametersMaxLength));
  return errs;
}

Errs ValidateDeviceConfiguration(
    const std::optional<OpaqueDeviceConfiguration>& opaque,
    const FieldPath& path, bool stored) {
  if (!opaque.has_value()) return {Required(path.Child("opaque"))};
  return ValidateOpaqueConfiguration(*opaque, path.Child("opaque"), stored);
}

const std::vector<std::string>& TaintEffects() {
  static const std::vector<std::string> kEffects = {"NoExecute", "NoSchedule",
                                                    "None"};
  return kEffects;
}
bool IsTaintEffect(const std::string& e) {
  return e == "NoExecute" || e == "NoSchedule" || e == "None";
}

Errs ValidateDeviceTaint(const DeviceTaint& taint, const DeviceTaint* old,
                         const FieldPath& path) {
  Errs errs = ValidateLabelName(taint.key, path.Child("key"));
  if (!taint.value.empty()) {
    Extend(errs, ValidateLabelValue(taint.value, path.Child("value")));
  }
  if (old == nullptr || old->effect != taint.effect) {
    if (taint.effect.empty()) {
      errs.push_back(Required(path.Child("effect")));
    } else if (!IsTaintEffect(taint.effect)) {
      errs.push_back(
          NotSupported(path.Child("effect"), taint.effect, TaintEffects()));
    }
  }
  return errs;
}

Errs ValidateDeviceToleration(const DeviceToleration& t,
                              const FieldPath& path) {
  Errs errs;
  if (!t.key.empty()) Extend(errs, ValidateLabelName(t.key, path.Child("key")));
  if (t.operator_ == "Exists") {
    if (!t.value.empty()) {
      errs.push_back(Invalid(path.Child("value"), t.value,
                             "must be empty for operator `Exists`"));
    }
  } else if (t.operator_ == "Equal") {
    Extend(errs, ValidateLabelValue(t.value, path.Child("value")));
  } else if (t.operator_.empty()) {
    errs.push_back(Required(path.Child("operator")));
  } else {
    errs.push_back(
        NotSupported(path.Child("operator"), t.operator_, {"Equal", "Exists"}));
  }
  if (!t.effect.empty() && !IsTaintEffect(t.effect)) {
    errs.push_back(
        NotSupported(path.Child("effect"), t.effect, TaintEffects()));
  }
  return errs;
}

Errs ValidateTolerations(const std::vector<DeviceToleration>& tolerations,
                         const FieldPath& path) {
  Errs errs;
  for (size_t i = 0; i < tolerations.size(); ++i) {
    Extend(errs, ValidateDeviceToleration(tolerations[i],
                                          path.Index(static_cast<int64_t>(i))));
  }
  return errs;
}

Errs ValidateDeviceBindingParameters(const std::vector<std::string>& conditions,
                                     const std::vector<std::string>& failures,
                                     const FieldPath& path) {
  FieldPath cp = path.Child("bindingConditions");
  FieldPath fp = path.Child("bindingFailureConditions");
  auto label_name = [](const std::string& s, const FieldPath& p) {
    return ValidateLabelName(s, p);
  };
  Errs errs =
      ValidateSlice(conditions, kBindingConditionsMaxSize, label_name, cp);
  Extend(errs, ValidateSlice(failures, kBindingFailureConditionsMaxSize,
                             label_name, fp));
  std::set<std::string> seen;
  for (size_t i = 0; i < conditions.size(); ++i) {
    if (!seen.insert(conditions[i]).second) {
      errs.push_back(
          Duplicate(cp.Index(static_cast<int64_t>(i)), conditions[i]));
    }
  }
  std::set<std::string> all_conditions(conditions.begin(), conditions.end());
  std::set<std::string> seen_failures;
  for (size_t i = 0; i < failures.size(); ++i) {
    FieldPath p = fp.Index(static_cast<int64_t>(i));
    if (!seen_failures.insert(failures[i]).second) {
      errs.push_back(Duplicate(p, failures[i]));
    }
    if (all_conditions.count(failures[i])) {
      errs.push_back(Invalid(p, failures[i],
                             "bindingFailureConditions must not overlap with "
                             "bindingConditions"));
    }
  }
  if (conditions.empty() && !failures.empty()) {
    errs.push_back(Invalid(cp, BadValue::Json(GoStrings(conditions)),
                           "bindingConditions are required to use "
                           "bindingFailureConditions"));
  }
  if (failures.empty() && !conditions.empty()) {
    errs.push_back(Invalid(fp, BadValue::Json(GoStrings(failures)),
                           "bindingFailureConditions are required to use "
                           "bindingConditions"));
  }
  return errs;
}

// ------------------------------------------------ ResourceClaim spec

// Names of requests: request -> its subrequests (nullopt: no firstAvailable).
class RequestNames {
 public:
  explicit RequestNames(const DeviceClaim& claim) {
    for (const DeviceRequest& r : claim.requests) {
      if (r.first_available.empty()) {
        names_[r.name] = std::nullopt;
        continue;
      }
      std::set<std::string> subs;
      for (const DeviceSubRequest& s : r.first_available) subs.insert(s.name);
      names_[r.name] = std::move(subs);
    }
  }
  bool Has(std::string_view name) const {
    std::vector<std::string_view> segments = Split(name, '/');
    if (segments.size() > 2) return false;
    auto it = names_.find(std::string(segments[0]));
    if (it == names_.end()) return false;
    if (segments.size() == 1) return true;
    return it->second.has_value() &&
           it->second->count(std::string(segments[1])) > 0;
  }

 private:
  std::map<std::string, std::optional<std::set<std::string>>> names_;
};

constexpr std::string_view kRequestRefMessage =
    "must be the name of a request in the claim or the name of a request and "
    "a subrequest separated by '/'";

Errs ValidateRequestNameRef(const std::string& name, const FieldPath& path,
                            const RequestNames& names) {
  std::vector<std::string_view> segments = Split(name, '/');
  if (segments.size() > 2) return {Invalid(path, name, kRequestRefMessage)};
  Errs errs;
  for (std::string_view s : segments) {
    Extend(errs, ValidateDNS1123Label(s, path));
  }
  if (!names.Has(name)) errs.push_back(Invalid(path, name, kRequestRefMessage));
  return errs;
}

Errs ValidateRequestNameRefs(const std::vector<std::string>& refs,
                             const FieldPath& path, const RequestNames& names) {
  return ValidateSet(
      refs, kDeviceRequestsMaxSize,
      [&](const std::string& n, const FieldPath& p) {
        return ValidateRequestNameRef(n, p, names);
      },
      StringKey, path);
}

Errs ValidateDeviceClassName(const std::string& name, const FieldPath& path) {
  if (name.empty()) return {Required(path)};
  return ValidateDNS1123Subdomain(name, path);
}

Errs ValidateDeviceAllocationMode(const std::string& mode, int64_t count,
                                  const FieldPath& mode_path,
                                  const FieldPath& count_path) {
  if (mode == kDeviceAllocationModeAll) {
    if (count != 0) {
      return {Invalid(count_path, count,
                      "must not be specified when allocationMode is 'All'")};
    }
    return {};
  }
  if (mode == kDeviceAllocationModeExactCount) {
    if (count <= 0)
      return {Invalid(count_path, count, "must be greater than zero")};
    return {};
  }
  return {NotSupported(mode_path, mode, {"All", "ExactCount"})};
}

// The fields ExactDeviceRequest and DeviceSubRequest share, validated in
// upstream's order.
template <class Request>
Errs ValidateRequestCommon(const Request& r, const FieldPath& path,
                           const Context& ctx) {
  Errs errs = ValidateDeviceClassName(r.device_class_name,
                                      path.Child("deviceClassName"));
  Extend(errs,
         ValidateSelectorSlice(r.selectors, path.Child("selectors"), ctx));
  Extend(errs, ValidateDeviceAllocationMode(r.allocation_mode, r.count,
                                            path.Child("allocationMode"),
                                            path.Child("count")));
  Extend(errs, ValidateTolerations(r.tolerations, path.Child("tolerations")));
  return errs;
}

Errs ValidateExactDeviceRequest(const ExactDeviceRequest& r,
                                const FieldPath& path, const Context& ctx) {
  return ValidateRequestCommon(r, path, ctx);
}

Errs ValidateDeviceSubRequest(const DeviceSubRequest& r, const FieldPath& path,
                              const Context& ctx) {
  Errs errs = ValidateDNS1123Label(r.name, path.Child("name"));
  Extend(errs, ValidateRequestCommon(r, path, ctx));
  return errs;
}

Errs ValidateDeviceRequest(const DeviceRequest& r, const FieldPath& path,
                           const Context& ctx) {
  Errs errs = ValidateDNS1123Label(r.name, path.Child("name"));
  bool has_first_available = !r.first_available.empty();
  bool has_exactly = r.exactly.has_value();
  if (!has_first_available && !has_exactly) {
    errs.push_back(Required(
        path, "exactly one of `exactly` or `firstAvailable` is required"));
  } else if (has_first_available && has_exactly) {
    errs.push_back(Invalid(path, BadValue::Json("null"),
                           "exactly one of `exactly` or `firstAvailable` is "
                           "required, but multiple fields are set"));
  } else if (has_first_available) {
    Extend(errs,
           ValidateSet(
               r.first_available, kFirstAvailableDeviceRequestMaxSize,
               [&](const DeviceSubRequest& s, const FieldPath& p) {
                 return ValidateDeviceSubRequest(s, p, ctx);
               },
               [](const DeviceSubRequest& s) { return StringKey(s.name); },
               path.Child("firstAvailable")));
  } else {
    Extend(errs,
           ValidateExactDeviceRequest(*r.exactly, path.Child("exactly"), ctx));
  }
  return errs;
}

Errs ValidateDeviceConstraint(const DeviceConstraint& c, const FieldPath& path,
                              const RequestNames& names, const Context& ctx) {
  Errs errs =
      ValidateRequestNameRefs(c.requests, path.Child("requests"), names);
  if (c.match_attribute.has_value()) {
    Extend(errs, ValidateFullyQualifiedName(*c.match_attribute,
                                            path.Child("matchAttribute")));
  } else if (c.distinct_attribute.has_value()) {
    Extend(errs, ValidateFullyQualifiedName(*c.distinct_attribute,
                                            path.Child("distinctAttribute")));
  } else if (ctx.options.features.consumable_capacity) {
    errs.push_back(Required(path,
                            "exactly one of \"matchAttribute\" or "
                            "\"distinctAttribute\" is required, but multiple "
                            "fields are set"));
  } else {
    errs.push_back(Required(path.Child("matchAttribute")));
  }
  return errs;
}

Errs ValidateDeviceClaim(const DeviceClaim& claim, const FieldPath& path,
                         const Context& ctx) {
  RequestNames names(claim);
  Errs errs = ValidateSet(
      claim.requests, kDeviceRequestsMaxSize,
      [&](const DeviceRequest& r, const FieldPath& p) {
        return ValidateDeviceRequest(r, p, ctx);
      },
      [](const DeviceRequest& r) { return StringKey(r.name); },
      path.Child("requests"));
  Extend(errs, ValidateSlice(
                   claim.constraints, kDeviceConstraintsMaxSize,
                   [&](const DeviceConstraint& c, const FieldPath& p) {
                     return ValidateDeviceConstraint(c, p, names, ctx);
                   },
                   path.Child("constraints")));
  Extend(errs,
         ValidateSlice(
             claim.config, kDeviceConfigMaxSize,
             [&](const DeviceClaimConfiguration& c, const FieldPath& p) {
               Errs e = ValidateRequestNameRefs(c.requests, p.Child("requests"),
                                                names);
               Extend(e, ValidateDeviceConfiguration(c.opaque, p, ctx.stored));
               return e;
             },
             path.Child("config")));
  return errs;
}

Errs ValidateResourceClaimSpec(const ResourceClaimSpec& spec,
                               const FieldPath& path, const Context& ctx) {
  return ValidateDeviceClaim(spec.devices, path.Child("devices"), ctx);
}

// ------------------------------------------------ ResourceClaim status

// structured.SharedDeviceID(...).String().
std::string SharedDeviceID(const std::string& driver, const std::string& pool,
                           const std::string& device,
                           const std::optional<std::string>& share_id) {
  std::string id = StrCat(driver, "/", pool, "/", device);
  if (share_id.has_value() && !share_id->empty()) id += "/" + *share_id;
  return id;
}

Errs ValidateResourceClaimUserReference(const ResourceClaimConsumerReference& r,
                                        const FieldPath& path) {
  Errs errs;
  if (r.resource.empty()) errs.push_back(Required(path.Child("resource")));
  if (r.name.empty()) errs.push_back(Required(path.Child("name")));
  if (r.uid.empty()) errs.push_back(Required(path.Child("uid")));
  return errs;
}

Errs ValidateNetworkDeviceData(const std::optional<NetworkDeviceData>& data,
                               const FieldPath& path) {
  if (!data.has_value()) return {};
  Errs errs;
  if (data->interface_name.size() >
      static_cast<size_t>(kNetworkDeviceDataInterfaceNameMaxLength)) {
    errs.push_back(TooLong(path.Child("interfaceName"),
                           kNetworkDeviceDataInterfaceNameMaxLength));
  }
  if (data->hardware_address.size() >
      static_cast<size_t>(kNetworkDeviceDataHardwareAddressMaxLength)) {
    errs.push_back(TooLong(path.Child("hardwareAddress"),
                           kNetworkDeviceDataHardwareAddressMaxLength));
  }
  Extend(errs, ValidateSet(
                   data->ips, kNetworkDeviceDataMaxIPs,
                   [](const std::string& ip, const FieldPath& p) {
                     return InvalidEach(p, ip, nv::IsValidInterfaceAddress(ip));
                   },
                   StringKey, path.Child("ips")));
  return errs;
}

Errs ValidateDeviceStatus(const AllocatedDeviceStatus& d, const FieldPath& path,
                          const std::set<std::string>& allocated) {
  Errs errs = ValidateDriverName(d.driver, path.Child("driver"));
  Extend(errs, ValidatePoolName(d.pool, path.Child("pool")));
  Extend(errs, ValidateDNS1123Label(d.device, path.Child("device")));
  if (d.share_id.has_value()) {
    Extend(errs, ValidateUID(*d.share_id, path.Child("shareID")));
  }
  std::string id = SharedDeviceID(d.driver, d.pool, d.device, d.share_id);
  if (!allocated.count(id)) {
    errs.push_back(Invalid(path, BadValue::Json(id),
                           "must be an allocated device in the claim"));
  }
  if (d.conditions.size() >
      static_cast<size_t>(kAllocatedDeviceStatusMaxConditions)) {
    errs.push_back(TooMany(path.Child("conditions"),
                           static_cast<int64_t>(d.conditions.size()),
                           kAllocatedDeviceStatusMaxConditions));
  }
  Extend(errs, ValidateConditions(d.conditions, path.Child("conditions")));
  if (d.data.has_value() && !d.data->is_null()) {
    Extend(errs, ValidateRawExtension(*d.data, path.Child("data"), false,
                                      kAllocatedDeviceStatusDataMaxLength));
  }
  Extend(errs,
         ValidateNetworkDeviceData(d.network_data, path.Child("networkData")));
  return errs;
}

Errs ValidateAllocationConfigSource(const std::string& source,
                                    const FieldPath& path) {
  if (source.empty()) return {Required(path)};
  if (source == "FromClaim" || source == "FromClass") return {};
  return {NotSupported(path, source, {"FromClaim", "FromClass"})};
}

Errs ValidateDeviceRequestAllocationResult(
    const DeviceRequestAllocationResult& r, const FieldPath& path,
    const RequestNames& names) {
  Errs errs = ValidateRequestNameRef(r.request, path.Child("request"), names);
  Extend(errs, ValidateDriverName(r.driver, path.Child("driver")));
  Extend(errs, ValidatePoolName(r.pool, path.Child("pool")));
  Extend(errs, ValidateDNS1123Label(r.device, path.Child("device")));
  Extend(errs, ValidateDeviceBindingParameters(
                   r.binding_conditions, r.binding_failure_conditions, path));
  Extend(errs, ValidateTolerations(r.tolerations, path.Child("tolerations")));
  if (r.share_id.has_value()) {
    Extend(errs, ValidateUID(*r.share_id, path.Child("shareID")));
  }
  return errs;
}

Errs ValidateAllocationResult(const AllocationResult& allocation,
                              const FieldPath& path,
                              const RequestNames& names) {
  FieldPath dp = path.Child("devices");
  Errs errs = ValidateSlice(
      allocation.devices.results, kAllocationResultsMaxSize,
      [&](const DeviceRequestAllocationResult& r, const FieldPath& p) {
        return ValidateDeviceRequestAllocationResult(r, p, names);
      },
      dp.Child("results"));
  Extend(errs,
         ValidateSlice(
             allocation.devices.config, kAllocationConfigMaxSize,
             [&](const DeviceAllocationConfiguration& c, const FieldPath& p) {
               Errs e =
                   ValidateAllocationConfigSource(c.source, p.Child("source"));
               Extend(e, ValidateRequestNameRefs(c.requests,
                                                 p.Child("requests"), names));
               Extend(e, ValidateDeviceConfiguration(c.opaque, p, false));
               return e;
             },
             dp.Child("config")));
  if (allocation.node_selector.has_value()) {
    Extend(errs, ValidateNodeSelector(*allocation.node_selector,
                                      path.Child("nodeSelector")));
  }
  return errs;
}

std::string ConsumerKey(const ResourceClaimConsumerReference& r) {
  return StrCat(r.api_group, "\x1f", r.resource, "\x1f", r.name, "\x1f", r.uid);
}

Errs ValidateResourceClaimStatusUpdate(const ResourceClaim& claim,
                                       const ResourceClaim& old) {
  const ResourceClaimStatus& status = claim.status;
  const ResourceClaimStatus& old_status = old.status;
  FieldPath path("status");
  RequestNames names(claim.spec.devices);
  Errs errs = ValidateSet(
      status.reserved_for, kResourceClaimReservedForMaxSize,
      ValidateResourceClaimUserReference,
      [](const ResourceClaimConsumerReference& r) { return StringKey(r.uid); },
      path.Child("reservedFor"));

  std::set<std::string> allocated;
  if (status.allocation.has_value()) {
    for (const auto& r : status.allocation->devices.results) {
      allocated.insert(SharedDeviceID(r.driver, r.pool, r.device, r.share_id));
    }
  }
  Extend(errs, ValidateSet(
                   status.devices, -1,
                   [&](const AllocatedDeviceStatus& d, const FieldPath& p) {
                     return ValidateDeviceStatus(d, p, allocated);
                   },
                   [](const AllocatedDeviceStatus& d) {
                     std::string id =
                         SharedDeviceID(d.driver, d.pool, d.device, d.share_id);
                     return SetKey{id, BadValue::Json(id)};
                   },
                   path.Child("devices")));

  if (!status.reserved_for.empty()) {
    if (!status.allocation.has_value()) {
      errs.push_back(
          Forbidden(path.Child("reservedFor"),
                    "may not be specified when `allocated` is not set"));
    } else if (claim.metadata.deletion_timestamp.has_value()) {
      std::set<std::string> old_set;
      for (const auto& r : old_status.reserved_for)
        old_set.insert(ConsumerKey(r));
      bool added = false;
      for (const auto& r : status.reserved_for) {
        if (!old_set.count(ConsumerKey(r))) added = true;
      }
      if (added) {
        errs.push_back(
            Forbidden(path.Child("reservedFor"),
                      "new entries may not be added while "
                      "`deallocationRequested` or `deletionTimestamp` "
                      "are set"));
      }
    }
  }

  if (old_status.allocation.has_value() && status.allocation.has_value()) {
    if (!Eq(*status.allocation, *old_status.allocation)) {
      errs.push_back(Invalid(path.Child("allocation"),
                             RenderJson(*status.allocation), kFieldImmutable));
    }
  } else if (status.allocation.has_value()) {
    Extend(errs, ValidateAllocationResult(*status.allocation,
                                          path.Child("allocation"), names));
  }
  return errs;
}

// ------------------------------------------------ DeviceClass

Errs ValidateDeviceClassSpec(const DeviceClassSpec& spec,
                             const DeviceClassSpec* old, const FieldPath& path,
                             const ValidationOptions& options) {
  // Unchanged selectors and config count as stored: their CEL expressions
  // and parameter sizes are not checked again.
  Context selectors_ctx{options,
                        old != nullptr && Eq(spec.selectors, old->selectors)};
  Errs errs = ValidateSlice(
      spec.selectors, kDeviceSelectorsMaxSize,
      [&](const DeviceSelector& s, const FieldPath& p) {
        return ValidateSelector(s, p, selectors_ctx);
      },
      path.Child("selectors"));
  bool config_stored = old != nullptr && Eq(spec.config, old->config);
  Extend(errs, ValidateSlice(
                   spec.config, kDeviceConfigMaxSize,
                   [&](const DeviceClassConfiguration& c, const FieldPath& p) {
                     return ValidateDeviceConfiguration(c.opaque, p,
                                                        config_stored);
                   },
                   path.Child("config")));
  if (spec.extended_resource_name.has_value() &&
      !IsExtendedResourceName(*spec.extended_resource_name)) {
    errs.push_back(Invalid(path.Child("extendedResourceName"),
                           *spec.extended_resource_name,
                           "must be a valid extended resource name"));
  }
  return errs;
}

// ------------------------------------------------ ResourceSlice

bool HaveDeviceTaints(const ResourceSliceSpec& spec) {
  for (const auto& d : spec.devices) {
    if (!d.rare->taints.empty()) return true;
  }
  return false;
}
bool HaveConsumesCounters(const ResourceSliceSpec& spec) {
  for (const auto& d : spec.devices) {
    if (!d.rare->consumes_counters.empty()) return true;
  }
  return false;
}
bool HaveListAttributes(const ResourceSliceSpec& spec) {
  for (const auto& d : spec.devices) {
    for (const auto& [name, a] : d.attributes) {
      if (!a.bools().empty() || !a.ints().empty() || !a.strings().empty() ||
          !a.versions().empty()) {
        return true;
      }
    }
  }
  return false;
}

const Device* LookupDevice(const ResourceSliceSpec* spec,
                           const std::string& name) {
  if (spec == nullptr) return nullptr;
  for (const Device& d : spec->devices) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

int64_t NumAttributeValues(const Device& device) {
  int64_t n = 0;
  for (const auto& [name, a] : device.attributes) {
    size_t list = a.bools().size() + a.ints().size() + a.strings().size() +
                  a.versions().size();
    n += list == 0 ? 1 : static_cast<int64_t>(list);
  }
  return n;
}

Errs ValidateAttributeStringValue(const std::string& v, const FieldPath& path) {
  if (v.size() > static_cast<size_t>(kDeviceAttributeMaxValueLength)) {
    return {TooLong(path, kDeviceAttributeMaxValueLength)};
  }
  return {};
}

Errs ValidateAttributeVersionValue(const std::string& v,
                                   const FieldPath& path) {
  Errs errs;
  if (!nv::IsSemver(v)) {
    errs.push_back(Invalid(
        path, v, "must be a string compatible with semver.org spec 2.0.0"));
  }
  Extend(errs, ValidateAttributeStringValue(v, path));
  return errs;
}

Errs ValidateDeviceAttribute(const DeviceAttribute& attribute,
                             const FieldPath& path) {
  const DeviceAttributeFields a = attribute.ToFields();
  Errs errs;
  int fields = 0;
  if (a.bool_value.has_value()) ++fields;
  if (a.int_value.has_value()) ++fields;
  if (a.string_value.has_value()) {
    ++fields;
    Extend(errs,
           ValidateAttributeStringValue(*a.string_value, path.Child("string")));
  }
  if (a.version_value.has_value()) {
    ++fields;
    Extend(errs, ValidateAttributeVersionValue(*a.version_value,
                                               path.Child("version")));
  }
  // An empty list is not distinguishable from an unset one here; both count
  // as unset.
  if (!a.bools.empty()) ++fields;
  if (!a.ints.empty()) ++fields;
  if (!a.strings.empty()) {
    ++fields;
    for (size_t i = 0; i < a.strings.size(); ++i) {
      Extend(errs, ValidateAttributeStringValue(
                       a.strings[i],
                       path.Child("strings").Index(static_cast<int64_t>(i))));
    }
  }
  if (!a.versions.empty()) {
    ++fields;
    for (size_t i = 0; i < a.versions.size(); ++i) {
      Extend(errs, ValidateAttributeVersionValue(
                       a.versions[i],
                       path.Child("versions").Index(static_cast<int64_t>(i))));
    }
  }
  if (fields == 0) {
    errs.push_back(Invalid(path, "", "exactly one value must be specified"));
  } else if (fields > 1) {
    errs.push_back(Invalid(path, BadValue::Json(GoDeviceAttribute(a)),
                           "exactly one value must be specified"));
  }
  return errs;
}

// Renders a quantity the way inf.Dec prints it (plain decimal) where that is
// cheap to derive; used for duplicate validValues.
std::string DecimalString(const Quantity& q) {
  if (auto i = q.AsInt64()) return std::to_string(*i);
  int64_t milli = q.MilliValue();
  if (Quantity::FromMilli(milli).Compare(q) == 0) {
    bool neg = milli < 0;
    uint64_t m =
        neg ? 0 - static_cast<uint64_t>(milli) : static_cast<uint64_t>(milli);
    std::string frac = std::to_string(m % 1000);
    frac.insert(0, 3 - frac.size(), '0');
    while (!frac.empty() && frac.back() == '0') frac.pop_back();
    return StrCat(neg ? "-" : "", m / 1000, frac.empty() ? "" : ".", frac);
  }
  return q.ToString();
}

Errs ValidateRequestPolicyValidValues(const Quantity& def, const Quantity& cap,
                                      const std::vector<Quantity>& values,
                                      const FieldPath& path) {
  Errs errs;
  for (size_t i = 0; i + 1 < values.size(); ++i) {
    if (values[i].Compare(values[i + 1]) > 0) {
      errs.push_back(Invalid(path.Index(static_cast<int64_t>(i + 1)),
                             values[i + 1].ToString(),
                             "values must be sorted in ascending order"));
    }
  }
  bool found_default = false;
  // DRAFractionalCapacityRange (on by default in 1.37): options are
  // compared as exact decimals.
  std::vector<const Quantity*> seen;
  Extend(errs,
         ValidateSet(
             values, kCapacityPolicyValidValuesMaxLength,
             [&](const Quantity& option, const FieldPath& p) {
               Errs e;
               if (option.Compare(cap) > 0) {
                 e.push_back(Invalid(p, option.ToString(),
                                     StrCat("option is larger than capacity "
                                            "value: ",
                                            cap.ToString())));
               }
               if (option.Compare(def) == 0) found_default = true;
               return e;
             },
             [&](const Quantity& q) {
               // Equal values share the id of their first spelling.
               for (const Quantity* s : seen) {
                 if (s->Compare(q) == 0) {
                   return SetKey{DecimalString(*s), BadValue(DecimalString(q))};
                 }
               }
               seen.push_back(&q);
               return SetKey{DecimalString(q), BadValue(DecimalString(q))};
             },
             path));
  if (!found_default) {
    errs.push_back(Invalid(path, def.ToString(),
                           "default value is not valid according to the "
                           "requestPolicy"));
  }
  return errs;
}

Errs ValidateRequestPolicyRangeStep(const Quantity& value, const Quantity& min,
                                    const Quantity& step, bool use_milli,
                                    const FieldPath& path) {
  int64_t step_val = use_milli ? step.MilliValue() : step.Value();
  int64_t min_val = use_milli ? min.MilliValue() : min.Value();
  int64_t val = use_milli ? value.MilliValue() : value.Value();
  if (step_val == 0) return {};
  if ((val - min_val) % step_val != 0) {
    return {Invalid(path, value.ToString(),
                    StrCat("value is not a multiple of a given step (",
                           step.ToString(), ") from (", min.ToString(), ")"))};
  }
  return {};
}

Errs ValidateRequestPolicyRange(const Quantity& def, const Quantity& cap,
                                const CapacityRequestPolicyRange& range,
                                const FieldPath& path) {
  Errs errs;
  const Quantity& min = range.min;
  if (min.Compare(cap) > 0) {
    errs.push_back(
        Invalid(path.Child("min"), min.ToString(),
                StrCat("min is larger than capacity value: ", cap.ToString())));
  }
  if (def.Compare(min) < 0) {
    errs.push_back(
        Invalid(path.Child("default"), def.ToString(),
                StrCat("default is less than min: ", min.ToString())));
  }
  if (range.max.has_value()) {
    const Quantity& max = *range.max;
    if (min.Compare(max) > 0) {
      errs.push_back(
          Invalid(path.Child("max"), min.ToString(),
                  StrCat("min is larger than max: ", max.ToString())));
    }
    if (max.Compare(cap) > 0) {
      errs.push_back(Invalid(
          path.Child("max"), max.ToString(),
          StrCat("max is larger than capacity value: ", cap.ToString())));
    }
    if (def.Compare(max) > 0) {
      errs.push_back(
          Invalid(path.Child("default"), def.ToString(),
                  StrCat("default is more than max: ", max.ToString())));
    }
  }
  struct Named {
    const Quantity* q;
    const char* name;
  };
  std::vector<Named> bounds = {{&def, "default"},
                               {&min, "min"},
                               {range.max ? &*range.max : nullptr, "max"},
                               {range.step ? &*range.step : nullptr, "step"}};
  // DRAFractionalCapacityRange (on by default in 1.37): milli-unit
  // arithmetic when any bound or the default is fractional.
  bool use_milli = !def.IsInteger();
  for (const Named& b : bounds) {
    if (b.q != nullptr && !b.q->IsInteger()) use_milli = true;
  }
  if (use_milli) {
    bool unsafe = false;
    for (const Named& b : bounds) {
      if (b.q == nullptr) continue;
      if (Quantity::FromMilli(b.q->MilliValue()).Compare(*b.q) != 0) {
        errs.push_back(Invalid(path.Child(b.name), b.q->ToString(),
                               "value cannot be represented as a milli value"));
        unsafe = true;
      }
    }
    if (unsafe) return errs;
  }
  if (range.step.has_value()) {
    const Quantity& step = *range.step;
    if (step.Sign() <= 0) {
      errs.push_back(Invalid(path.Child("step"), step.ToString(),
                             "must be greater than zero"));
    } else {
      Quantity added = min;
      if (added.Add(step).ok() && added.Compare(cap) > 0) {
        errs.push_back(Invalid(
            path.Child("step"), step.ToString(),
            StrCat("one step ", added.ToString(),
                   " is larger than capacity value: ", cap.ToString())));
      }
      bool unsafe = false;
      if (!use_milli) {
        for (const Named& b : bounds) {
          if (b.q == nullptr) continue;
          if (b.q->Sign() < 0) {
            errs.push_back(
                Invalid(path.Child(b.name), b.q->ToString(), kIsNegative));
            unsafe = true;
          } else if (b.q->CompareInt64(std::numeric_limits<int64_t>::max()) >
                     0) {
            errs.push_back(
                Invalid(path.Child(b.name), b.q->ToString(),
                        "must not be larger than 9223372036854775807"));
            unsafe = true;
          }
        }
      }
      if (!unsafe) {
        Extend(errs, ValidateRequestPolicyRangeStep(def, min, step, use_milli,
                                                    path.Child("step")));
        if (range.max.has_value()) {
          Extend(errs,
                 ValidateRequestPolicyRangeStep(*range.max, min, step,
                                                use_milli, path.Child("step")));
        }
      }
    }
  }
  return errs;
}

Errs ValidateRequestPolicy(const Quantity& cap,
                           const CapacityRequestPolicy& policy,
                           const FieldPath& path) {
  if (!policy.valid_values.empty() && policy.valid_range.has_value()) {
    return {Forbidden(path,
                      "exactly one policy can be specified, cannot specify "
                      "\"validValues\" and \"validRange\" at the same time")};
  }
  if (!policy.valid_values.empty()) {
    if (!policy.default_.has_value()) {
      return {Required(path.Child("default"),
                       "required when validValues is defined")};
    }
    return ValidateRequestPolicyValidValues(
        *policy.default_, cap, policy.valid_values, path.Child("validValues"));
  }
  if (policy.valid_range.has_value()) {
    if (!policy.default_.has_value()) {
      return {Required(path.Child("default"),
                       "required when validRange is defined")};
    }
    return ValidateRequestPolicyRange(
        *policy.default_, cap, *policy.valid_range, path.Child("validRange"));
  }
  return {};
}

Errs ValidateCounterName(const std::string& name, const FieldPath& path) {
  return ValidateDNS1123Label(name, path);
}

Errs NoCounterChecks(const Counter&, const FieldPath&) { return {}; }

Errs ValidateCounters(const std::map<std::string, Counter>& counters, int max,
                      const FieldPath& path) {
  return ValidateMap(counters, max, nv::kDNS1123LabelMaxLength,
                     ValidateCounterName, NoCounterChecks, path);
}

Errs ValidateCounterSet(const CounterSet& set, const FieldPath& path) {
  Errs errs;
  if (set.name.empty()) {
    errs.push_back(Required(path.Child("name")));
  } else {
    Extend(errs, ValidateCounterName(set.name, path.Child("name")));
  }
  if (set.counters.empty()) {
    errs.push_back(Required(path.Child("counters")));
  } else {
    Extend(errs, ValidateCounters(set.counters,
                                  kResourceSliceMaxCountersPerCounterSet,
                                  path.Child("counters")));
  }
  return errs;
}

Errs ValidateDeviceCounterConsumption(const DeviceCounterConsumption& c,
                                      const FieldPath& path) {
  Errs errs;
  if (c.counter_set.empty()) {
    errs.push_back(Required(path.Child("counterSet")));
  } else {
    Extend(errs, ValidateCounterName(c.counter_set, path.Child("counterSet")));
  }
  if (c.counters.empty()) {
    errs.push_back(Required(path.Child("counters")));
  } else {
    Extend(errs,
           ValidateCounters(
               c.counters, kResourceSliceMaxCountersPerDeviceCounterConsumption,
               path.Child("counters")));
  }
  return errs;
}

Errs ValidateDevice(const Device& d, const Device* old_device,
                    const FieldPath& path, bool per_device_node_selection) {
  // The members most devices leave unset are read as if they were Device's
  // own (as upstream declares them).
  const DeviceRareFields& device = *d.rare;
  const DeviceRareFields* old = old_device ? &*old_device->rare : nullptr;
  bool allow_multiple = device.allow_multiple_allocations.value_or(false);
  Errs errs = ValidateDNS1123Label(d.name, path.Child("name"));
  int64_t attrs_and_caps =
      static_cast<int64_t>(d.attributes.size() + d.capacity.size());
  if (attrs_and_caps > kResourceSliceMaxAttributesAndCapacitiesPerDevice) {
    errs.push_back(Invalid(
        path, attrs_and_caps,
        StrCat("the total number of attributes and capacities must not exceed ",
               kResourceSliceMaxAttributesAndCapacitiesPerDevice)));
  }
  int64_t values = NumAttributeValues(d);
  if (values > kResourceSliceMaxAttributeValuesPerDevice) {
    errs.push_back(
        Invalid(path, values,
                StrCat("the total number of attribute values must not exceed ",
                       kResourceSliceMaxAttributeValuesPerDevice)));
  }
  Extend(errs, ValidateMap(d.attributes, -1, kAttributeAndCapacityMaxKeyLength,
                           ValidateQualifiedName, ValidateDeviceAttribute,
                           path.Child("attributes")));
  if (old_device == nullptr || !Eq(old_device->capacity, d.capacity)) {
    Extend(errs,
           ValidateMap(
               d.capacity, -1, kAttributeAndCapacityMaxKeyLength,
               ValidateQualifiedName,
               [&](const DeviceCapacity& c, const FieldPath& p) -> Errs {
                 if (!c.request_policy.has_value()) return {};
                 if (!allow_multiple) {
                   return {Forbidden(p.Child("requestPolicy"),
                                     "allowMultipleAllocations must be true")};
                 }
                 return ValidateRequestPolicy(c.value, *c.request_policy,
                                              p.Child("requestPolicy"));
               },
               path.Child("capacity")));
  }
  if (old == nullptr || !Eq(old->taints, device.taints)) {
    Extend(errs, ValidateSlice(
                     device.taints, kDeviceMaxTaints,
                     [](const DeviceTaint& t, const FieldPath& p) {
                       return ValidateDeviceTaint(t, nullptr, p);
                     },
                     path.Child("taints")));
  }
  Extend(errs, ValidateSet(
                   device.consumes_counters,
                   kResourceSliceMaxDeviceCounterConsumptions,
                   ValidateDeviceCounterConsumption,
                   [](const DeviceCounterConsumption& c) {
                     return StringKey(c.counter_set);
                   },
                   path.Child("consumesCounters")));
  const std::string kPerDeviceMessage =
      "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required "
      "when `perDeviceNodeSelection` is set to true in the ResourceSlice spec";
  if (per_device_node_selection) {
    std::vector<std::string> set_fields;
    if (device.node_name.has_value()) {
      if (!device.node_name->empty()) {
        set_fields.push_back("`nodeName`");
        Extend(errs,
               ValidateNodeName(*device.node_name, path.Child("nodeName")));
      } else {
        errs.push_back(
            Invalid(path.Child("nodeName"), "", "must not be empty"));
      }
    }
    if (device.node_selector.has_value()) {
      set_fields.push_back("`nodeSelector`");
      Extend(errs, ValidateNodeSelector(*device.node_selector,
                                        path.Child("nodeSelector")));
    }
    if (device.all_nodes.has_value()) {
      if (*device.all_nodes) {
        set_fields.push_back("`allNodes`");
      } else {
        errs.push_back(Invalid(path.Child("allNodes"), false,
                               "must be either unset or set to true"));
      }
    }
    if (set_fields.empty()) {
      errs.push_back(Required(path, kPerDeviceMessage));
    } else if (set_fields.size() > 1) {
      errs.push_back(Invalid(path, StrCat("{", Join(set_fields, ", "), "}"),
                             kPerDeviceMessage));
    }
  } else if (device.node_name.has_value() || device.node_selector.has_value() ||
             device.all_nodes.has_value()) {
    errs.push_back(
        Invalid(path, BadValue::Json("null"),
                "`nodeName`, `nodeSelector` and `allNodes` can only "
                "be set if `perDeviceNodeSelection` is set to true in "
                "the ResourceSlice spec"));
  }
  Extend(errs, ValidateDeviceBindingParameters(
                   device.binding_conditions, device.binding_failure_conditions,
                   path));
  return errs;
}

BadValue OptionalString(const std::optional<std::string>& v) {
  return v ? BadValue(*v) : BadValue::Json("null");
}

Errs ValidateResourceSliceSpec(const ResourceSliceSpec& spec,
                               const ResourceSliceSpec* old,
                               const FieldPath& path) {
  Errs errs = ValidateDriverName(spec.driver, path.Child("driver"));
  FieldPath pool_path = path.Child("pool");
  Extend(errs, ValidatePoolName(spec.pool.name, pool_path.Child("name")));
  if (spec.pool.resource_slice_count <= 0) {
    errs.push_back(Invalid(pool_path.Child("resourceSliceCount"),
                           spec.pool.resource_slice_count,
                           "must be greater than zero"));
  }
  if (spec.pool.generation < 0) {
    errs.push_back(Invalid(pool_path.Child("generation"), spec.pool.generation,
                           "must be greater than or equal to zero"));
  }
  if (old != nullptr) {
    if (spec.pool.name != old->pool.name) {
      errs.push_back(
          Invalid(pool_path.Child("name"), spec.pool.name, kFieldImmutable));
    }
    if (spec.driver != old->driver) {
      errs.push_back(
          Invalid(path.Child("driver"), spec.driver, kFieldImmutable));
    }
    if (spec.node_name != old->node_name) {
      errs.push_back(Invalid(path.Child("nodeName"),
                             OptionalString(spec.node_name), kFieldImmutable));
    }
  }

  std::vector<std::string> set_fields;
  if (spec.node_name.has_value()) {
    if (!spec.node_name->empty()) {
      set_fields.push_back("`nodeName`");
      Extend(errs, ValidateNodeName(*spec.node_name, path.Child("nodeName")));
    } else {
      errs.push_back(
          Invalid(path.Child("nodeName"), "",
                  "must be either unset or set to a non-empty string"));
    }
  }
  if (spec.node_selector.has_value()) {
    set_fields.push_back("`nodeSelector`");
    Extend(errs, ValidateNodeSelector(*spec.node_selector,
                                      path.Child("nodeSelector")));
    if (spec.node_selector->node_selector_terms.size() != 1) {
      errs.push_back(Invalid(
          path.Child("nodeSelector").Child("nodeSelectorTerms"),
          BadValue::Json(
              GoNodeSelectorTerms(spec.node_selector->node_selector_terms)),
          "must have exactly one node selector term"));
    }
  }
  if (spec.all_nodes.has_value()) {
    if (*spec.all_nodes) {
      set_fields.push_back("`allNodes`");
    } else {
      errs.push_back(Invalid(path.Child("allNodes"), false,
                             "must be either unset or set to true"));
    }
  }
  if (spec.per_device_node_selection.has_value()) {
    if (*spec.per_device_node_selection) {
      set_fields.push_back("`perDeviceNodeSelection`");
    } else {
      errs.push_back(Invalid(path.Child("perDeviceNodeSelection"), false,
                             "must be either unset or set to true"));
    }
  }
  const std::string kOneOf =
      "exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
      "`perDeviceNodeSelection` is required";
  if (set_fields.empty()) {
    errs.push_back(Required(path, kOneOf));
  } else if (set_fields.size() > 1) {
    errs.push_back(Invalid(path, StrCat("{", Join(set_fields, ", "), "}"),
                           StrCat(kOneOf, ", but multiple fields are set")));
  }

  if (!spec.shared_counters.empty() && !spec.devices.empty()) {
    errs.push_back(Invalid(
        path, "", "only one of `sharedCounters` or `devices` is allowed"));
  }

  int max_devices = kResourceSliceMaxDevices;
  if (HaveDeviceTaints(spec) || HaveConsumesCounters(spec) ||
      HaveListAttributes(spec)) {
    max_devices = kResourceSliceMaxDevicesWithTaintsOrConsumesCounters;
  }
  bool per_device = spec.per_device_node_selection.value_or(false);
  Extend(errs, ValidateSet(
                   spec.devices, max_devices,
                   [&](const Device& d, const FieldPath& p) {
                     return ValidateDevice(d, LookupDevice(old, d.name), p,
                                           per_device);
                   },
                   [](const Device& d) { return StringKey(d.name); },
                   path.Child("devices")));
  Extend(errs, ValidateSet(
                   spec.shared_counters, kResourceSliceMaxCounterSets,
                   ValidateCounterSet,
                   [](const CounterSet& c) { return StringKey(c.name); },
                   path.Child("sharedCounters")));
  return errs;
}

// ------------------------------------------------ DeviceTaintRule

Errs ValidateDeviceTaintRuleSpec(const DeviceTaintRuleSpec& spec,
                                 const DeviceTaintRuleSpec* old,
                                 const FieldPath& path) {
  Errs errs;
  if (spec.device_selector.has_value()) {
    const DeviceTaintSelector& s = *spec.device_selector;
    FieldPath sp = path.Child("deviceSelector");
    if (s.driver)
      Extend(errs, ValidateDriverName(*s.driver, sp.Child("driver")));
    if (s.pool) Extend(errs, ValidatePoolName(*s.pool, sp.Child("pool")));
    if (s.device)
      Extend(errs, ValidateDNS1123Label(*s.device, sp.Child("device")));
  }
  Extend(errs, ValidateDeviceTaint(spec.taint, old ? &old->taint : nullptr,
                                   path.Child("taint")));
  return errs;
}

// ------------------------------------------------ Pod (DRA parts only)

// core validateResourceClaimNames.
Errs ValidateContainerClaims(const std::vector<ResourceClaimReference>& claims,
                             const std::set<std::string>& pod_claim_names,
                             const FieldPath& path) {
  Errs errs;
  std::set<std::string> names;
  for (size_t i = 0; i < claims.size(); ++i) {
    const ResourceClaimReference& c = claims[i];
    FieldPath p = path.Index(static_cast<int64_t>(i));
    if (c.name.empty()) {
      errs.push_back(Required(p));
      continue;
    }
    if (names.count(c.name)) {
      // All requests of that claim already referenced.
      errs.push_back(Duplicate(p, c.name));
    } else {
      std::string key = c.name;
      if (!c.request.empty()) {
        Extend(errs, ValidateDNS1123Label(c.request, p.Child("request")));
        key += "/" + c.request;
      }
      if (names.count(key)) {
        // The exact same entry was already referenced.
        errs.push_back(Duplicate(p, key));
      } else if (c.request.empty()) {
        // Referencing the whole claim overlaps with every earlier reference
        // to one of its requests (one error per such reference).
        for (const std::string& other : names) {
          size_t slash = other.find('/');
          if (slash != std::string::npos && other.substr(0, slash) == c.name) {
            errs.push_back(Duplicate(p, c.name));
          }
        }
      }
      names.insert(key);
    }
    if (!pod_claim_names.count(c.name)) {
      FieldError e = NotFound(p, c.name);
      e.detail = "must be one of the names in pod.spec.resourceClaims";
      if (pod_claim_names.empty()) {
        e.detail += " which is empty";
      } else {
        e.detail +=
            ": " + Join({pod_claim_names.begin(), pod_claim_names.end()}, ", ");
      }
      errs.push_back(std::move(e));
    }
  }
  return errs;
}

Errs ValidatePodSpecResourceClaims(const PodSpec& spec, const FieldPath& path) {
  Errs errs;
  std::set<std::string> pod_claim_names;
  for (const auto& c : spec.resource_claims) {
    if (!c.name.empty()) pod_claim_names.insert(c.name);
  }
  std::set<std::string> seen;
  FieldPath claims_path = path.Child("resourceClaims");
  for (size_t i = 0; i < spec.resource_claims.size(); ++i) {
    const PodResourceClaim& c = spec.resource_claims[i];
    FieldPath p = claims_path.Index(static_cast<int64_t>(i));
    if (c.name.empty()) {
      errs.push_back(Required(p.Child("name")));
    } else if (seen.count(c.name)) {
      errs.push_back(Duplicate(p.Child("name"), c.name));
    } else {
      Extend(errs, ValidateDNS1123Label(c.name, p.Child("name")));
      seen.insert(c.name);
    }
    bool has_claim = c.resource_claim_name.has_value();
    bool has_template = c.resource_claim_template_name.has_value();
    if (has_claim && has_template) {
      errs.push_back(Invalid(p, BadValue::Json(GoPodResourceClaim(c)),
                             "at most one of `resourceClaimName` or "
                             "`resourceClaimTemplateName` may be specified"));
    }
    if (!has_claim && !has_template) {
      errs.push_back(Invalid(p, BadValue::Json(GoPodResourceClaim(c)),
                             "must specify one of: `resourceClaimName`, "
                             "`resourceClaimTemplateName`"));
    }
    if (has_claim) {
      Extend(errs, InvalidEach(
                       p.Child("resourceClaimName"), *c.resource_claim_name,
                       nv::NameIsDNSSubdomain(*c.resource_claim_name, false)));
    }
    if (has_template) {
      Extend(errs, InvalidEach(p.Child("resourceClaimTemplateName"),
                               *c.resource_claim_template_name,
                               nv::NameIsDNSSubdomain(
                                   *c.resource_claim_template_name, false)));
    }
  }
  for (size_t i = 0; i < spec.containers.size(); ++i) {
    Extend(errs, ValidateContainerClaims(spec.containers[i].resources.claims,
                                         pod_claim_names,
                                         path.Child("containers")
                                             .Index(static_cast<int64_t>(i))
                                             .Child("resources")
                                             .Child("claims")));
  }
  for (size_t i = 0; i < spec.init_containers.size(); ++i) {
    Extend(errs, ValidateContainerClaims(
                     spec.init_containers[i].resources.claims, pod_claim_names,
                     path.Child("initContainers")
                         .Index(static_cast<int64_t>(i))
                         .Child("resources")
                         .Child("claims")));
  }
  return errs;
}

// ------------------------------------------------ per-kind entry points

bool IsNamespaced(const Object& object) {
  auto [group, version] = SplitApiVersion(object.type.api_version);
  (void)version;
  if (const KindInfo* info = FindKind(group, object.kind())) {
    return info->namespaced;
  }
  return std::visit(
      [](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        return !(std::is_same_v<T, DeviceClass> ||
                 std::is_same_v<T, ResourceSlice> ||
                 std::is_same_v<T, DeviceTaintRule> ||
                 std::is_same_v<T, Namespace> || std::is_same_v<T, Node>);
      },
      object.value);
}

NameFn NameFnFor(const TypedObject& value) {
  if (std::holds_alternative<Namespace>(value)) return nv::NameIsDNSLabel;
  return nv::NameIsDNSSubdomain;
}

// Create-time rules: object metadata (scope and name format from the kind
// table, generateName per kind), then the kind's own spec rules.
Errs ValidateCreate(const Object& object, const ValidationOptions& options) {
  const FieldPath spec("spec");
  Context ctx{options, false};
  return std::visit(
      [&](const auto& v) -> Errs {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, UnstructuredObject>) {
          return {};
        } else {
          // Only DeviceClass uses ValidateObjectMetaWithOpts upstream.
          Errs errs = ValidateObjectMeta(
              v.metadata, IsNamespaced(object), NameFnFor(object.value),
              std::is_same_v<T, DeviceClass> ? GenerateName::kMustBeResolved
                                             : GenerateName::kValidatePrefix);
          if constexpr (std::is_same_v<T, DeviceClass>) {
            Extend(errs,
                   ValidateDeviceClassSpec(v.spec, nullptr, spec, options));
          } else if constexpr (std::is_same_v<T, ResourceClaim>) {
            // The status of a new claim is cleared by the API server.
            Extend(errs, ValidateResourceClaimSpec(v.spec, spec, ctx));
          } else if constexpr (std::is_same_v<T, ResourceClaimTemplate>) {
            Extend(errs, ValidateTemplateObjectMeta(v.spec->metadata,
                                                    spec.Child("metadata")));
            Extend(errs, ValidateResourceClaimSpec(v.spec->spec,
                                                   spec.Child("spec"), ctx));
          } else if constexpr (std::is_same_v<T, ResourceSlice>) {
            Extend(errs, ValidateResourceSliceSpec(v.spec, nullptr, spec));
          } else if constexpr (std::is_same_v<T, DeviceTaintRule>) {
            Extend(errs, ValidateDeviceTaintRuleSpec(v.spec, nullptr, spec));
          } else if constexpr (std::is_same_v<T, Pod>) {
            Extend(errs, ValidatePodSpecResourceClaims(v.spec, spec));
          } else if constexpr (std::is_same_v<T, Deployment> ||
                               std::is_same_v<T, Job>) {
            Extend(errs, ValidatePodSpecResourceClaims(
                             v.spec.template_->spec,
                             spec.Child("template").Child("spec")));
          }
          return errs;
        }
      },
      object.value);
}

template <class T>
const T* Same(const Object& old) {
  return std::get_if<T>(&old.value);
}

// ------------------------------------------------ defaulting

void DefaultToleration(DeviceToleration& t) {
  if (t.operator_.empty()) t.operator_ = "Equal";
}

void DefaultAllocationMode(std::string& mode, int64_t& count) {
  if (mode.empty()) mode = kDeviceAllocationModeExactCount;
  if (mode == kDeviceAllocationModeExactCount && count == 0) count = 1;
}

void DefaultClaimSpec(ResourceClaimSpec& spec) {
  for (DeviceRequest& r : spec.devices.requests) {
    if (r.exactly.has_value()) {
      DefaultAllocationMode(r.exactly->allocation_mode, r.exactly->count);
      for (auto& t : r.exactly->tolerations) DefaultToleration(t);
    }
    for (DeviceSubRequest& s : r.first_available) {
      DefaultAllocationMode(s.allocation_mode, s.count);
      for (auto& t : s.tolerations) DefaultToleration(t);
    }
  }
}

// ------------------------------------------------ v1beta1 error paths

// Rewrites `<prefix>[N].exactly` to `<prefix>[N]` at the start of `path`.
bool DropExactly(std::string& path, std::string_view prefix) {
  if (path.compare(0, prefix.size(), prefix) != 0) return false;
  size_t pos = prefix.size();
  if (pos >= path.size() || path[pos] != '[') return false;
  size_t close = path.find(']', pos);
  if (close == std::string::npos) return false;
  for (size_t i = pos + 1; i < close; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(path[i]))) return false;
  }
  constexpr std::string_view kExactly = ".exactly";
  size_t at = close + 1;
  if (path.compare(at, kExactly.size(), kExactly) != 0) return false;
  size_t end = at + kExactly.size();
  if (end != path.size() && path[end] != '.' && path[end] != '[') return false;
  path.erase(at, kExactly.size());
  return true;
}

// Rewrites `spec.devices[N].x` to `spec.devices[N].basic.x` (x != name).
bool AddBasic(std::string& path) {
  constexpr std::string_view kPrefix = "spec.devices[";
  if (path.compare(0, kPrefix.size(), kPrefix) != 0) return false;
  size_t close = path.find(']', kPrefix.size());
  if (close == std::string::npos || close == kPrefix.size()) return false;
  for (size_t i = kPrefix.size(); i < close; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(path[i]))) return false;
  }
  size_t at = close + 1;
  if (at >= path.size() || path[at] != '.') return false;
  std::string_view rest(path);
  rest.remove_prefix(at + 1);
  if (rest == "name" || rest.substr(0, 5) == "name." ||
      rest.substr(0, 5) == "name[") {
    return false;
  }
  path.insert(at, ".basic");
  return true;
}

}  // namespace

void SetDefaults(Object& object) {
  std::visit(
      [](auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, ResourceClaim>) {
          DefaultClaimSpec(v.spec);
          if (v.status.allocation.has_value()) {
            for (auto& r : v.status.allocation->devices.results) {
              for (auto& t : r.tolerations) DefaultToleration(t);
            }
          }
        } else if constexpr (std::is_same_v<T, ResourceClaimTemplate>) {
          DefaultClaimSpec(v.spec.Mutable().spec);
        } else if constexpr (std::is_same_v<T, Pod>) {
          // Upstream SetDefaults_Pod: a container's requests default to its
          // limits, resource by resource (only on a Pod, not on templates).
          for (auto* list : {&v.spec.containers, &v.spec.init_containers}) {
            for (Container& c : *list) {
              for (const auto& [name, q] : c.resources.limits) {
                if (c.resources.requests.find(name) ==
                    c.resources.requests.end()) {
                  c.resources.requests[name] = q;
                }
              }
            }
          }
        } else if constexpr (std::is_same_v<T, ResourceSlice>) {
          for (Device& d : v.spec.devices) {
            if (!d.rare.allocated()) continue;
            for (auto& [name, m] :
                 d.rare.Mutable().node_allocatable_resource_mappings) {
              if (!m.allocation_multiplier.has_value()) {
                m.allocation_multiplier = Quantity::FromInt64(1);
              }
            }
          }
        }
      },
      object.value);
}

FieldErrorList ValidateObject(const Object& object,
                              const ValidationOptions& options) {
  return ValidateCreate(object, options);
}

FieldErrorList ValidateObjectUpdate(const Object& updated, const Object& old,
                                    const ValidationOptions& options) {
  if (updated.value.index() != old.value.index()) {
    return {InternalError(FieldPath(), "the kind of an object cannot change")};
  }
  const FieldPath spec("spec");
  return std::visit(
      [&](const auto& v) -> Errs {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, UnstructuredObject>) {
          return {};
        } else {
          const T& o = *Same<T>(old);
          if constexpr (std::is_same_v<T, DeviceClass>) {
            Errs errs =
                ValidateObjectMeta(v.metadata, false, nv::NameIsDNSSubdomain,
                                   GenerateName::kMustBeResolved);
            Extend(errs, ValidateObjectMetaUpdate(v.metadata, o.metadata));
            Extend(errs,
                   ValidateDeviceClassSpec(v.spec, &o.spec, spec, options));
            return errs;
          } else if constexpr (std::is_same_v<T, ResourceClaim>) {
            // The spec is immutable; it is not validated again.
            Errs errs =
                ValidateObjectMeta(v.metadata, true, nv::NameIsDNSSubdomain,
                                   GenerateName::kValidatePrefix);
            Extend(errs, ValidateObjectMetaUpdate(v.metadata, o.metadata));
            if (!Eq(v.spec, o.spec)) {
              errs.push_back(
                  Invalid(spec, RenderJson(v.spec), kFieldImmutable));
            }
            return errs;
          } else if constexpr (std::is_same_v<T, ResourceClaimTemplate>) {
            Errs errs = ValidateObjectMetaUpdate(v.metadata, o.metadata);
            if (!Eq(v.spec, o.spec)) {
              errs.push_back(
                  Invalid(spec, RenderJson(v.spec), kFieldImmutable));
            }
            return errs;
          } else if constexpr (std::is_same_v<T, ResourceSlice>) {
            Errs errs = ValidateObjectMetaUpdate(v.metadata, o.metadata);
            Extend(errs, ValidateResourceSliceSpec(v.spec, &o.spec, spec));
            return errs;
          } else if constexpr (std::is_same_v<T, DeviceTaintRule>) {
            Errs errs = ValidateObjectMetaUpdate(v.metadata, o.metadata);
            Extend(errs, ValidateDeviceTaintRuleSpec(v.spec, &o.spec, spec));
            return errs;
          } else {
            Errs errs = ValidateCreate(updated, options);
            Extend(errs, ValidateObjectMetaUpdate(v.metadata, o.metadata));
            return errs;
          }
        }
      },
      updated.value);
}

FieldErrorList ValidateObjectStatusUpdate(const Object& updated,
                                          const Object& old,
                                          const ValidationOptions& options) {
  (void)options;
  if (updated.value.index() != old.value.index()) {
    return {InternalError(FieldPath(), "the kind of an object cannot change")};
  }
  return std::visit(
      [&](const auto& v) -> Errs {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, UnstructuredObject>) {
          return {};
        } else {
          const T& o = *Same<T>(old);
          Errs errs = ValidateObjectMetaUpdate(v.metadata, o.metadata);
          if constexpr (std::is_same_v<T, ResourceClaim>) {
            Extend(errs, ValidateResourceClaimStatusUpdate(v, o));
          } else if constexpr (std::is_same_v<T, DeviceTaintRule>) {
            FieldPath conditions = FieldPath("status").Child("conditions");
            Extend(errs, ValidateConditions(v.status.conditions, conditions));
            if (v.status.conditions.size() >
                static_cast<size_t>(kDeviceTaintRuleStatusMaxConditions)) {
              errs.push_back(TooMany(
                  conditions, static_cast<int64_t>(v.status.conditions.size()),
                  kDeviceTaintRuleStatusMaxConditions));
            }
          }
          return errs;
        }
      },
      updated.value);
}

void NormalizeErrorPaths(std::string_view kind, std::string_view api_version,
                         FieldErrorList& errors) {
  if (api_version != "resource.k8s.io/v1beta1") return;
  for (FieldError& e : errors) {
    if (kind == "ResourceClaim") {
      DropExactly(e.field, "spec.devices.requests");
    } else if (kind == "ResourceClaimTemplate") {
      DropExactly(e.field, "spec.spec.devices.requests");
    } else if (kind == "ResourceSlice") {
      AddBasic(e.field);
    }
  }
}

}  // namespace draplane::api
