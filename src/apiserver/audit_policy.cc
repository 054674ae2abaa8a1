#include "apiserver/audit_policy.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <utility>

#include "absl/strings/str_join.h"
#include "api/manifest.h"
#include "common/field_errors.h"
#include "common/name_validation.h"
#include "common/str_cat.h"

namespace draplane::apiserver {
namespace {

using api::Json;

constexpr std::string_view kLevels[] = {"None", "Metadata", "Request",
                                        "RequestResponse"};
constexpr std::string_view kStages[] = {"RequestReceived", "ResponseStarted",
                                        "ResponseComplete", "Panic"};

// Reads members of one JSON object into typed fields, collecting type
// errors (with their paths) and unknown members (as warnings).
class Decoder {
 public:
  Decoder(FieldErrorList& errors, std::vector<std::string>& unknown)
      : errors_(errors), unknown_(unknown) {}

  // Whether `json` is an object; an error at `path` when not.
  bool Object(const Json& json, const FieldPath& path) {
    if (json.is_object()) return true;
    errors_.push_back(Invalid(path, BadValue::Json(api::DumpJson(json)),
                              "must be an object"));
    return false;
  }

  // Members of `json` other than `known` are reported as unknown.
  void Unknown(const Json& json, const FieldPath& path,
               std::initializer_list<std::string_view> known) {
    for (const auto& [key, value] : json.items()) {
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        unknown_.push_back(
            StrCat("unknown field \"", path.Child(key).ToString(), "\""));
      }
    }
  }

  // A string member ("" when absent or null).
  std::string String(const Json& json, std::string_view key,
                     const FieldPath& path) {
    const auto it = json.find(std::string(key));
    if (it == json.end() || it->is_null()) return "";
    if (!it->is_string()) {
      TypeError(*it, path.Child(key), "string");
      return "";
    }
    return it->get<std::string>();
  }

  // A list of strings (empty when absent or null).
  std::vector<std::string> Strings(const Json& json, std::string_view key,
                                   const FieldPath& path) {
    std::vector<std::string> out;
    const auto it = json.find(std::string(key));
    if (it == json.end() || it->is_null()) return out;
    if (!it->is_array()) {
      TypeError(*it, path.Child(key), "list of strings");
      return out;
    }
    for (size_t i = 0; i < it->size(); ++i) {
      const Json& e = (*it)[i];
      if (!e.is_string()) {
        TypeError(e, path.Child(key).Index(static_cast<int64_t>(i)), "string");
        continue;
      }
      out.push_back(e.get<std::string>());
    }
    return out;
  }

  // A boolean member; nullopt when absent or null.
  std::optional<bool> Bool(const Json& json, std::string_view key,
                           const FieldPath& path) {
    const auto it = json.find(std::string(key));
    if (it == json.end() || it->is_null()) return std::nullopt;
    if (!it->is_boolean()) {
      TypeError(*it, path.Child(key), "boolean");
      return std::nullopt;
    }
    return it->get<bool>();
  }

  // The array member `key` (null when absent, null or not an array).
  const Json* Array(const Json& json, std::string_view key,
                    const FieldPath& path) {
    const auto it = json.find(std::string(key));
    if (it == json.end() || it->is_null()) return nullptr;
    if (!it->is_array()) {
      TypeError(*it, path.Child(key), "list");
      return nullptr;
    }
    return &*it;
  }

 private:
  void TypeError(const Json& value, const FieldPath& path,
                 std::string_view type) {
    errors_.push_back(Invalid(path, BadValue::Json(api::DumpJson(value)),
                              StrCat("must be of type ", type)));
  }

