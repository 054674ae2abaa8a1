#include "auth/rule_resolver.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "common/go_strconv.h"
#include "common/str_cat.h"

namespace draplane::auth {
namespace {

bool Has(const std::vector<std::string>& set, std::string_view e) {
  return std::find(set.begin(), set.end(), e) != set.end();
}

bool HasAll(const std::vector<std::string>& set,
            const std::vector<std::string>& contains) {
  return std::all_of(contains.begin(), contains.end(),
                     [&set](const std::string& e) { return Has(set, e); });
}

bool ResourceCoversAll(const std::vector<std::string>& set,
                       const std::vector<std::string>& covers) {
  if (Has(set, "*") || HasAll(set, covers)) return true;
  for (const std::string& path : covers) {
    if (Has(set, path)) continue;
    const size_t slash = path.find('/');
    if (slash == std::string::npos) return false;
    if (!Has(set, StrCat("*/", std::string_view(path).substr(slash + 1)))) {
      return false;
    }
  }
  return true;
}

bool NonResourceUrlCovers(std::string_view owner, std::string_view sub) {
  if (owner == sub) return true;
  if (owner.empty() || owner.back() != '*') return false;
  std::string_view prefix = owner;
  while (!prefix.empty() && prefix.back() == '*') prefix.remove_suffix(1);
  return sub.substr(0, prefix.size()) == prefix;
}

bool NonResourceUrlsCoverAll(const std::vector<std::string>& set,
                             const std::vector<std::string>& covers) {
  return std::all_of(covers.begin(), covers.end(), [&set](const auto& path) {
    return std::any_of(set.begin(), set.end(), [&path](const auto& owner) {
      return NonResourceUrlCovers(owner, path);
    });
  });
}

bool RuleCovers(const PolicyRule& owner, const PolicyRule& sub) {
  const bool verbs = Has(owner.verbs, "*") || HasAll(owner.verbs, sub.verbs);
  const bool groups =
      Has(owner.api_groups, "*") || HasAll(owner.api_groups, sub.api_groups);
  const bool names = owner.resource_names.empty() ||
                     (!sub.resource_names.empty() &&
                      HasAll(owner.resource_names, sub.resource_names));
  return verbs && groups && ResourceCoversAll(owner.resources, sub.resources) &&
         names &&
         NonResourceUrlsCoverAll(owner.non_resource_urls,
                                 sub.non_resource_urls);
}

std::vector<PolicyRule> BreakdownRule(const PolicyRule& rule) {
  std::vector<PolicyRule> out;
  for (const std::string& group : rule.api_groups) {
    for (const std::string& resource : rule.resources) {
      for (const std::string& verb : rule.verbs) {
        if (rule.resource_names.empty()) {
          out.push_back({{verb}, {group}, {resource}, {}, {}});
        }
        for (const std::string& name : rule.resource_names) {
          out.push_back({{verb}, {group}, {resource}, {name}, {}});
        }
      }
    }
  }
  for (const std::string& url : rule.non_resource_urls) {
    for (const std::string& verb : rule.verbs) {
      out.push_back({{verb}, {}, {}, {}, {url}});
    }
  }
  return out;
}

// Go's %q of a []string: ["a" "b"].
std::string GoQuoted(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    StrAppend(&out, i ? " " : "", StrconvQuote(v[i]));
  }
  out += "]";
  return out;
}

}  // namespace

absl::Status RoleReferenceRules(const PolicySnapshot& policy,
                                const RoleRef& ref, std::string_view ns,
                                std::vector<PolicyRule>* rules) {
  const std::vector<PolicyRule>* found = nullptr;
  if (ref.kind == "ClusterRole") {
    found = policy.ClusterRoleRules(ref.name);
    if (found == nullptr) {
      return absl::NotFoundError(
          StrCat("clusterrole.rbac.authorization.k8s.io \"", ref.name,
                 "\" not found"));
    }
  } else if (ref.kind == "Role") {
    found = policy.RoleRules(ns, ref.name);
    if (found == nullptr) {
      return absl::NotFoundError(StrCat("role.rbac.authorization.k8s.io \"",
                                        ref.name, "\" not found"));
    }
  } else {
    return absl::InvalidArgumentError(
        StrCat("unsupported role reference kind: \"", ref.kind, "\""));
  }
  *rules = *found;
  return absl::OkStatus();
}

