// Authorization: k8s.io/apiserver's Authorizer contract, the privileged
// group that bypasses it, and the RBAC authorizer of
// plugin/pkg/auth/authorizer/rbac over a source of roles and bindings.
#ifndef DRAPLANE_AUTH_RBAC_H_
#define DRAPLANE_AUTH_RBAC_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "auth/policy.h"
#include "auth/request_attributes.h"

namespace draplane::auth {

// Whether `rule` allows the request (upstream's RuleAllows): verbs and API
// groups match exactly or by "*"; resources by "*", exactly
// ("pods/status" for a subresource) or by "*/<subresource>"; resource
// names, when listed, exactly; non-resource URLs exactly, by "*" or by a
// trailing "*" prefix.
bool RuleAllows(const RequestAttributes& a, const PolicyRule& rule);

// Where the RBAC authorizer reads roles and bindings: the current
// snapshot, never null. Implementations are safe to call concurrently.
class PolicySource {
 public:
  virtual ~PolicySource() = default;
  virtual std::shared_ptr<const PolicySnapshot> Current() const = 0;
};

// A PolicySource over a fixed policy.
class StaticPolicySource final : public PolicySource {
 public:
  explicit StaticPolicySource(Policy policy)
      : snapshot_(std::make_shared<const PolicySnapshot>(std::move(policy))) {}
  std::shared_ptr<const PolicySnapshot> Current() const override {
    return snapshot_;
  }

 private:
  const std::shared_ptr<const PolicySnapshot> snapshot_;
};

enum class Decision { kDeny, kAllow, kNoOpinion };

struct Authorization {
  Decision decision = Decision::kNoOpinion;
  // Why, for a refusal's message ("" when nothing to add).
  std::string reason;
};

class Authorizer {
 public:
  virtual ~Authorizer() = default;
  virtual Authorization Authorize(const RequestAttributes& a) const = 0;
};

// Allows every request: the library default for servers built in tests,
// as kube-apiserver's AlwaysAllow mode. Never used by `draplane server`.
std::unique_ptr<Authorizer> NewAlwaysAllowAuthorizer();

// kube-apiserver's authorization chain for --authorization-mode=RBAC:
// members of system:masters are allowed everything; otherwise a rule of a
// role bound to the user (cluster-wide, or in the request's namespace)
// must allow the request, else NoOpinion, which the server refuses. A
// binding whose role is missing is skipped and named in the reason
// ("RBAC: clusterrole.rbac.authorization.k8s.io \"x\" not found").
// `source` outlives the authorizer.
std::unique_ptr<Authorizer> NewRbacAuthorizer(const PolicySource* source);

// kube-apiserver's chain (union.go): asks each authorizer in turn; the
// first Allow or Deny decides, with its reason; when all have no opinion,
// NoOpinion with their non-empty reasons joined by newlines. Members of
// system:masters are allowed before any authorizer is asked.
std::unique_ptr<Authorizer> NewAuthorizerChain(
    std::vector<std::unique_ptr<Authorizer>> chain);

}  // namespace draplane::auth

#endif  // DRAPLANE_AUTH_RBAC_H_
