#include "devices/gpu_models.h"

#include <set>

#include "gtest/gtest.h"

namespace draplane::devices {
namespace {

TEST(GpuModelsTest, FindsByShortAndProductName) {
  ASSERT_NE(FindGpuModel("h200"), nullptr);
  EXPECT_EQ(FindGpuModel("H200")->product_name, "NVIDIA H200");
  EXPECT_EQ(FindGpuModel("NVIDIA A100 80GB PCIe"),
            FindGpuModel("A100-80GB-PCIE"));
  EXPECT_EQ(FindGpuModel("B9000"), nullptr);
}

// NVML's rules the published device model relies on: placements lie inside
// the 8 memory slices, and a profile's placements all have the same size.
TEST(GpuModelsTest, MigProfilesAreConsistent) {
  for (const GpuModel& m : GpuModels()) {
    SCOPED_TRACE(std::string(m.product_name));
    std::set<uint32_t> ids;
    for (const MigProfileFacts& p : m.mig_profiles) {
      EXPECT_TRUE(ids.insert(p.id).second) << "duplicate profile ID " << p.id;
      ASSERT_FALSE(p.placements.empty());
      for (const MigPlacement& pl : p.placements) {
        EXPECT_LE(pl.start + pl.size, 8u);
        EXPECT_EQ(pl.size, p.placements.front().size);
      }
      EXPECT_LE(p.memory_size_mib * (uint64_t{1} << 20), m.memory_bytes);
    }
    EXPECT_EQ(m.mig_capable, !m.mig_profiles.empty());
  }
}

}  // namespace
}  // namespace draplane::devices
