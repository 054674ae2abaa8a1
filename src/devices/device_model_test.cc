#include "devices/device_model.h"

#include <set>

#include "api/object.h"
#include "api/validation/validation.h"
#include "common/str_cat.h"
#include "devices/gpu_models.h"
#include "devices/mig_profiles.h"
#include "gtest/gtest.h"

namespace draplane::devices {
namespace {

NodeGpuFacts Node(std::string_view model, int count, bool mig_enabled = false) {
  NodeGpuFacts facts;
  facts.driver_version = "580.95.05";
  facts.cuda_driver_version = 13000;
  for (int i = 0; i < count; ++i) {
    GpuFacts g = MakeGpuFacts(*FindGpuModel(model), i, StrCat("GPU-", i),
                              "00000000:3B:00.0");
    g.pcie_root = "pci0000:3a";
    g.mig_enabled = mig_enabled;
    facts.gpus.push_back(g);
  }
  return facts;
}

const api::Device* Find(const NodeDevices& d, std::string_view name) {
  for (const auto& gpu : d.devices_per_gpu) {
    for (const api::Device& dev : gpu) {
      if (dev.name == name) return &dev;
    }
  }
  return nullptr;
}

std::string Attr(const api::Device& d, const std::string& name) {
  auto it = d.attributes.find(name);
  if (it == d.attributes.end()) return "<none>";
  if (auto s = it->second.string_value()) return std::string(*s);
  if (auto v = it->second.version_value()) return std::string(*v);
  return "<other>";
}

std::string Cap(const api::Device& d, const std::string& name) {
  auto it = d.capacity.find(name);
  return it == d.capacity.end() ? "<none>" : it->second.value.ToString();
}

std::set<std::string> Profiles(std::string_view model) {
  std::set<std::string> out;
  const GpuModel& m = *FindGpuModel(model);
  for (const MigProfileFacts& p : m.mig_profiles) {
    out.insert(MigProfileName(p, m.memory_bytes));
  }
  return out;
}

// The names nvidia-smi and NVIDIA's driver show for these GPUs.
TEST(MigProfileNameTest, MatchesNvidiaNames) {
  EXPECT_EQ(Profiles("A100-40GB"),
            (std::set<std::string>{"1g.5gb", "1g.5gb+me", "1g.10gb", "2g.10gb",
                                   "3g.20gb", "4g.20gb", "7g.40gb"}));
  EXPECT_EQ(
      Profiles("A100-80GB-PCIE"),
      (std::set<std::string>{"1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb",
                             "3g.40gb", "4g.40gb", "7g.80gb"}));
  EXPECT_EQ(Profiles("H100"), (std::set<std::string>{
                                  "1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb",
                                  "3g.40gb", "4g.40gb", "7g.80gb"}));
  EXPECT_EQ(Profiles("H200"), (std::set<std::string>{
                                  "1g.18gb", "1g.18gb+me", "1g.35gb", "2g.35gb",
                                  "3g.71gb", "4g.71gb", "7g.141gb"}));
}

TEST(MigProfileNameTest, DeviceNames) {
  EXPECT_EQ(MigDeviceName(0, "1g.10gb+me", 20, 6), "gpu-0-mig-1g10gb-me-20-6");
  EXPECT_EQ(MigDeviceName(3, "3g.40gb", 9, 4), "gpu-3-mig-3g40gb-9-4");
}

TEST(DeviceModelTest, HopperPublishesWholeGpuAndEveryPlacement) {
  NodeDevices d = BuildNodeDevices(Node("H100", 1), DeviceModelOptions{});
  ASSERT_EQ(d.devices_per_gpu.size(), 1u);
  EXPECT_EQ(d.devices_per_gpu[0].size(), 26u);
  ASSERT_EQ(d.counter_sets.size(), 1u);
  EXPECT_EQ(d.counter_sets[0].name, "gpu-0-counter-set");
  EXPECT_EQ(d.counter_sets[0].counters.size(), 15u);
  EXPECT_EQ(d.counter_sets[0].counters.at("multiprocessors").value.ToString(),
            "132");
  EXPECT_EQ(d.counter_sets[0].counters.at("memory").value.ToString(),
            "81152Mi");
  EXPECT_EQ(d.counter_sets[0].counters.at("memory-slice-7").value.ToString(),
            "1");

  const api::Device* gpu = Find(d, "gpu-0");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(Attr(*gpu, "type"), "gpu");
  EXPECT_EQ(Attr(*gpu, "uuid"), "GPU-0");
  EXPECT_EQ(Attr(*gpu, "productName"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(Attr(*gpu, "brand"), "Nvidia");
  EXPECT_EQ(Attr(*gpu, "architecture"), "Hopper");
  EXPECT_EQ(Attr(*gpu, "cudaComputeCapability"), "9.0.0");
  EXPECT_EQ(Attr(*gpu, "driverVersion"), "580.95.5");
  EXPECT_EQ(Attr(*gpu, "cudaDriverVersion"), "13.0.0");
  EXPECT_EQ(Attr(*gpu, "resource.kubernetes.io/pciBusID"), "0000:3b:00.0");
  EXPECT_EQ(Attr(*gpu, "resource.kubernetes.io/pcieRoot"), "pci0000:3a");
  ASSERT_EQ(gpu->rare->consumes_counters.size(), 1u);
  EXPECT_EQ(gpu->rare->consumes_counters[0].counters.size(), 15u);

  const api::Device* mig = Find(d, "gpu-0-mig-1g10gb-19-3");
  ASSERT_NE(mig, nullptr);
  EXPECT_EQ(Attr(*mig, "type"), "mig");
  EXPECT_EQ(Attr(*mig, "profile"), "1g.10gb");
  EXPECT_EQ(Attr(*mig, "parentUUID"), "GPU-0");
  EXPECT_EQ(Attr(*mig, "uuid"), "<none>");  // created at prepare time
  EXPECT_EQ(Cap(*mig, "multiprocessors"), "16");
  EXPECT_EQ(Cap(*mig, "memory"), "9984Mi");
  const auto& consumed = mig->rare->consumes_counters.at(0).counters;
  EXPECT_EQ(consumed.count("memory-slice-3"), 1u);
  EXPECT_EQ(consumed.count("memory-slice-2"), 0u);
  EXPECT_NE(Find(d, "gpu-0-mig-1g10gb-me-20-6"), nullptr);
  EXPECT_NE(Find(d, "gpu-0-mig-7g80gb-0-0"), nullptr);

  const AllocatableDevice& a = d.allocatable.at("gpu-0-mig-3g40gb-9-4");
  EXPECT_EQ(a.type, DeviceType::kMig);
  EXPECT_EQ(a.gi_profile_id, 9u);
  EXPECT_EQ(a.placement, (MigPlacement{4, 4}));
}

TEST(DeviceModelTest, AmpereWithoutMigModeIsOneWholeGpu) {
  NodeDevices d = BuildNodeDevices(Node("A100-80GB-PCIE", 2), {});
  EXPECT_TRUE(d.counter_sets.empty());
  ASSERT_EQ(d.devices_per_gpu[1].size(), 1u);
  const api::Device& gpu = d.devices_per_gpu[1][0];
  EXPECT_EQ(gpu.name, "gpu-1");
  EXPECT_EQ(Cap(gpu, "memory"), "80Gi");
  EXPECT_EQ(Attr(gpu, "architecture"), "Ampere");
  EXPECT_EQ(Attr(gpu, "cudaComputeCapability"), "8.0.0");
  EXPECT_TRUE(gpu.rare->consumes_counters.empty());
}

TEST(DeviceModelTest, AmpereInMigModePublishesPartitionsOnly) {
  NodeDevices d = BuildNodeDevices(Node("A100-80GB-PCIE", 1, true), {});
  EXPECT_EQ(d.devices_per_gpu[0].size(), 25u);
  EXPECT_EQ(Find(d, "gpu-0"), nullptr);
  EXPECT_NE(Find(d, "gpu-0-mig-3g40gb-9-0"), nullptr);
  EXPECT_EQ(Find(d, "gpu-0-mig-3g20gb-9-0"), nullptr);  // the guide's name
}

TEST(DeviceModelTest, StaticMigPublishesExistingDevicesWithMemorySlices) {
  NodeGpuFacts facts = Node("A100-80GB-PCIE", 1, true);
  MigDeviceFacts m;
  m.uuid = "MIG-1";
  m.gpu_instance_id = 2;
  m.profile_id = 9;
  m.placement = {4, 4};
  facts.gpus[0].mig_devices.push_back(m);
  DeviceModelOptions options;
  options.dynamic_mig = false;
  NodeDevices d = BuildNodeDevices(facts, options);
  ASSERT_EQ(d.devices_per_gpu[0].size(), 1u);
  const api::Device& dev = d.devices_per_gpu[0][0];
  EXPECT_EQ(dev.name, "gpu-0-mig-3g40gb-9-4");
  EXPECT_EQ(Attr(dev, "uuid"), "MIG-1");
  EXPECT_EQ(Cap(dev, "memorySlice4"), "1");
  EXPECT_EQ(Cap(dev, "memorySlice7"), "1");
  EXPECT_EQ(Cap(dev, "memorySlice3"), "<none>");
  EXPECT_TRUE(d.counter_sets.empty());
  ASSERT_TRUE(d.allocatable.at(dev.name).existing_mig.has_value());
}

TEST(DeviceModelTest, HealthBecomesTaints) {
  NodeGpuFacts facts = Node("H100", 3);
  facts.gpus[0].xids = {79};
  facts.gpus[1].xids = {13};  // an application error
  facts.gpus[2].lost = true;
  NodeDevices d = BuildNodeDevices(facts, {});
  auto taints = [&](std::string_view name) {
    return Find(d, name)->rare->taints;
  };
  ASSERT_EQ(taints("gpu-0").size(), 1u);
  EXPECT_EQ(taints("gpu-0")[0].key, "gpu.nvidia.com/xid");
  EXPECT_EQ(taints("gpu-0")[0].value, "79");
  EXPECT_EQ(taints("gpu-0")[0].effect, "NoSchedule");
  EXPECT_EQ(taints("gpu-0-mig-1g10gb-19-0").size(), 1u);  // every partition
  EXPECT_EQ(taints("gpu-1")[0].effect, "None");
  EXPECT_EQ(taints("gpu-2")[0].key, "gpu.nvidia.com/gpu-lost");
  EXPECT_EQ(taints("gpu-2")[0].effect, "NoExecute");
}

// Every slice the layout produces is valid resource.k8s.io/v1.
void ExpectValidSlices(const std::vector<api::ResourceSliceSpec>& specs) {
  int i = 0;
  for (const api::ResourceSliceSpec& spec : specs) {
    api::Object o;
    o.type = {"resource.k8s.io/v1", "ResourceSlice"};
    api::ResourceSlice s;
    s.metadata.name = StrCat("s", i++);
    s.spec = spec;
    s.spec.pool.generation = 1;
    o.value = s;
    FieldErrorList errors = api::ValidateObject(o);
    EXPECT_TRUE(errors.empty()) << AggregateMessage(errors);
  }
}

TEST(DeviceModelTest, SplitLayoutCountersFirstThenOneSlicePerGpu) {
  NodeDevices d = BuildNodeDevices(Node("H100", 8), {});
  auto slices = LayoutResourceSlices(d, "node2", kNvidiaGpuDriver);
  ASSERT_EQ(slices.size(), 9u);
  EXPECT_EQ(slices[0].shared_counters.size(), 8u);
  EXPECT_TRUE(slices[0].devices.empty());
  for (size_t i = 1; i < slices.size(); ++i) {
    EXPECT_EQ(slices[i].devices.size(), 26u);
    EXPECT_EQ(slices[i].pool.name, "node2");
    EXPECT_EQ(slices[i].pool.resource_slice_count, 9);
    EXPECT_EQ(*slices[i].node_name, "node2");
  }
  ExpectValidSlices(slices);
  // Nine GPUs need a second counter slice (at most 8 counter sets each).
  auto nine = LayoutResourceSlices(BuildNodeDevices(Node("H200", 9), {}), "n",
                                   kNvidiaGpuDriver);
  ASSERT_EQ(nine.size(), 11u);
  EXPECT_EQ(nine[1].shared_counters.size(), 1u);
  ExpectValidSlices(nine);
}

TEST(DeviceModelTest, WithoutCountersOneSliceSplitAtTheDeviceLimit) {
  auto one = LayoutResourceSlices(BuildNodeDevices(Node("L4", 4), {}), "n",
                                  kNvidiaGpuDriver);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].devices.size(), 4u);
  ExpectValidSlices(one);
  auto many = LayoutResourceSlices(BuildNodeDevices(Node("L4", 64 + 66), {}),
                                   "n", kNvidiaGpuDriver);
  ASSERT_EQ(many.size(), 2u);
  EXPECT_EQ(many[0].devices.size(), 128u);
  ExpectValidSlices(many);
}

TEST(DeviceModelTest, NormalisesNvmlTexts) {
  EXPECT_EQ(NormalizePciBusId("00000000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(NormalizePciBusId("0000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(NormalizeVersion("580.95.05"), "580.95.5");
  EXPECT_EQ(NormalizeVersion("9.0"), "9.0.0");
  EXPECT_EQ(ArchitectureName(8), "Ada Lovelace");
  EXPECT_EQ(ArchitectureName(99), "Unknown");
  EXPECT_EQ(BrandName(14), "Nvidia");
}

}  // namespace
}  // namespace draplane::devices