  FieldErrorList& errors_;
  std::vector<std::string>& unknown_;
};

// Stage names as written; validated apart (upstream's order of checks).
struct RawRule {
  std::string level;
  std::vector<std::string> omit_stages;
};

// "RequestReceived,ResponseStarted,ResponseComplete,Panic".
std::string AllStages() {
  std::string out;
  for (std::string_view stage : kStages) {
    if (!out.empty()) out += ",";
    out += stage;
  }
  return out;
}

std::optional<AuditStage> StageOf(std::string_view name) {
  for (size_t i = 0; i < std::size(kStages); ++i) {
    if (kStages[i] == name) return static_cast<AuditStage>(i);
  }
  return std::nullopt;
}

// upstream's validateOmitStages.
std::vector<AuditStage> OmitStages(const std::vector<std::string>& names,
                                   const FieldPath& path,
                                   FieldErrorList& errors) {
  std::vector<AuditStage> out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (auto stage = StageOf(names[i])) {
      out.push_back(*stage);
    } else {
      errors.push_back(Invalid(path.Index(static_cast<int64_t>(i)), names[i],
                               StrCat("allowed stages are ", AllStages())));
    }
  }
  return out;
}

// upstream's validateLevel.
AuditLevel Level(const std::string& name, const FieldPath& path,
                 FieldErrorList& errors) {
  for (size_t i = 0; i < std::size(kLevels); ++i) {
    if (kLevels[i] == name) return static_cast<AuditLevel>(i);
  }
  if (name.empty()) {
    errors.push_back(Required(path));
  } else {
    errors.push_back(NotSupported(
        path, name,
        std::vector<std::string>(std::begin(kLevels), std::end(kLevels))));
  }
  return AuditLevel::kNone;
}

// upstream's validateNonResourceURLs.
void ValidateNonResourceUrls(const std::vector<std::string>& urls,
                             const FieldPath& path, FieldErrorList& errors) {
  for (size_t i = 0; i < urls.size(); ++i) {
    const std::string& url = urls[i];
    if (url == "*") continue;
    const FieldPath at = path.Index(static_cast<int64_t>(i));
    if (url.empty() || url[0] != '/') {
      errors.push_back(Invalid(
          at, url, "non-resource URL rules must begin with a '/' character"));
    }
    if (!url.empty() &&
        url.substr(0, url.size() - 1).find('*') != std::string::npos) {
      errors.push_back(Invalid(at, url,
                               "non-resource URL wildcards '*' must be the "
                               "final character of the rule"));
    }
  }
}

std::string JsonList(const std::vector<std::string>& values) {
  return api::DumpJson(Json(values));
}

AuditGroupResources GroupResources(Decoder& d, const Json& json,
                                   const FieldPath& path,
                                   const FieldPath& validation_path,
                                   FieldErrorList& errors) {
  AuditGroupResources gr;
  if (!d.Object(json, path)) return gr;
  d.Unknown(json, path, {"group", "resources", "resourceNames"});
  gr.group = d.String(json, "group", path);
  gr.resources = d.Strings(json, "resources", path);
  gr.resource_names = d.Strings(json, "resourceNames", path);
  // upstream's validateResources; its paths name the list, not the entry
  // (`rules[0].resources.group`).
  if (!gr.group.empty() && gr.group != "*") {
    if (auto msgs = name_validation::NameIsDNSSubdomain(gr.group, false);
        !msgs.empty()) {
      errors.push_back(Invalid(validation_path.Child("group"), gr.group,
                               absl::StrJoin(msgs, ",")));
    }
  }
  if (!gr.resource_names.empty() && gr.resources.empty()) {
    errors.push_back(Invalid(validation_path.Child("resourceNames"),
                             BadValue::Json(JsonList(gr.resource_names)),
                             "using resourceNames requires at least one "
                             "resource"));
  }
  return gr;
}

