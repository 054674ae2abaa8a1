// Keeps device allocations exclusive across ResourceClaims (draplane
// beyond upstream, where the API server accepts any allocation): a claim
// status write whose allocation takes a device that another claim holds
// exclusively is refused with 409 Conflict, so several schedulers (or a
// scheduler and a stale leader) can never hand one device out twice.
// Admin-access results and shared results (shareID) are not exclusive.
//
// A claim write Reserve()s its devices before its store write and tells
// the guard how the write ended (Reservation::Committed, or destroying the
// reservation when it failed). A device reserved by one claim's write in
// flight is refused to every other claim until that write ends, so the
// guard's lock is never held across a store write: claim writes share the
// store's group commits instead of taking turns at the disk.
//
// The index of committed holders is built from the store when the guard is
// created (again on the next write if that read failed) and is only a hint:
// a conflicting committed holder is re-read from the store before a write
// is refused. Each claim's entry is applied in revision order, so writes
// that end out of order leave the newest allocation in the index.
#ifndef DRAPLANE_APISERVER_INTERNAL_ALLOCATION_GUARD_H_
#define DRAPLANE_APISERVER_INTERNAL_ALLOCATION_GUARD_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "api/meta_types.h"
#include "store/store.h"

namespace draplane::apiserver::internal {

class AllocationGuard {
 public:
  // One claim write's hold on the devices it allocates. Movable; destroying
  // it without Committed() ends the write as failed (nothing changes).
  class Reservation {
   public:
    Reservation() = default;
    Reservation(Reservation&& other) noexcept;
    Reservation& operator=(Reservation&& other) noexcept;
    ~Reservation();

    // The write was stored at `revision`; `object` is the claim as stored
    // (null: the write deleted the claim).
    void Committed(int64_t revision, const api::Json* object);

   private:
    friend class AllocationGuard;
    void End(int64_t revision, const api::Json* object);

    AllocationGuard* guard_ = nullptr;  // null: ended or empty
    std::string key_;
    std::vector<std::string> devices_;
  };

  // The guard of `store`: one per store, shared by every API server over
  // it (the standalone server runs two, with and without authentication),
  // so that their claim writes are checked together.
  static std::shared_ptr<AllocationGuard> ForStore(store::Store* store);

  // `claims_prefix`: the store prefix of ResourceClaims. Reads every claim
  // in `store`.
  AllocationGuard(store::Store* store, std::string claims_prefix);

  // Before a write of the claim `key` that stores `object` (null: deletes
  // the claim): the reservation of its exclusive devices, or
  // FailedPrecondition "device D is already allocated to claim ns/name"
  // when another claim holds D, or "... is being allocated to claim
  // ns/name" when another claim's write with D has not ended yet. The
  // reservation must end before the guard is destroyed.
  absl::StatusOr<Reservation> Reserve(const std::string& key,
                                      const api::Json* object);

  // For tests: the claim key holding `device` ("driver/pool/device") as
  // far as the index knows, committed or reserved; "" when none.
  std::string HolderForTest(const std::string& device);

 private:
  struct Claim {
    std::vector<std::string> devices;  // committed, as of `revision`
    int64_t revision = 0;
    int writes = 0;  // reservations not ended
  };
  struct Reserved {
    std::string key;  // the claim whose writes reserved the device
    int writes = 0;
  };

  void LoadLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Sets `key`'s committed devices as of `revision` unless the index
  // already has a newer revision of it.
  void SetLocked(const std::string& key, int64_t revision,
                 std::vector<std::string> devices)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DropIfUnusedLocked(const std::string& key)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void EndLocked(const std::string& key,
                 const std::vector<std::string>& devices, int64_t revision,
                 const api::Json* object) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  store::Store* store_;
  std::string prefix_;
  absl::Mutex mu_;  // guards everything below
  bool loaded_ ABSL_GUARDED_BY(mu_) = false;
  std::map<std::string, std::string, std::less<>> holder_
      ABSL_GUARDED_BY(mu_);  // device -> claim
  std::map<std::string, Claim, std::less<>> claims_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Reserved, std::less<>> reserved_
      ABSL_GUARDED_BY(mu_);  // device -> writes
};

// The exclusively allocated devices ("driver/pool/device") of a claim
// object (JSON as stored).
std::vector<std::string> ExclusiveDevices(const api::Json& claim);

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_ALLOCATION_GUARD_H_