void VisitRulesFor(const PolicySnapshot& policy, const UserInfo& user,
                   std::string_view ns,
                   const std::function<bool(const PolicyRule&, const Binding&,
                                            const Subject&)>& visit,
                   std::vector<std::string>* errors) {
  // Returns false once `visit` asks to stop.
  auto visit_binding = [&](const Binding& b, std::string_view binding_ns) {
    const Subject* named = nullptr;
    Subject subject;
    for (const Subject& s : b.subjects) {
      subject = s;
      // A RoleBinding's ServiceAccount subject defaults to its namespace.
      if (subject.kind == "ServiceAccount" && subject.namespace_.empty()) {
        subject.namespace_ = std::string(binding_ns);
      }
      if (SubjectMatches(subject, user)) {
        named = &subject;
        break;
      }
    }
    if (named == nullptr) return true;
    const std::vector<PolicyRule>* rules = nullptr;
    if (b.role_ref.kind == "ClusterRole") {
      rules = policy.ClusterRoleRules(b.role_ref.name);
    } else if (b.role_ref.kind == "Role" && !binding_ns.empty()) {
      rules = policy.RoleRules(binding_ns, b.role_ref.name);
    }
    if (rules == nullptr) {
      if (errors != nullptr) {
        errors->push_back(StrCat(
            b.role_ref.kind == "ClusterRole" ? "clusterrole" : "role",
            ".rbac.authorization.k8s.io \"", b.role_ref.name, "\" not found"));
      }
      return true;
    }
    for (const PolicyRule& rule : *rules) {
      if (!visit(rule, b, *named)) return false;
    }
    return true;
  };
  for (const Binding& b : policy.ClusterRoleBindings()) {
    if (!visit_binding(b, "")) return;
  }
  if (ns.empty()) return;
  for (const Binding& b : policy.RoleBindings(ns)) {
    if (!visit_binding(b, ns)) return;
  }
}

std::string DescribeSource(const Binding& binding, const Subject& subject) {
  const std::string who =
      subject.kind == "ServiceAccount"
          ? StrCat(subject.kind, " ",
                   StrconvQuote(StrCat(subject.name, "/", subject.namespace_)))
          : StrCat(subject.kind, " ", StrconvQuote(subject.name));
  return StrCat(
      binding.namespace_.empty() ? "ClusterRoleBinding " : "RoleBinding ",
      StrconvQuote(binding.namespace_.empty()
                       ? binding.name
                       : StrCat(binding.name, "/", binding.namespace_)),
      " of ", binding.role_ref.kind, " ", StrconvQuote(binding.role_ref.name),
      " to ", who);
}

std::vector<PolicyRule> RulesFor(const PolicySnapshot& policy,
                                 const UserInfo& user, std::string_view ns,
                                 std::vector<std::string>* errors) {
  std::vector<PolicyRule> rules;
  VisitRulesFor(
      policy, user, ns,
      [&rules](const PolicyRule& r, const Binding&, const Subject&) {
        rules.push_back(r);
        return true;
      },
      errors);
  return rules;
}

std::vector<PolicyRule> UncoveredRules(const std::vector<PolicyRule>& owner,
                                       const std::vector<PolicyRule>& servant) {
  std::vector<PolicyRule> uncovered;
  for (const PolicyRule& rule : servant) {
    for (PolicyRule& sub : BreakdownRule(rule)) {
      const bool covered = std::any_of(
          owner.begin(), owner.end(),
          [&sub](const PolicyRule& o) { return RuleCovers(o, sub); });
      if (!covered) uncovered.push_back(std::move(sub));
    }
  }
  return uncovered;
}

