#include "auth/rbac.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_join.h"
#include "auth/rule_resolver.h"
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
    std::string allowed_by;
    VisitRulesFor(
        *source_->Current(), a.user, a.namespace_,
        [&a, &allowed_by](const PolicyRule& rule, const Binding& b,
                          const Subject& s) {
          if (!RuleAllows(a, rule)) return true;
          allowed_by = DescribeSource(b, s);
          return false;
        },
        &errors);
    if (!allowed_by.empty()) {
      return {Decision::kAllow, StrCat("RBAC: allowed by ", allowed_by)};
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

class Chain final : public Authorizer {
 public:
  explicit Chain(std::vector<std::unique_ptr<Authorizer>> chain)
      : chain_(std::move(chain)) {}

  Authorization Authorize(const RequestAttributes& a) const override {
    if (a.user.InGroup(kSystemPrivilegedGroup)) return {Decision::kAllow, ""};
    std::vector<std::string> reasons;
    for (const std::unique_ptr<Authorizer>& authorizer : chain_) {
      Authorization decision = authorizer->Authorize(a);
      if (decision.decision != Decision::kNoOpinion) return decision;
      if (!decision.reason.empty()) {
        reasons.push_back(std::move(decision.reason));
      }
    }
    return {Decision::kNoOpinion, absl::StrJoin(reasons, "\n")};
  }

 private:
  const std::vector<std::unique_ptr<Authorizer>> chain_;
};

std::unique_ptr<Authorizer> NewAuthorizerChain(
    std::vector<std::unique_ptr<Authorizer>> chain) {
  return std::make_unique<Chain>(std::move(chain));
}

std::unique_ptr<Authorizer> NewAlwaysAllowAuthorizer() {
  return std::make_unique<AlwaysAllow>();
}

std::unique_ptr<Authorizer> NewRbacAuthorizer(const PolicySource* source) {
  return std::make_unique<Rbac>(source);
}

}  // namespace draplane::auth
