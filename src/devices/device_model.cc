#include "devices/device_model.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/numbers.h"
#include "common/quantity.h"
#include "common/str_cat.h"
#include "devices/mig_profiles.h"

namespace draplane::devices {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr char kStandardDomain[] = "resource.kubernetes.io/";
// Per-slice limits of resource.k8s.io/v1 (ResourceSliceMaxDevices,
// ...WithAdvancedFeatures, ResourceSliceMaxCounterSets).
constexpr size_t kMaxDevices = 128;
constexpr size_t kMaxDevicesAdvanced = 64;
constexpr size_t kMaxCounterSets = 8;
// A counter set holds at most 32 counters: 7 engine/memory counters leave
// room for 25 memory slices (NVIDIA's GPUs have 8). Placements beyond that
// (only from corrupt facts) are not published.
constexpr uint64_t kMaxMemorySlices = 25;

bool PlacementFits(const MigPlacement& pl) {
  return pl.size > 0 &&
         uint64_t{pl.start} + uint64_t{pl.size} <= kMaxMemorySlices;
}

Quantity Count(uint64_t v) {
  return Quantity::FromInt64(static_cast<int64_t>(v));
}
Quantity Bytes(uint64_t v) {
  return Quantity::FromInt64(static_cast<int64_t>(v),
                             Quantity::Format::kBinarySI);
}

// A MIG profile's engines and memory, by capacity name (camelCase, as
// capacities) and counter name (DNS label, as counters).
struct Dimension {
  const char* capacity;
  const char* counter;
  uint64_t (*value)(const MigProfileFacts&);
  bool bytes;
};
const Dimension kDimensions[] = {
    {"multiprocessors", "multiprocessors",
     [](const MigProfileFacts& p) -> uint64_t {
       return p.multiprocessor_count;
     },
     false},
    {"copyEngines", "copy-engines",
     [](const MigProfileFacts& p) -> uint64_t { return p.copy_engine_count; },
     false},
    {"decoders", "decoders",
     [](const MigProfileFacts& p) -> uint64_t { return p.decoder_count; },
     false},
    {"encoders", "encoders",
     [](const MigProfileFacts& p) -> uint64_t { return p.encoder_count; },
     false},
    {"jpegEngines", "jpeg-engines",
     [](const MigProfileFacts& p) -> uint64_t { return p.jpeg_count; }, false},
    {"ofaEngines", "ofa-engines",
     [](const MigProfileFacts& p) -> uint64_t { return p.ofa_count; }, false},
    {"memory", "memory",
     [](const MigProfileFacts& p) -> uint64_t {
       return p.memory_size_mib * kMiB;
     },
     true},
};

Quantity DimensionValue(const Dimension& d, uint64_t v) {
  return d.bytes ? Bytes(v) : Count(v);
}

api::DeviceRareFields& Rare(api::Device& d) { return d.rare.Mutable(); }

// Attributes every device of a GPU carries.
void AddGpuAttributes(const NodeGpuFacts& node, const GpuFacts& gpu,
                      api::Device& d) {
  d.attributes.insert(
      {"productName", api::DeviceAttribute::String(gpu.product_name)});
  d.attributes.insert(
      {"brand", api::DeviceAttribute::String(BrandName(gpu.brand))});
  d.attributes.insert(
      {"architecture",
       api::DeviceAttribute::String(ArchitectureName(gpu.architecture))});
  d.attributes.insert(
      {"cudaComputeCapability",
       api::DeviceAttribute::Version(NormalizeVersion(
           StrCat(gpu.cuda_compute_major, ".", gpu.cuda_compute_minor)))});
  d.attributes.insert(
      {"driverVersion",
       api::DeviceAttribute::Version(NormalizeVersion(node.driver_version))});
  const int cuda = node.cuda_driver_version;
  d.attributes.insert({"cudaDriverVersion",
                       api::DeviceAttribute::Version(NormalizeVersion(
                           StrCat(cuda / 1000, ".", (cuda % 1000) / 10)))});
  if (gpu.addressing_mode) {
    d.attributes.insert(
        {"addressingMode", api::DeviceAttribute::String(*gpu.addressing_mode)});
  }
  d.attributes.insert(
      {StrCat(kStandardDomain, "pciBusID"),
       api::DeviceAttribute::String(NormalizePciBusId(gpu.pci_bus_id))});
  if (!gpu.pcie_root.empty()) {
    d.attributes.insert({StrCat(kStandardDomain, "pcieRoot"),
                         api::DeviceAttribute::String(gpu.pcie_root)});
  }
}

// Health as taints (NVIDIA's NVMLDeviceHealthCheck): the newest critical
// XID as gpu.nvidia.com/xid (NoSchedule, or None for application XIDs),
// a lost GPU as gpu.nvidia.com/gpu-lost. draplane makes gpu-lost NoExecute
// (NVIDIA: NoSchedule): workloads on a GPU that fell off the bus cannot
// run, so they are evicted and their claims released.
std::vector<api::DeviceTaint> HealthTaints(const GpuFacts& gpu,
                                           const DeviceModelOptions& options,
                                           const std::string& driver) {
  std::vector<api::DeviceTaint> taints;
  if (!gpu.xids.empty()) {
    const uint32_t xid = gpu.xids.back();
    const bool ignored =
        std::find(options.ignored_xids.begin(), options.ignored_xids.end(),
                  xid) != options.ignored_xids.end();
    taints.push_back({StrCat(driver, "/xid"), StrCat(xid),
                      ignored ? "None" : "NoSchedule", std::nullopt});
  }
  if (gpu.lost) {
    taints.push_back(
        {StrCat(driver, "/gpu-lost"), "", "NoExecute", std::nullopt});
  }
  return taints;
}

// What the driver keeps about a device of `gpu`; MIG members stay unset.
AllocatableDevice Allocatable(const GpuFacts& gpu, const std::string& name,
                              DeviceType type) {
  AllocatableDevice a;
  a.name = name;
  a.type = type;
  a.gpu_index = gpu.index;
  a.gpu_minor = gpu.minor;
  a.gpu_uuid = gpu.uuid;
  a.pci_bus_id = NormalizePciBusId(gpu.pci_bus_id);
  return a;
}

bool DynamicMigCapable(const GpuFacts& gpu) {
  return gpu.mig_capable && !gpu.vgpu_guest && gpu.memory_bytes &&
         !gpu.mig_profiles.empty() &&
         (gpu.architecture >= kArchHopper || gpu.mig_enabled);
}

// Only one MIG device per GI profile whose compute instance spans the
// whole GPU instance is published (NVIDIA keeps C == G).
void AddPartitionableDevices(const NodeGpuFacts& node, const GpuFacts& gpu,
                             const DeviceModelOptions& options,
                             NodeDevices& out,
                             std::vector<api::Device>& devices) {
  const std::string set_name = StrCat("gpu-", gpu.minor, "-counter-set");
  api::CounterSet set;
  set.name = set_name;
  uint32_t memory_slices = 0;
  std::vector<uint64_t> max(std::size(kDimensions), 0);
  for (const MigProfileFacts& p : gpu.mig_profiles) {
    for (size_t i = 0; i < std::size(kDimensions); ++i) {
      max[i] = std::max(max[i], kDimensions[i].value(p));
    }
    for (const MigPlacement& pl : p.placements) {
      if (PlacementFits(pl)) {
        memory_slices = std::max(memory_slices, pl.start + pl.size);
      }
    }
  }
  for (size_t i = 0; i < std::size(kDimensions); ++i) {
    set.counters[kDimensions[i].counter].value =
        DimensionValue(kDimensions[i], max[i]);
  }
  for (uint32_t s = 0; s < memory_slices; ++s) {
    set.counters[StrCat("memory-slice-", s)].value = Count(1);
  }
  const std::vector<api::DeviceTaint> taints =
      HealthTaints(gpu, options, options.driver);

  // The whole GPU, unless it is an Ampere part already in MIG mode (it
  // cannot leave MIG mode without a reset).
  if (gpu.architecture >= kArchHopper || !gpu.mig_enabled) {
    api::Device d;
    d.name = StrCat("gpu-", gpu.minor);
    d.attributes.insert({"type", api::DeviceAttribute::String("gpu")});
    d.attributes.insert({"uuid", api::DeviceAttribute::String(gpu.uuid)});
    AddGpuAttributes(node, gpu, d);
    for (size_t i = 0; i < std::size(kDimensions); ++i) {
      d.capacity.insert({kDimensions[i].capacity,
                         {DimensionValue(kDimensions[i], max[i]), {}}});
    }
    api::DeviceCounterConsumption all{set_name, set.counters};
    Rare(d).consumes_counters.push_back(std::move(all));
    Rare(d).taints = taints;
    out.allocatable[d.name] = Allocatable(gpu, d.name, DeviceType::kGpu);
    devices.push_back(std::move(d));
  }
  for (const MigProfileFacts& p : gpu.mig_profiles) {
    const std::string profile = MigProfileName(p, *gpu.memory_bytes);
    for (const MigPlacement& pl : p.placements) {
      if (!PlacementFits(pl)) continue;
      api::Device d;
      d.name = MigDeviceName(gpu.minor, profile, p.id, pl.start);
      d.attributes.insert({"type", api::DeviceAttribute::String("mig")});
      d.attributes.insert(
          {"parentUUID", api::DeviceAttribute::String(gpu.uuid)});
      d.attributes.insert({"profile", api::DeviceAttribute::String(profile)});
      AddGpuAttributes(node, gpu, d);
      api::DeviceCounterConsumption consumption;
      consumption.counter_set = set_name;
      for (const Dimension& dim : kDimensions) {
        const Quantity q = DimensionValue(dim, dim.value(p));
        d.capacity.insert({dim.capacity, {q, {}}});
        consumption.counters[dim.counter].value = q;
      }
      for (uint32_t s = pl.start; s < pl.start + pl.size; ++s) {
        consumption.counters[StrCat("memory-slice-", s)].value = Count(1);
      }
      Rare(d).consumes_counters.push_back(std::move(consumption));
      Rare(d).taints = taints;
      AllocatableDevice a = Allocatable(gpu, d.name, DeviceType::kMig);
      a.profile = profile;
      a.gi_profile_id = p.id;
      a.placement = pl;
      out.allocatable[d.name] = a;
      devices.push_back(std::move(d));
    }
  }
  out.counter_sets.push_back(std::move(set));
}

// Default mode: the whole GPU with its memory, or, in MIG mode, the MIG
// devices that exist, each with memorySlice<i> capacities.
void AddStaticDevices(const NodeGpuFacts& node, const GpuFacts& gpu,
                      const DeviceModelOptions& options, NodeDevices& out,
                      std::vector<api::Device>& devices) {
  const std::vector<api::DeviceTaint> taints =
      HealthTaints(gpu, options, options.driver);
  if (!gpu.mig_enabled) {
    api::Device d;
    d.name = StrCat("gpu-", gpu.minor);
    d.attributes.insert({"type", api::DeviceAttribute::String("gpu")});
    d.attributes.insert({"uuid", api::DeviceAttribute::String(gpu.uuid)});
    AddGpuAttributes(node, gpu, d);
    if (gpu.memory_bytes) {
      d.capacity.insert({"memory", {Bytes(*gpu.memory_bytes), {}}});
    }
    if (!taints.empty()) Rare(d).taints = taints;
    out.allocatable[d.name] = Allocatable(gpu, d.name, DeviceType::kGpu);
    devices.push_back(std::move(d));
    return;
  }
  for (const MigDeviceFacts& mig : gpu.mig_devices) {
    auto p = std::find_if(
        gpu.mig_profiles.begin(), gpu.mig_profiles.end(),
        [&](const MigProfileFacts& mp) { return mp.id == mig.profile_id; });
    if (p == gpu.mig_profiles.end() || !gpu.memory_bytes ||
        !PlacementFits(mig.placement)) {
      continue;
    }
    const std::string profile = MigProfileName(*p, *gpu.memory_bytes);
    api::Device d;
    d.name = MigDeviceName(gpu.minor, profile, p->id, mig.placement.start);
    d.attributes.insert({"type", api::DeviceAttribute::String("mig")});
    d.attributes.insert({"uuid", api::DeviceAttribute::String(mig.uuid)});
    d.attributes.insert({"parentUUID", api::DeviceAttribute::String(gpu.uuid)});
    d.attributes.insert({"profile", api::DeviceAttribute::String(profile)});
    AddGpuAttributes(node, gpu, d);
    for (const Dimension& dim : kDimensions) {
      d.capacity.insert(
          {dim.capacity, {DimensionValue(dim, dim.value(*p)), {}}});
    }
    for (uint32_t s = mig.placement.start;
         s < mig.placement.start + mig.placement.size; ++s) {
      d.capacity.insert({StrCat("memorySlice", s), {Count(1), {}}});
    }
    if (!taints.empty()) Rare(d).taints = taints;
    AllocatableDevice a = Allocatable(gpu, d.name, DeviceType::kMig);
    a.profile = profile;
    a.gi_profile_id = p->id;
    a.placement = mig.placement;
    a.existing_mig = mig;
    out.allocatable[d.name] = a;
    devices.push_back(std::move(d));
  }
}

bool UsesAdvancedFeatures(const api::Device& d) {
  return !d.rare->consumes_counters.empty() || !d.rare->taints.empty();
}

}  // namespace