std::vector<PolicyRule> CompactRules(const std::vector<PolicyRule>& rules) {
  std::vector<PolicyRule> compacted;
  // (group, resource, has a name, name) -> index in `simple`.
  std::map<std::tuple<std::string, std::string, bool, std::string>, size_t>
      index;
  std::vector<PolicyRule> simple;
  for (const PolicyRule& rule : rules) {
    const bool is_simple =
        rule.resource_names.size() <= 1 && rule.non_resource_urls.empty() &&
        rule.api_groups.size() == 1 && rule.resources.size() == 1;
    if (!is_simple) {
      compacted.push_back(rule);
      continue;
    }
    auto key = std::make_tuple(
        rule.api_groups[0], rule.resources[0], !rule.resource_names.empty(),
        rule.resource_names.empty() ? std::string() : rule.resource_names[0]);
    auto [it, inserted] = index.emplace(std::move(key), simple.size());
    if (inserted) {
      simple.push_back(rule);
    } else {
      std::vector<std::string>& verbs = simple[it->second].verbs;
      verbs.insert(verbs.end(), rule.verbs.begin(), rule.verbs.end());
    }
  }
  compacted.insert(compacted.end(), simple.begin(), simple.end());
  return compacted;
}

std::string CompactString(const PolicyRule& rule) {
  std::vector<std::string> parts;
  if (!rule.api_groups.empty()) {
    parts.push_back(StrCat("APIGroups:", GoQuoted(rule.api_groups)));
  }
  if (!rule.resources.empty()) {
    parts.push_back(StrCat("Resources:", GoQuoted(rule.resources)));
  }
  if (!rule.non_resource_urls.empty()) {
    parts.push_back(
        StrCat("NonResourceURLs:", GoQuoted(rule.non_resource_urls)));
  }
  if (!rule.resource_names.empty()) {
    parts.push_back(StrCat("ResourceNames:", GoQuoted(rule.resource_names)));
  }
  if (!rule.verbs.empty()) {
    parts.push_back(StrCat("Verbs:", GoQuoted(rule.verbs)));
  }
  std::string out = "{";
  for (size_t i = 0; i < parts.size(); ++i) {
    StrAppend(&out, i ? ", " : "", parts[i]);
  }
  out += "}";
  return out;
}

absl::Status ConfirmNoEscalation(const PolicySnapshot& policy,
                                 const UserInfo& user, std::string_view ns,
                                 const std::vector<PolicyRule>& rules) {
  std::vector<std::string> errors;
  const std::vector<PolicyRule> owner = RulesFor(policy, user, ns, &errors);
  const std::vector<PolicyRule> missing = UncoveredRules(owner, rules);
  if (missing.empty()) return absl::OkStatus();
  std::set<std::string> descriptions;  // sorted, as sets.String.List()
  for (const PolicyRule& r : CompactRules(missing)) {
    descriptions.insert(CompactString(r));
  }
  std::string msg = StrCat("user ", StrconvQuote(user.name),
                           " (groups=", GoQuoted(user.groups),
                           ") is attempting to grant RBAC permissions not "
                           "currently held:");
  for (const std::string& d : descriptions) StrAppend(&msg, "\n", d);
  if (!errors.empty()) {
    // fmt %v of []error{aggregate}: [e] or [[e1, e2]].
    std::string agg;
    for (size_t i = 0; i < errors.size(); ++i) {
      StrAppend(&agg, i ? ", " : "", errors[i]);
    }
    if (errors.size() > 1) agg = StrCat("[", agg, "]");
    StrAppend(&msg, "; resolution errors: [", agg, "]");
  }
  return absl::PermissionDeniedError(msg);
}

}  // namespace draplane::auth
