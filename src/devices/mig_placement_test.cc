// MIG placements as partitionable devices, for every MIG-capable model:
// each set of MIG devices NVML accepts on one GPU is a valid allocation of
// the published devices, and each set NVML refuses is not (the shared
// counters must say exactly what NVML says). NVML's rule
// (nvidia-dra-driver.md §18.3): GPU instances at placements of their
// profile, pairwise disjoint memory slices, at most 7 compute slices, at
// most instance_count of a profile; the whole GPU excludes every MIG
// device.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "allocator/allocated_state.h"
#include "allocator/allocation_check.h"
#include "allocator/features.h"
#include "common/str_cat.h"
#include "devices/device_model.h"
#include "devices/gpu_models.h"
#include "gtest/gtest.h"

namespace draplane::devices {
namespace {

struct Fixture {
  std::vector<api::ResourceSlice> slices;
  std::vector<api::DeviceClass> classes;
  api::Node node;
  NodeDevices devices;
  allocator::AllocatedState state;
};

Fixture MakeFixture(const GpuModel& model) {
  Fixture f;
  NodeGpuFacts facts;
  facts.driver_version = "580.95.05";
  facts.cuda_driver_version = 13000;
  GpuFacts gpu = MakeGpuFacts(model, 0, "GPU-0", "00000000:3B:00.0");
  // Ampere is dynamic only with MIG mode already on (no reset needed).
  gpu.mig_enabled = model.architecture < kArchHopper;
  facts.gpus.push_back(gpu);
  f.devices = BuildNodeDevices(facts, DeviceModelOptions{});
  for (api::ResourceSliceSpec& spec :
       LayoutResourceSlices(f.devices, "node1", kNvidiaGpuDriver)) {
    api::ResourceSlice s;
    s.metadata.name = StrCat("slice-", f.slices.size());
    spec.pool.generation = 1;
    s.spec = std::move(spec);
    f.slices.push_back(std::move(s));
  }
  api::DeviceClass cls;
  cls.metadata.name = "gpu";
  // No selector: every device (CEL is not what this test is about).
  f.classes.push_back(cls);
  f.node.metadata.name = "node1";
  return f;
}

absl::Status Check(const Fixture& f, const std::vector<std::string>& devices) {
  api::ResourceClaim claim;
  claim.metadata.name = "c";
  claim.metadata.namespace_ = "default";
  api::AllocationResult result;
  for (size_t i = 0; i < devices.size(); ++i) {
    api::DeviceRequest r;
    r.name = StrCat("r", i);
    api::ExactDeviceRequest exact;
    exact.device_class_name = "gpu";
    exact.allocation_mode = "ExactCount";
    exact.count = 1;
    r.exactly = exact;
    claim.spec.devices.requests.push_back(r);
    api::DeviceRequestAllocationResult res;
    res.request = r.name;
    res.driver = kNvidiaGpuDriver;
    res.pool = "node1";
    res.device = devices[i];
    result.devices.results.push_back(res);
  }
  std::vector<const api::ResourceClaim*> claims = {&claim};
  allocator::AllocationInputs in{allocator::Features::Defaults(),
                                 &f.slices,
                                 &f.classes,
                                 &f.node,
                                 &claims,
                                 &f.state};
  return allocator::CheckAllocation(in, {result});
}

// NVML's verdict on a set of devices of one GPU.
bool NvmlAccepts(const Fixture& f, const std::vector<std::string>& names,
                 const GpuModel& model) {
  uint32_t used_slices = 0, compute = 0;
  std::map<uint32_t, uint32_t> per_profile;
  for (const std::string& n : names) {
    const AllocatableDevice& d = f.devices.allocatable.at(n);
    if (d.type == DeviceType::kGpu) return names.size() == 1;
    const uint32_t mask = ((1u << d.placement.size) - 1) << d.placement.start;
    if (used_slices & mask) return false;
    used_slices |= mask;
    for (const MigProfileFacts& p : model.mig_profiles) {
      if (p.id == d.gi_profile_id) {
        compute += p.slice_count;
        if (++per_profile[p.id] > p.instance_count) return false;
      }
    }
  }
  return compute <= 7;
}

class MigPlacementTest : public ::testing::TestWithParam<size_t> {};

TEST_P(MigPlacementTest, CountersAcceptExactlyWhatNvmlAccepts) {
  const GpuModel& model = GpuModels()[GetParam()];
  SCOPED_TRACE(std::string(model.product_name));
  Fixture f = MakeFixture(model);
  std::vector<std::string> names;
  for (const auto& [name, d] : f.devices.allocatable) names.push_back(name);
  // 7 1g + 1 1g+me + 4 double-memory 1g + 3 2g + 2 3g + 1 4g + 1 7g.
  size_t mig = 0;
  for (const auto& [name, d] : f.devices.allocatable) {
    mig += d.type == DeviceType::kMig;
  }
  EXPECT_EQ(mig, 7u + 7u + 4u + 3u + 2u + 1u + 1u);

  // Every set of devices whose memory slices are pairwise disjoint (plus
  // the whole GPU alone), found depth-first; the ones NVML refuses among
  // them break the instance or compute limits.
  int accepted = 0, refused = 0, maximal = 0;
  std::vector<std::string> current;
  std::function<void(size_t, uint32_t)> visit = [&](size_t from,
                                                    uint32_t used) {
    if (!current.empty()) {
      // Sets NVML refuses are checked where first met (their supersets
      // are refused by NVML too, and by counters, which only add up).
      if (!NvmlAccepts(f, current, model)) {
        ++refused;
        ASSERT_FALSE(Check(f, current).ok())
            << "accepted " << ::testing::PrintToString(current);
        return;
      }
      ++accepted;
    }
    for (size_t i = from; i < names.size(); ++i) {
      const AllocatableDevice& d = f.devices.allocatable.at(names[i]);
      if (d.type == DeviceType::kGpu) continue;
      const uint32_t mask = ((1u << d.placement.size) - 1) << d.placement.start;
      if (used & mask) continue;
      current.push_back(names[i]);
      visit(i + 1, used | mask);
      current.pop_back();
      if (HasFatalFailure()) return;
    }
    if (current.empty()) return;
    // A full layout (NVML accepts no further device): adding any device,
    // overlapping or not, the whole GPU included, is refused by both.
    std::vector<std::vector<std::string>> extensions;
    for (const std::string& extra : names) {
      if (std::find(current.begin(), current.end(), extra) != current.end()) {
        continue;
      }
      std::vector<std::string> more = current;
      more.push_back(extra);
      if (NvmlAccepts(f, more, model)) return;  // not full
      extensions.push_back(std::move(more));
    }
    // Its subsets fit whenever it does: counter use only adds up.
    ++maximal;
    absl::Status fits = Check(f, current);
    ASSERT_TRUE(fits.ok()) << ::testing::PrintToString(current) << ": "
                           << fits.message();
    for (const auto& more : extensions) {
      ASSERT_FALSE(Check(f, more).ok())
          << "accepted " << ::testing::PrintToString(more);
    }
  };
  visit(0, 0);
  // The whole GPU alone (Hopper; Ampere in MIG mode does not publish it).
  if (model.architecture >= kArchHopper) {
    EXPECT_TRUE(Check(f, {"gpu-0"}).ok());
  } else {
    EXPECT_EQ(f.devices.allocatable.count("gpu-0"), 0u);
  }
  RecordProperty("accepted", accepted);
  RecordProperty("refused", refused);
  RecordProperty("full_layouts", maximal);
  EXPECT_GT(accepted, 100);
  EXPECT_GT(refused, 0);
  EXPECT_GT(maximal, 10);
}

std::vector<size_t> MigModels() {
  std::vector<size_t> out;
  for (size_t i = 0; i < GpuModels().size(); ++i) {
    if (GpuModels()[i].mig_capable) out.push_back(i);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllMigModels, MigPlacementTest,
                         ::testing::ValuesIn(MigModels()));

}  // namespace
}  // namespace draplane::devices