NodeDevices BuildNodeDevices(const NodeGpuFacts& facts,
                             const DeviceModelOptions& options) {
  NodeDevices out;
  for (const GpuFacts& gpu : facts.gpus) {
    std::vector<api::Device> devices;
    if (options.dynamic_mig && DynamicMigCapable(gpu)) {
      AddPartitionableDevices(facts, gpu, options, out, devices);
    } else {
      AddStaticDevices(facts, gpu, options, out, devices);
    }
    std::sort(devices.begin(), devices.end(),
              [](const api::Device& a, const api::Device& b) {
                return a.name < b.name;
              });
    out.devices_per_gpu.push_back(std::move(devices));
  }
  return out;
}

std::vector<api::ResourceSliceSpec> LayoutResourceSlices(
    const NodeDevices& devices, const std::string& node_name,
    const std::string& driver) {
  std::vector<api::ResourceSliceSpec> slices;
  auto new_slice = [&] {
    api::ResourceSliceSpec spec;
    spec.driver = driver;
    spec.node_name = node_name;
    spec.pool.name = node_name;
    return spec;
  };
  for (size_t i = 0; i < devices.counter_sets.size(); i += kMaxCounterSets) {
    api::ResourceSliceSpec spec = new_slice();
    for (size_t j = i;
         j < std::min(i + kMaxCounterSets, devices.counter_sets.size()); ++j) {
      spec.shared_counters.push_back(devices.counter_sets[j]);
    }
    slices.push_back(std::move(spec));
  }
  std::vector<std::vector<const api::Device*>> groups;
  if (devices.counter_sets.empty()) {
    groups.emplace_back();
    for (const auto& gpu : devices.devices_per_gpu) {
      for (const api::Device& d : gpu) groups.back().push_back(&d);
    }
  } else {
    for (const auto& gpu : devices.devices_per_gpu) {
      groups.emplace_back();
      for (const api::Device& d : gpu) groups.back().push_back(&d);
    }
  }
  for (const auto& group : groups) {
    size_t i = 0;
    while (i < group.size()) {
      api::ResourceSliceSpec spec = new_slice();
      bool advanced = false;
      while (i < group.size()) {
        const bool adv = advanced || UsesAdvancedFeatures(*group[i]);
        const size_t limit = adv ? kMaxDevicesAdvanced : kMaxDevices;
        if (spec.devices.size() + 1 > limit) break;
        advanced = adv;
        spec.devices.push_back(*group[i]);
        ++i;
      }
      slices.push_back(std::move(spec));
    }
  }
  if (slices.empty()) {
    // A node without GPUs still publishes its (empty) pool, so the
    // scheduler knows the driver runs there and has nothing.
    slices.push_back(new_slice());
  }
  for (api::ResourceSliceSpec& s : slices) {
    s.pool.resource_slice_count = static_cast<int64_t>(slices.size());
  }
  return slices;
}