AuditPolicyRule Rule(Decoder& d, const Json& json, const FieldPath& path,
                     FieldErrorList& errors) {
  AuditPolicyRule rule;
  if (!d.Object(json, path)) return rule;
  d.Unknown(json, path,
            {"level", "users", "userGroups", "verbs", "resources", "namespaces",
             "nonResourceURLs", "omitStages", "omitManagedFields"});
  const auto level = json.find("level");
  if (level == json.end() || level->is_null() || level->is_string()) {
    rule.level =
        Level(d.String(json, "level", path), path.Child("level"), errors);
  } else {
    d.String(json, "level", path);  // the type error only
  }
  rule.users = d.Strings(json, "users", path);
  rule.user_groups = d.Strings(json, "userGroups", path);
  rule.verbs = d.Strings(json, "verbs", path);
  rule.namespaces = d.Strings(json, "namespaces", path);
  rule.non_resource_urls = d.Strings(json, "nonResourceURLs", path);
  ValidateNonResourceUrls(rule.non_resource_urls, path.Child("nonResourceURLs"),
                          errors);
  if (const Json* resources = d.Array(json, "resources", path)) {
    for (size_t i = 0; i < resources->size(); ++i) {
      rule.resources.push_back(
          GroupResources(d, (*resources)[i],
                         path.Child("resources").Index(static_cast<int64_t>(i)),
                         path.Child("resources"), errors));
    }
  }
  rule.omit_stages = OmitStages(d.Strings(json, "omitStages", path),
                                path.Child("omitStages"), errors);
  rule.omit_managed_fields = d.Bool(json, "omitManagedFields", path);
  if (!rule.non_resource_urls.empty() &&
      (!rule.resources.empty() || !rule.namespaces.empty())) {
    errors.push_back(Invalid(path.Child("nonResourceURLs"),
                             BadValue::Json(JsonList(rule.non_resource_urls)),
                             "rules cannot apply to both regular resources "
                             "and non-resource URLs"));
  }
  return rule;
}

bool Has(const std::vector<std::string>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// upstream's pathMatches.
bool PathMatches(std::string_view path, std::string_view spec) {
  if (spec == "*" || spec == path) return true;
  if (!spec.empty() && spec.back() == '*') {
    std::string_view prefix = spec;
    while (!prefix.empty() && prefix.back() == '*') prefix.remove_suffix(1);
    return path.substr(0, prefix.size()) == prefix;
  }
  return false;
}

// upstream's ruleMatchesResource.
bool MatchesResource(const AuditPolicyRule& r,
                     const auth::RequestAttributes& a) {
  if (!a.resource_request) return false;
  if (!r.namespaces.empty() && !Has(r.namespaces, a.namespace_)) return false;
  if (r.resources.empty()) return true;
  const std::string combined = a.subresource.empty()
                                   ? a.resource
                                   : StrCat(a.resource, "/", a.subresource);
  for (const AuditGroupResources& gr : r.resources) {
    if (gr.group != a.api_group && gr.group != "*") continue;
    if (gr.resources.empty()) return true;
    for (const std::string& res : gr.resources) {
      if (!gr.resource_names.empty() && !Has(gr.resource_names, a.name)) {
        continue;
      }
      if (res == combined || res == "*") return true;
      if (!a.subresource.empty() && res.rfind("*/", 0) == 0 &&
          std::string_view(res).substr(2) == a.subresource) {
        return true;
      }
      if (res.size() >= 2 && res.compare(res.size() - 2, 2, "/*") == 0 &&
          std::string_view(res).substr(0, res.size() - 2) == a.resource) {
        return true;
      }
    }
  }
  return false;
}

// upstream's ruleMatches.
bool Matches(const AuditPolicyRule& r, const auth::RequestAttributes& a,
             bool authenticated) {
  if (!r.users.empty() && (!authenticated || !Has(r.users, a.user.name))) {
    return false;
  }
  if (!r.user_groups.empty()) {
    if (!authenticated) return false;
    const bool any = std::any_of(
        a.user.groups.begin(), a.user.groups.end(),
        [&r](const std::string& g) { return Has(r.user_groups, g); });
    if (!any) return false;
  }
  if (!r.verbs.empty() && !Has(r.verbs, a.verb)) return false;
  if (!r.namespaces.empty() || !r.resources.empty()) {
    return MatchesResource(r, a);
  }
  if (!r.non_resource_urls.empty()) {
    if (a.resource_request) return false;
    return std::any_of(
        r.non_resource_urls.begin(), r.non_resource_urls.end(),
        [&a](const std::string& spec) { return PathMatches(a.path, spec); });
  }
  return true;
}

// Upstream's union of stage lists (NewPolicyRuleEvaluator), in stage order.
std::vector<AuditStage> Union(const std::vector<AuditStage>& a,
                              const std::vector<AuditStage>& b) {
  std::set<AuditStage> all(a.begin(), a.end());
  all.insert(b.begin(), b.end());
  return {all.begin(), all.end()};
}

}  // namespace

