// AllocatedState lookups by DeviceId and by DeviceIdView.
#include "allocator/allocated_state.h"

#include "gtest/gtest.h"

namespace draplane::allocator {
namespace {

api::AllocationResult Allocation(std::vector<DeviceId> devices,
                                 bool shared = false) {
  api::AllocationResult a;
  for (const DeviceId& id : devices) {
    api::DeviceRequestAllocationResult r;
    r.request = "req";
    r.driver = id.driver;
    r.pool = id.pool;
    r.device = id.device;
    if (shared) {
      r.share_id = "share-1";
      r.consumed_capacity["memory"] = *Quantity::Parse("1Gi");
    }
    a.devices.results.push_back(r);
  }
  return a;
}

TEST(DeviceIdViewTest, ViewsADeviceIdAndPrintsLikeIt) {
  DeviceId id{"dra.example.com", "pool-a", "gpu-0"};
  DeviceIdView view = id;
  EXPECT_EQ(view.driver.data(), id.driver.data());
  EXPECT_EQ(view.ToString(), id.ToString());
  EXPECT_EQ(view.ToString(), "dra.example.com/pool-a/gpu-0");
  EXPECT_EQ(view.ToId(), id);
  EXPECT_EQ(view, DeviceIdView("dra.example.com", "pool-a", "gpu-0"));
  EXPECT_FALSE(view == DeviceIdView("dra.example.com", "pool-a", "gpu-1"));
  // Field boundaries matter, not only the concatenation.
  EXPECT_FALSE(DeviceIdView("a", "bc", "d") == DeviceIdView("ab", "c", "d"));
}

TEST(AllocatedStateTest, FindsDevicesByIdOrView) {
  AllocatedState state;
  state.AddAllocation(Allocation({{"dra.example.com", "pool-a", "gpu-0"}}),
                      /*consumable_capacity=*/true, "ns/claim-a");
  state.AddAllocation(
      Allocation({{"dra.example.com", "pool-a", "gpu-1"}}, /*shared=*/true),
      /*consumable_capacity=*/true, "ns/claim-b");

  const std::string driver = "dra.example.com";
  const std::string pool = "pool-a";
  const std::string gpu0 = "gpu-0";
  DeviceIdView view(driver, pool, gpu0);
  EXPECT_TRUE(state.IsExclusive(view));
  EXPECT_TRUE(state.IsAllocated(view));
  EXPECT_TRUE(state.IsExclusive(DeviceId{driver, pool, gpu0}));
  ASSERT_NE(state.Owners(view), nullptr);
  EXPECT_EQ(*state.Owners(view), std::vector<std::string>{"ns/claim-a"});

  DeviceIdView gpu1(driver, pool, "gpu-1");
  EXPECT_FALSE(state.IsExclusive(gpu1));
  EXPECT_TRUE(state.IsAllocated(gpu1));
  ASSERT_NE(state.AggregatedCapacity(gpu1), nullptr);
  EXPECT_EQ(state.AggregatedCapacity(gpu1)->at("memory").ToString(), "1Gi");

  EXPECT_EQ(state.Find(DeviceIdView(driver, pool, "gpu-2")), nullptr);
  EXPECT_EQ(state.Find(DeviceIdView(driver, "pool-b", "gpu-0")), nullptr);

  // Copies keep answering lookups by view.
  AllocatedState copy = state;
  EXPECT_TRUE(copy.IsExclusive(view));
  ASSERT_NE(copy.AggregatedCapacity(gpu1), nullptr);
  EXPECT_NE(copy.AggregatedCapacity(gpu1), state.AggregatedCapacity(gpu1));
}

}  // namespace
}  // namespace draplane::allocator
