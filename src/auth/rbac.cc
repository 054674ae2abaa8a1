#include "auth/rbac.h"

#include <algorithm>
#include <utility>

#include "common/str_cat.h"

namespace draplane::auth {
namespace {

bool Has(const std::vector<std::string>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

bool HasOrAll(const std::vector<std::string>& list, std::string_view value) {
  return Has(list, "*") || Has(list, value);
}

bool ResourceMatches(const PolicyRule& rule, std::string_view combined,
                     std::string_view subresource) {
  for (const std::string& r : rule.resources) {
    if (r == "*" || r == combined) return true;
    if (subresource.empty()) continue;
    if (r.size() == subresource.size() + 2 && r.compare(0, 2, "*/") == 0 &&
        std::string_view(r).substr(2) == subresource) {
      return true;
    }
  }
  return false;
}

bool NonResourceUrlMatches(const PolicyRule& rule, std::string_view path) {
  for (const std::string& u : rule.non_resource_urls) {
    if (u == "*" || u == path) return true;
    if (!u.empty() && u.back() == '*' &&
        path.substr(0, u.size() - 1) ==
            std::string_view(u).substr(0, u.size() - 1)) {
      return true;
    }
  }
  return false;
}

class AlwaysAllow final : public Authorizer {
 public:
  Authorization Authorize(const RequestAttributes&) const override {
    return {Decision::kAllow, ""};
  }
};

class Rbac final : public Authorizer {
 public:
  explicit Rbac(const PolicySource* source) : source_(source) {}

  Authorization Authorize(const RequestAttributes& a) const override {
    if (a.user.InGroup(kSystemPrivilegedGroup)) return {Decision::kAllow, ""};
    std::vector<std::string> errors;
    for (const auto& b : source_->ClusterRoleBindings()) {
      if (Allows(*b, a, errors)) return {Decision::kAllow, ""};
    }
    if (!a.namespace_.empty()) {
      for (const auto& b : source_->RoleBindings(a.namespace_)) {
        if (Allows(*b, a, errors)) return {Decision::kAllow, ""};
      }
    }
    std::string reason;
    if (!errors.empty()) {
      reason = "RBAC: ";
      if (errors.size() > 1) reason += "[";
      for (size_t i = 0; i < errors.size(); ++i) {
        StrAppend(&reason, i ? ", " : "", errors[i]);
      }
      if (errors.size() > 1) reason += "]";
    }
    return {Decision::kNoOpinion, std::move(reason)};
  }

 private:
  bool Allows(const Binding& b, const RequestAttributes& a,
              std::vector<std::string>& errors) const {
    bool named = false;
    for (const Subject& s : b.subjects) {
      Subject subject = s;
      // A RoleBinding's ServiceAccount subject defaults to its namespace.
      if (subject.kind == "ServiceAccount" && subject.namespace_.empty()) {
        subject.namespace_ = b.namespace_;
      }
      if (SubjectMatches(subject, a.user)) {
        named = true;
        break;
      }
    }
    if (!named) return false;
    std::shared_ptr<const std::vector<PolicyRule>> rules;
    if (b.role_ref.kind == "ClusterRole") {
      rules = source_->ClusterRoleRules(b.role_ref.name);
      if (rules == nullptr) {
        errors.push_back(StrCat("clusterrole.rbac.authorization.k8s.io \"",
                                b.role_ref.name, "\" not found"));
      }
    } else if (b.role_ref.kind == "Role" && !b.namespace_.empty()) {
      rules = source_->RoleRules(b.namespace_, b.role_ref.name);
      if (rules == nullptr) {
        errors.push_back(StrCat("role.rbac.authorization.k8s.io \"",
                                b.role_ref.name, "\" not found"));
      }
    }
    if (rules == nullptr) return false;
    for (const PolicyRule& rule : *rules) {
      if (RuleAllows(a, rule)) return true;
    }
    return false;
  }

  const PolicySource* source_;
};

}  // namespace

bool RuleAllows(const RequestAttributes& a, const PolicyRule& rule) {
  if (!HasOrAll(rule.verbs, a.verb)) return false;
  if (!a.resource_request) return NonResourceUrlMatches(rule, a.path);
  std::string combined = a.resource;
  if (!a.subresource.empty()) StrAppend(&combined, "/", a.subresource);
  return HasOrAll(rule.api_groups, a.api_group) &&
         ResourceMatches(rule, combined, a.subresource) &&
         (rule.resource_names.empty() || Has(rule.resource_names, a.name));
}

bool SubjectMatches(const Subject& subject, const UserInfo& user) {
  if (subject.kind == "User") return subject.name == user.name;
  if (subject.kind == "Group") return user.InGroup(subject.name);
  if (subject.kind == "ServiceAccount") {
    return user.name == StrCat("system:serviceaccount:", subject.namespace_,
                               ":", subject.name);
  }
  return false;
}

std::unique_ptr<Authorizer> NewAlwaysAllowAuthorizer() {
  return std::make_unique<AlwaysAllow>();
}

std::unique_ptr<Authorizer> NewRbacAuthorizer(const PolicySource* source) {
  return std::make_unique<Rbac>(source);
}

}  // namespace draplane::auth
