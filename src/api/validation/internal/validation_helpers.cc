// Shared helpers of the validation rules: Go value rendering, list rules,
// name formats, object metadata, conditions and node selectors.

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

#include "api/object_codec.h"
#include "api/validation/internal/validation_rules.h"
#include "common/go_strconv.h"
#include "common/name_validation.h"
#include "common/str_cat.h"
#include "common/str_split.h"

namespace draplane::api::validation_internal {

namespace {

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

std::string Join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out.append(sep);
    out.append(items[i]);
  }
  return out;
}
namespace {

// ------------------------------------------------ Go value rendering
// field.Error prints bad values of composite types with %#v.

}  // namespace

std::string GoStrings(const std::vector<std::string>& v) {
  if (v.empty()) return "[]string(nil)";
  std::vector<std::string> quoted;
  quoted.reserve(v.size());
  for (const auto& s : v) quoted.push_back(StrconvQuote(s));
  return StrCat("[]string{", Join(quoted, ", "), "}");
}

namespace {

// Upstream prints pointer fields of structs as (*T)(0xc00...), an address
// that differs on every run. A fixed address keeps the shape of the message.
std::string GoPtr(std::string_view type, bool set) {
  return StrCat("(*", type, ")(", set ? "0xc000000000" : "nil", ")");
}

std::string GoNodeSelectorRequirements(
    const std::vector<NodeSelectorRequirement>& reqs) {
  if (reqs.empty()) return "[]core.NodeSelectorRequirement(nil)";
  std::vector<std::string> items;
  items.reserve(reqs.size());
  for (const auto& r : reqs) {
    items.push_back(StrCat(
        "core.NodeSelectorRequirement{Key:", StrconvQuote(r.key), ", Operator:",
        StrconvQuote(r.operator_), ", Values:", GoStrings(r.values), "}"));
  }
  return StrCat("[]core.NodeSelectorRequirement{", Join(items, ", "), "}");
}

}  // namespace

std::string GoNodeSelectorTerms(const std::vector<NodeSelectorTerm>& terms) {
  if (terms.empty()) return "[]core.NodeSelectorTerm(nil)";
  std::vector<std::string> items;
  items.reserve(terms.size());
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
    s.reserve(v.size());
    for (int64_t x : v) s.push_back(std::to_string(x));
    return StrCat("[]int64{", Join(s, ", "), "}");
  };
  auto list_bool = [](const std::vector<bool>& v) {
    if (v.empty()) return std::string("[]bool(nil)");
    std::vector<std::string> s;
    s.reserve(v.size());
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

namespace {

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

}  // namespace

std::string TruncateIfTooLong(std::string_view s, int max_len) {
  if (max_len < 16) max_len = 16;
  if (static_cast<int>(s.size()) <= max_len) return std::string(s);
  const std::string ellipsis = "...";
  int remaining = max_len - static_cast<int>(ellipsis.size());
  return StrCat(s.substr(0, (remaining + 1) / 2), ellipsis,
                s.substr(s.size() - remaining / 2));
}

namespace {

// ------------------------------------------------ basic formats

}  // namespace

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
  for (std::string_view part : StrSplit(name, '/')) {
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

namespace {

Errs ValidateCIdentifier(std::string_view id, const FieldPath& path) {
  Errs errs;
  if (id.size() > static_cast<size_t>(kDeviceMaxIdLength)) {
    errs.push_back(TooLong(path, kDeviceMaxIdLength));
  }
  Extend(errs, InvalidEach(path, id, nv::IsCIdentifier(id)));
  return errs;
}

}  // namespace

Errs ValidateQualifiedName(std::string_view name, const FieldPath& path) {
  Errs errs;
  std::vector<std::string_view> parts = StrSplit(name, '/');
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
namespace {

// ------------------------------------------------ object metadata

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
        all.reserve(refs.size());
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

}  // namespace

// corevalidation.ValidateObjectMeta / ValidateObjectMetaWithOpts.
Errs ValidateObjectMeta(const ObjectMeta& meta, bool namespaced, NameFn name_fn,
                        GenerateName generate_name, const FieldPath& path) {
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

namespace {

BadValue OptionalInt(const std::optional<int64_t>& v) {
  return v ? BadValue(*v) : BadValue::Json("null");
}

}  // namespace

// corevalidation.ValidateObjectMetaUpdate.
Errs ValidateObjectMetaUpdate(const ObjectMeta& meta, const ObjectMeta& old,
                              const FieldPath& path) {
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
namespace {

// ------------------------------------------------ conditions, node selectors

}  // namespace

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

namespace {

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

}  // namespace

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

}  // namespace draplane::api::validation_internal
