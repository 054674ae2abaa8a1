// The RBAC policy the authorizer reads, from the stored Roles,
// ClusterRoles, RoleBindings and ClusterRoleBindings (kube-apiserver reads
// them from its informers' caches).
#ifndef DRAPLANE_APISERVER_INTERNAL_RBAC_POLICY_H_
#define DRAPLANE_APISERVER_INTERNAL_RBAC_POLICY_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "api/rbac_types.h"
#include "apiserver/internal/registry.h"
#include "auth/policy.h"
#include "auth/rbac.h"
#include "store/store.h"

namespace draplane::apiserver::internal {

// A snapshot of the stored policy, rebuilt on first use after any RBAC
// object changes: a store watch marks it stale under the writing
// transaction's lock, so a request that follows a write sees the write.
class StoredPolicy final : public auth::PolicySource {
 public:
  // `registry` outlives the policy.
  static absl::StatusOr<std::unique_ptr<StoredPolicy>> Start(
      Registry* registry);

  std::shared_ptr<const auth::PolicySnapshot> Current() const override;
  // Counts the writes to RBAC objects since Start: unchanged means the
  // stored policy is unchanged.
  int64_t Changes() const { return changes_.load(); }

 private:
  explicit StoredPolicy(Registry* registry) : registry_(registry) {}
  std::shared_ptr<const auth::PolicySnapshot> Build() const;

  Registry* const registry_;
  std::vector<std::unique_ptr<store::Watch>> watches_;
  mutable std::atomic<bool> stale_{true};
  std::atomic<int64_t> changes_{0};
  mutable absl::Mutex mu_;
  mutable std::shared_ptr<const auth::PolicySnapshot> current_
      ABSL_GUARDED_BY(mu_);
};

// The auth forms of stored RBAC objects (v1 JSON); false when `object` is
// not one of the four kinds or does not decode.
bool AddToPolicy(const api::Json& object, auth::Policy& policy);

// The authorizer's form of a role's rules.
std::vector<auth::PolicyRule> AuthRules(const std::vector<api::PolicyRule>& in);

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_RBAC_POLICY_H_