std::string NormalizePciBusId(std::string_view id) {
  std::string out;
  for (char c : id) {
    if (c == '\0') break;
    out.push_back(
        static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  // An 8-digit PCI domain ("00000000:") keeps its last four digits.
  const size_t colon = out.find(':');
  if (colon == 8) out.erase(0, 4);
  return out;
}

std::string NormalizeVersion(std::string_view version) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (begin <= version.size()) {
    size_t end = version.find('.', begin);
    if (end == std::string_view::npos) end = version.size();
    const std::string_view part = version.substr(begin, end - begin);
    begin = end + 1;
    uint64_t n = 0;
    if (!absl::SimpleAtoi(absl::string_view(part.data(), part.size()), &n)) {
      n = 0;
    }
    parts.push_back(StrCat(n));
  }
  while (parts.size() < 3) parts.push_back("0");
  return StrCat(parts[0], ".", parts[1], ".", parts[2]);
}

std::string ArchitectureName(uint32_t architecture) {
  switch (architecture) {
    case 2:
      return "Kepler";
    case 3:
      return "Maxwell";
    case 4:
      return "Pascal";
    case 5:
      return "Volta";
    case 6:
      return "Turing";
    case 7:
      return "Ampere";
    case 8:
      return "Ada Lovelace";
    case 9:
      return "Hopper";
    case 10:
      return "Blackwell";
  }
  return "Unknown";
}

std::string BrandName(uint32_t brand) {
  static const char* const kNames[] = {
      "Unknown",   "Quadro",    "Tesla",     "NVS",
      "Grid",      "GeForce",   "Titan",     "NvidiaVApps",
      "NvidiaVPC", "NvidiaVCS", "NvidiaVWS", "NvidiaCloudGaming",
      "QuadroRTX", "NvidiaRTX", "Nvidia",    "GeForceRTX",
      "TitanRTX"};
  return brand < std::size(kNames) ? kNames[brand] : "Unknown";
}

std::vector<api::Json> NvidiaDeviceClasses() {
  std::vector<api::Json> out;
  for (const char* type : {"gpu", "mig"}) {
    out.push_back(api::Json{
        {"apiVersion", "resource.k8s.io/v1"},
        {"kind", "DeviceClass"},
        {"metadata", {{"name", StrCat(type, ".nvidia.com")}}},
        {"spec",
         {{"selectors",
           api::Json::array(
               {{{"cel",
                  {{"expression",
                    StrCat("device.driver == '", kNvidiaGpuDriver,
                           "' && device.attributes['", kNvidiaGpuDriver,
                           "'].type == '", type, "'")}}}}})}}}});
  }
  return out;
}

}  // namespace draplane::devices
