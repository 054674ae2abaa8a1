#include "apiserver/internal/rbac_reconciliation.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "api/object_codec.h"
#include "api/typed_json.h"
#include "apiserver/internal/bootstrap_policy_objects.h"
#include "apiserver/internal/rbac_policy.h"
#include "apiserver/internal/resources.h"
#include "auth/rule_resolver.h"
#include "auth/user_info.h"
#include "common/str_cat.h"
#include "selectors/selectors.h"

namespace draplane::apiserver::internal {
namespace {

constexpr char kAutoUpdate[] = "rbac.authorization.kubernetes.io/autoupdate";
constexpr char kRbacGroup[] = "rbac.authorization.k8s.io";

api::PolicyRule FromAuth(const auth::PolicyRule& r) {
  return {r.verbs, r.api_groups, r.resources, r.resource_names,
          r.non_resource_urls};
}

bool SameRule(const api::PolicyRule& a, const api::PolicyRule& b) {
  return a.verbs == b.verbs && a.api_groups == b.api_groups &&
         a.resources == b.resources && a.resource_names == b.resource_names &&
         a.non_resource_urls == b.non_resource_urls;
}

bool SameSubject(const api::Subject& a, const api::Subject& b) {
  return a.kind == b.kind && a.api_group == b.api_group && a.name == b.name &&
         a.namespace_ == b.namespace_;
}

// Adds the keys of `expected` that `existing` lacks; true when any.
bool MergeMissing(const std::map<std::string, std::string>& expected,
                  std::map<std::string, std::string>& existing) {
  bool changed = false;
  for (const auto& [k, v] : expected) {
    changed |= existing.emplace(k, v).second;
  }
  return changed;
}

bool MergeMeta(const api::ObjectMeta& expected, api::ObjectMeta& existing) {
  const bool labels = MergeMissing(expected.labels, existing.labels);
  const bool annotations =
      MergeMissing(expected.annotations, existing.annotations);
  return labels || annotations;
}

// The rules `expected` holds that `existing` does not cover, broken down
// as upstream appends them.
bool AddMissingRules(const std::vector<api::PolicyRule>& expected,
                     std::vector<api::PolicyRule>& existing) {
  std::vector<auth::PolicyRule> missing =
      auth::UncoveredRules(AuthRules(existing), AuthRules(expected));
  for (const auth::PolicyRule& r : missing) existing.push_back(FromAuth(r));
  return !missing.empty();
}

bool AddMissingSubjects(const std::vector<api::Subject>& expected,
                        std::vector<api::Subject>& existing) {
  bool changed = false;
  for (const api::Subject& s : expected) {
    if (std::none_of(
            existing.begin(), existing.end(),
            [&s](const api::Subject& e) { return SameSubject(s, e); })) {
      existing.push_back(s);
      changed = true;
    }
  }
  return changed;
}

bool AddMissingSelectors(const std::optional<api::AggregationRule>& expected,
                         std::optional<api::AggregationRule>& existing) {
  if (!expected.has_value()) return false;
  if (!existing.has_value()) {
    existing = expected;
    return true;
  }
  bool changed = false;
  for (const api::LabelSelector& s : expected->cluster_role_selectors) {
    const api::Json want = api::typed_json::ToJson(s);
    const auto& have = existing->cluster_role_selectors;
    if (std::none_of(have.begin(), have.end(), [&want](const auto& h) {
          return api::typed_json::ToJson(h) == want;
        })) {
      existing->cluster_role_selectors.push_back(s);
      changed = true;
    }
  }
  return changed;
}

// Whether the stored `existing` needs `expected`'s additions; edits
// `existing` in place. `recreate` is set for a binding whose roleRef
// differs.
template <class T>
bool Reconcile(const T& expected, T& existing, bool* recreate) {
  bool changed = MergeMeta(expected.metadata, existing.metadata);
  if constexpr (std::is_same_v<T, api::ClusterRole>) {
    changed |= AddMissingSelectors(expected.aggregation_rule,
                                   existing.aggregation_rule);
  }
  if constexpr (std::is_same_v<T, api::ClusterRole> ||
                std::is_same_v<T, api::Role>) {
    changed |= AddMissingRules(expected.rules, existing.rules);
  } else {
    if (expected.role_ref.api_group != existing.role_ref.api_group ||
        expected.role_ref.kind != existing.role_ref.kind ||
        expected.role_ref.name != existing.role_ref.name) {
      existing.role_ref = expected.role_ref;
      *recreate = true;
      changed = true;
    }
    changed |= AddMissingSubjects(expected.subjects, existing.subjects);
  }
  return changed;
}

WriteOptions AsApiServer() {
  WriteOptions o;
  o.user = auth::ApiServerUser();
  return o;
}

absl::Status ReconcileOne(Registry& registry, const api::Json& expected_json) {
  auto expected = api::DecodeObject(expected_json);
  if (!expected.ok()) return expected.status();
  const api::ObjectMeta& meta = *expected->object.metadata();
  const ResourceInfo* r =
      FindResourceByKind(kRbacGroup, expected->object.kind());
  if (r == nullptr) {
    return absl::InternalError(StrCat(
        "bootstrap policy object of unserved kind ", expected->object.kind()));
  }
  auto current = registry.Get(*r, meta.namespace_, meta.name);
  if (absl::IsNotFound(current.status())) {
    auto created =
        registry.Create(*r, meta.namespace_, expected_json, AsApiServer());
    // Created meanwhile by someone else: theirs stands.
    if (absl::IsAlreadyExists(created.status())) return absl::OkStatus();
    return created.status();
  }
  if (!current.ok()) return current.status();
  auto existing = api::DecodeObject(*current);
  if (!existing.ok()) return existing.status();
  api::ObjectMeta& existing_meta = *existing->object.mutable_metadata();
  if (auto it = existing_meta.annotations.find(kAutoUpdate);
      it != existing_meta.annotations.end() && it->second == "false") {
    return absl::OkStatus();
  }
  bool recreate = false;
  const bool changed = std::visit(
      [&](auto& have) {
        using T = std::decay_t<decltype(have)>;
        if constexpr (std::is_same_v<T, api::ClusterRole> ||
                      std::is_same_v<T, api::Role> ||
                      std::is_same_v<T, api::ClusterRoleBinding> ||
                      std::is_same_v<T, api::RoleBinding>) {
          return Reconcile(std::get<T>(expected->object.value), have,
                           &recreate);
        } else {
          return false;
        }
      },
      existing->object.value);
  if (!changed) return absl::OkStatus();
  auto desired = api::EncodeObject(existing->object, "");
  if (!desired.ok()) return desired.status();
  if (recreate) {
    DeleteOptions as_apiserver;
    as_apiserver.user = auth::ApiServerUser();
    if (auto d = registry.Delete(*r, meta.namespace_, meta.name, as_apiserver);
        !d.ok() && !absl::IsNotFound(d.status())) {
      return d.status();
    }
    (*desired)["metadata"].erase("resourceVersion");
    (*desired)["metadata"].erase("uid");
    return registry
        .Create(*r, meta.namespace_, *std::move(desired), AsApiServer())
        .status();
  }
  return registry
      .Update(*r, meta.namespace_, meta.name, *std::move(desired),
              AsApiServer())
      .status();
}

}  // namespace

absl::Status ReconcileBootstrapPolicy(Registry& registry,
                                      const std::vector<api::Json>& additions) {
  api::Json objects = api::Json::parse(BootstrapPolicyObjects());
  for (const api::Json& object : additions) objects.push_back(object);
  for (const api::Json& object : objects) {
    if (auto s = ReconcileOne(registry, object); !s.ok()) {
      return absl::Status(
          s.code(),
          StrCat("reconciling ", object.value("kind", ""), " ",
                 object["metadata"].value("name", ""), ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

namespace {

// One pass; `changed` tells whether it wrote anything.
absl::Status AggregateOnce(Registry& registry, bool* changed) {
  *changed = false;
  const ResourceInfo& r = *FindResource(kRbacGroup, "clusterroles");
  auto list = registry.List(r, ListQuery{});
  if (!list.ok()) return list.status();
  // By name, as the controller's lister sorts them.
  std::map<std::string, api::ClusterRole> roles;
  for (const api::Json& item : list->items) {
    auto decoded = api::DecodeObject(item);
    if (!decoded.ok()) continue;
    if (auto* role = std::get_if<api::ClusterRole>(&decoded->object.value)) {
      roles.emplace(role->metadata.name, std::move(*role));
    }
  }
  for (const auto& [name, role] : roles) {
    if (!role.aggregation_rule.has_value()) continue;
    std::vector<selectors::LabelSelector> selectors;
    for (const api::LabelSelector& s :
         role.aggregation_rule->cluster_role_selectors) {
      auto parsed =
          selectors::LabelSelectorFromJson(api::typed_json::ToJson(s));
      if (parsed.ok()) selectors.push_back(*std::move(parsed));
    }
    std::vector<api::PolicyRule> rules;
    for (const auto& entry : roles) {
      if (entry.first == name) continue;
      const api::ClusterRole& other = entry.second;
      const bool selected = std::any_of(
          selectors.begin(), selectors.end(),
          [&other](const auto& s) { return s.Matches(other.metadata.labels); });
      if (!selected) continue;
      for (const api::PolicyRule& rule : other.rules) {
        if (std::none_of(rules.begin(), rules.end(), [&](const auto& have) {
              return SameRule(have, rule);
            })) {
          rules.push_back(rule);
        }
      }
    }
    if (rules.size() == role.rules.size() &&
        std::equal(rules.begin(), rules.end(), role.rules.begin(), SameRule)) {
      continue;
    }
    auto written = registry.Modify(
        r, "", name,
        [&rules](const api::Json& current) -> absl::StatusOr<api::Json> {
          api::Json desired = current;
          api::Json list = api::Json::array();
          for (const api::PolicyRule& rule : rules) {
            list.push_back(api::typed_json::ToJson(rule));
          }
          desired["rules"] = std::move(list);
          return desired;
        },
        AsApiServer());
    if (!written.ok() && !absl::IsNotFound(written.status())) {
      return written.status();
    }
    *changed = true;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status AggregateClusterRoles(Registry& registry) {
  // An aggregated role may select another (admin selects edit, which
  // selects view): passes until nothing changes, as the controller
  // requeues every aggregated role when a ClusterRole changes. Bounded,
  // in case selections form a cycle that never settles.
  constexpr int kMaxPasses = 16;
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    bool changed = false;
    if (auto s = AggregateOnce(registry, &changed); !s.ok()) return s;
    if (!changed) return absl::OkStatus();
  }
  return absl::OkStatus();
}

}  // namespace draplane::apiserver::internal
