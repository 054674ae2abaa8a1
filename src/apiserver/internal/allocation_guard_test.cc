#include "apiserver/internal/allocation_guard.h"

#include <atomic>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/str_cat.h"
#include "gtest/gtest.h"
#include "store/store.h"

namespace draplane::apiserver::internal {
namespace {

constexpr char kPrefix[] = "/registry/resource.k8s.io/resourceclaims/";

std::string ClaimKey(const std::string& name) {
  return std::string(kPrefix) + "ns/" + name;
}

// A claim allocated the devices of node-1 named in `devices` (JSON as
// stored); `flag` ("adminAccess" or "shareID") marks every result with it.
api::Json Claim(const std::vector<std::string>& devices,
                const std::string& flag = "") {
  api::Json results = api::Json::array();
  for (const std::string& d : devices) {
    api::Json r = {{"request", "gpu"},
                   {"driver", "gpu.example.com"},
                   {"pool", "node-1"},
                   {"device", d}};
    if (flag == "adminAccess") r["adminAccess"] = true;
    if (flag == "shareID") r["shareID"] = "7d3a";
    results.push_back(std::move(r));
  }
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceClaim"},
          {"status", {{"allocation", {{"devices", {{"results", results}}}}}}}};
}

std::string Device(const std::string& d) {
  return "gpu.example.com/node-1/" + d;
}

class AllocationGuardTest : public ::testing::Test {
 protected:
  // Stores `object` under claim `name` and returns the write's revision.
  int64_t Store(const std::string& name, const api::Json& object) {
    const std::string key = ClaimKey(name);
    auto existing = store_->Get(key, 0);
    auto rec = existing.ok() ? store_->Update(key, object.dump(), 0)
                             : store_->Create(key, object.dump());
    EXPECT_TRUE(rec.ok()) << rec.status();
    return rec.ok() ? rec->mod_revision : 0;
  }

  // A write of claim `name` as the registry makes it: reserved, stored,
  // committed.
  void WriteThrough(AllocationGuard& guard, const std::string& name,
                    const api::Json& object) {
    auto reservation = guard.Reserve(ClaimKey(name), &object);
    ASSERT_TRUE(reservation.ok()) << reservation.status();
    reservation->Committed(Store(name, object), &object);
  }

  std::unique_ptr<store::Store> store_ = store::NewMemoryStore();
};

TEST_F(AllocationGuardTest, AWriteInFlightHoldsItsDevicesUntilItEnds) {
  AllocationGuard guard(store_.get(), kPrefix);
  const api::Json a = Claim({"gpu-0", "gpu-1"});
  auto first = guard.Reserve(ClaimKey("a"), &a);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(guard.HolderForTest(Device("gpu-1")), ClaimKey("a"));

  const api::Json b = Claim({"gpu-1"});
  auto refused = guard.Reserve(ClaimKey("b"), &b);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "device gpu.example.com/node-1/gpu-1 is being allocated to claim "
            "ns/a");
  // A second write of the same claim may take the same devices.
  auto again = guard.Reserve(ClaimKey("a"), &a);
  ASSERT_TRUE(again.ok()) << again.status();

  // Both of a's writes fail (a reservation ended by assignment or
  // destruction, without Committed): the devices are free again once the
  // last one ends.
  *first = AllocationGuard::Reservation();
  EXPECT_FALSE(guard.Reserve(ClaimKey("b"), &b).ok());
  *again = AllocationGuard::Reservation();
  EXPECT_EQ(guard.HolderForTest(Device("gpu-1")), "");
  auto taken = guard.Reserve(ClaimKey("b"), &b);
  EXPECT_TRUE(taken.ok()) << taken.status();
}

TEST_F(AllocationGuardTest, ACommittedAllocationIsRefusedWhileTheStoreHasIt) {
  AllocationGuard guard(store_.get(), kPrefix);
  const api::Json a = Claim({"gpu-0"});
  WriteThrough(guard, "a", a);
  EXPECT_EQ(guard.HolderForTest(Device("gpu-0")), ClaimKey("a"));
  const api::Json b = Claim({"gpu-0"});
  auto refused = guard.Reserve(ClaimKey("b"), &b);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "device gpu.example.com/node-1/gpu-0 is already allocated to "
            "claim ns/a");
  // The claim loses its allocation behind the guard's back (the index is a
  // hint): the store is re-read and the write goes through.
  Store("a", Claim({}));
  auto taken = guard.Reserve(ClaimKey("b"), &b);
  EXPECT_TRUE(taken.ok()) << taken.status();
}

