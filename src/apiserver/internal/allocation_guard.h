// Keeps device allocations exclusive across ResourceClaims (draplane
// beyond upstream, where the API server accepts any allocation): a claim
// status write whose allocation takes a device that another claim holds
// exclusively is refused with 409 Conflict, so several schedulers (or a
// scheduler and a stale leader) can never hand one device out twice.
// Admin-access results and shared results (shareID) are not exclusive.
//
// Allocation writes are serialised: the registry holds Lock() across
// Check(), the store write and Record(). The device index is built from
// the store when the guard is created (again on the next write if that
// read failed) and is only a hint: a conflicting holder is re-read from
// the store before a write is refused.
#ifndef DRAPLANE_APISERVER_INTERNAL_ALLOCATION_GUARD_H_
#define DRAPLANE_APISERVER_INTERNAL_ALLOCATION_GUARD_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "api/meta_types.h"
#include "store/store.h"

namespace draplane::apiserver::internal {

class AllocationGuard {
 public:
  // The guard of `store`: one per store, shared by every API server over
  // it (the standalone server runs two, with and without authentication),
  // so that their claim writes are serialised together.
  static std::shared_ptr<AllocationGuard> ForStore(store::Store* store);

  // `claims_prefix`: the store prefix of ResourceClaims. Reads every claim
  // in `store`.
  AllocationGuard(store::Store* store, std::string claims_prefix);

  std::unique_lock<std::mutex> Lock() {
    return std::unique_lock<std::mutex>(mu_);
  }
  // With the lock held: OK when `object` (the claim about to be stored
  // under `key`) holds no device another claim holds exclusively; else
  // FailedPrecondition "device D is already allocated to claim ns/name".
  absl::Status Check(const std::string& key, const api::Json& object);
  // With the lock held, after the write of `object` under `key` (null
  // object: the claim was deleted).
  void Record(const std::string& key, const api::Json* object);

 private:
  void LoadLocked();
  void SetLocked(const std::string& key, std::vector<std::string> devices);

  store::Store* store_;
  std::string prefix_;
  std::mutex mu_;
  bool loaded_ = false;
  std::map<std::string, std::string> holder_;  // device -> claim key
  std::map<std::string, std::vector<std::string>> devices_;  // claim -> devices
};

// The exclusively allocated devices ("driver/pool/device") of a claim
// object (JSON as stored).
std::vector<std::string> ExclusiveDevices(const api::Json& claim);

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_ALLOCATION_GUARD_H_