std::string_view AuditLevelName(AuditLevel level) {
  return kLevels[static_cast<size_t>(level)];
}

std::string_view AuditStageName(AuditStage stage) {
  return kStages[static_cast<size_t>(stage)];
}

bool RequestAuditConfig::Omits(AuditStage stage) const {
  return std::find(omit_stages.begin(), omit_stages.end(), stage) !=
         omit_stages.end();
}

absl::StatusOr<AuditPolicy> ParseAuditPolicy(
    std::string_view text, std::string_view source_name,
    std::vector<std::string>* warnings) {
  if (text.size() > kMaxAuditPolicyBytes) {
    return absl::InvalidArgumentError(
        StrCat(source_name, ": larger than ", kMaxAuditPolicyBytes, " bytes"));
  }
  auto docs = api::ParseManifestsKeepingLists(text, source_name);
  if (!docs.ok()) return docs.status();
  if (docs->size() != 1) {
    return absl::InvalidArgumentError(StrCat(
        source_name, ": expected one Policy document, found ", docs->size()));
  }
  const Json& json = (*docs)[0].json;
  FieldErrorList errors;
  std::vector<std::string> unknown;
  Decoder d(errors, unknown);
  const FieldPath root;
  // upstream: the decoder needs the kind, and only audit.k8s.io/v1 is read.
  const std::string api_version = d.String(json, "apiVersion", root);
  const std::string kind = d.String(json, "kind", root);
  if (api_version != "audit.k8s.io/v1") {
    errors.push_back(NotSupported(FieldPath("apiVersion"), api_version,
                                  {"audit.k8s.io/v1"}));
  }
  if (kind != "Policy") {
    errors.push_back(NotSupported(FieldPath("kind"), kind, {"Policy"}));
  }
  d.Unknown(json, root,
            {"apiVersion", "kind", "metadata", "rules", "omitStages",
             "omitManagedFields"});
  AuditPolicy policy;
  policy.omit_stages = OmitStages(d.Strings(json, "omitStages", root),
                                  FieldPath("omitStages"), errors);
  policy.omit_managed_fields =
      d.Bool(json, "omitManagedFields", root).value_or(false);
  if (const Json* rules = d.Array(json, "rules", root)) {
    for (size_t i = 0; i < rules->size(); ++i) {
      policy.rules.push_back(
          Rule(d, (*rules)[i],
               FieldPath("rules").Index(static_cast<int64_t>(i)), errors));
    }
  }
  if (!errors.empty()) {
    return absl::InvalidArgumentError(AggregateMessage(errors));
  }
  if (policy.rules.empty()) {
    return absl::InvalidArgumentError("loaded illegal policy with 0 rules");
  }
  if (warnings != nullptr) {
    warnings->insert(warnings->end(), unknown.begin(), unknown.end());
  }
  // As NewPolicyRuleEvaluator: each rule omits the policy's stages too.
  for (AuditPolicyRule& rule : policy.rules) {
    rule.omit_stages = Union(policy.omit_stages, rule.omit_stages);
  }
  return policy;
}

absl::StatusOr<AuditPolicy> LoadAuditPolicyFile(
    const std::string& path, std::vector<std::string>* warnings) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        StrCat("failed to read file path \"", path, "\""));
  }
  std::string text(kMaxAuditPolicyBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (in.bad()) {
    return absl::InvalidArgumentError(
        StrCat("failed to read file path \"", path, "\""));
  }
  return ParseAuditPolicy(text, path, warnings);
}

RequestAuditConfig EvaluateAuditPolicy(const AuditPolicy& policy,
                                       const auth::RequestAttributes& request,
                                       bool authenticated) {
  for (const AuditPolicyRule& rule : policy.rules) {
    if (Matches(rule, request, authenticated)) {
      return RequestAuditConfig{
          rule.level, rule.omit_stages,
          rule.omit_managed_fields.value_or(policy.omit_managed_fields)};
    }
  }
  return RequestAuditConfig{AuditLevel::kNone, policy.omit_stages,
                            policy.omit_managed_fields};
}

}  // namespace draplane::apiserver