TEST_F(AllocationGuardTest, WritesEndingOutOfOrderLeaveTheNewestAllocation) {
  AllocationGuard guard(store_.get(), kPrefix);
  const api::Json allocated = Claim({"gpu-0"});
  const api::Json deallocated = Claim({});
  auto allocate = guard.Reserve(ClaimKey("a"), &allocated);
  ASSERT_TRUE(allocate.ok());
  const int64_t allocated_at = Store("a", allocated);
  auto deallocate = guard.Reserve(ClaimKey("a"), &deallocated);
  ASSERT_TRUE(deallocate.ok());
  const int64_t deallocated_at = Store("a", deallocated);
  // The later write ends first; the earlier one's end must not bring the
  // allocation back.
  deallocate->Committed(deallocated_at, &deallocated);
  allocate->Committed(allocated_at, &allocated);
  EXPECT_EQ(guard.HolderForTest(Device("gpu-0")), "");
  const api::Json b = Claim({"gpu-0"});
  EXPECT_TRUE(guard.Reserve(ClaimKey("b"), &b).ok());
}

TEST_F(AllocationGuardTest, DeletingAClaimFreesItsDevices) {
  AllocationGuard guard(store_.get(), kPrefix);
  const api::Json a = Claim({"gpu-0"});
  WriteThrough(guard, "a", a);
  {
    auto deletion = guard.Reserve(ClaimKey("a"), nullptr);
    ASSERT_TRUE(deletion.ok());
    auto deleted = store_->Delete(ClaimKey("a"), 0);
    ASSERT_TRUE(deleted.ok());
    deletion->Committed(deleted->mod_revision, nullptr);
  }
  EXPECT_EQ(guard.HolderForTest(Device("gpu-0")), "");
}

TEST_F(AllocationGuardTest, TheIndexStartsFromTheStore) {
  Store("a", Claim({"gpu-0"}));
  Store("admin", Claim({"gpu-1"}, "adminAccess"));
  Store("shared", Claim({"gpu-2"}, "shareID"));
  AllocationGuard guard(store_.get(), kPrefix);
  EXPECT_EQ(guard.HolderForTest(Device("gpu-0")), ClaimKey("a"));
  // Admin access and shared results hold nothing exclusively.
  EXPECT_EQ(guard.HolderForTest(Device("gpu-1")), "");
  EXPECT_EQ(guard.HolderForTest(Device("gpu-2")), "");
  const api::Json b = Claim({"gpu-0"});
  EXPECT_FALSE(guard.Reserve(ClaimKey("b"), &b).ok());
  const api::Json c = Claim({"gpu-1", "gpu-2"});
  EXPECT_TRUE(guard.Reserve(ClaimKey("c"), &c).ok());
}

// Claims racing for few devices, each write through the guard as the
// registry makes it (reserve, store write, end): no snapshot of the store
// ever shows a device in two claims' allocations.
TEST_F(AllocationGuardTest, RacingClaimWritesNeverShareADevice) {
  AllocationGuard guard(store_.get(), kPrefix);
  constexpr int kClaims = 6;
  constexpr int kDevices = 3;
  for (int c = 0; c < kClaims; ++c) Store(StrCat("c", c), Claim({}));
  std::atomic<int> allocations{0};
  std::atomic<bool> shared{false};
  auto check = [&] {
    store::ListOptions options;
    options.prefix = kPrefix;
    auto list = store_->List(options);
    ASSERT_TRUE(list.ok());
    std::set<std::string> held;
    for (const store::Record& rec : list->records) {
      for (const std::string& d :
           ExclusiveDevices(api::Json::parse(*rec.value))) {
        if (!held.insert(d).second) shared = true;
      }
    }
  };
  std::vector<std::thread> writers;
  for (int c = 0; c < kClaims; ++c) {
    writers.emplace_back([&, c] {
      const std::string key = ClaimKey(StrCat("c", c));
      for (int i = 0; i < 300; ++i) {
        const api::Json next =
            (i + c) % 2 == 0 ? Claim({StrCat("gpu-", (i * 7 + c) % kDevices)})
                             : Claim({});
        auto reservation = guard.Reserve(key, &next);
        if (!reservation.ok()) continue;  // refused: nothing written
        auto rec = store_->Update(key, next.dump(), 0);
        ASSERT_TRUE(rec.ok()) << rec.status();
        reservation->Committed(rec->mod_revision, &next);
        if (!ExclusiveDevices(next).empty()) ++allocations;
        if (i % 10 == 0) check();
      }
    });
  }
  for (std::thread& t : writers) t.join();
  check();
  EXPECT_FALSE(shared);
  EXPECT_GT(allocations.load(), 0);
}

}  // namespace
}  // namespace draplane::apiserver::internal
