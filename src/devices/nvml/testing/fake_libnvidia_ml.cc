// A fake libnvidia-ml.so.1 for tests: the NVML entry points the nvml backend
// uses, with NVML's semantics, over GPUs scripted by a JSON file in the
// gpu_facts_json.h form named by $DRAPLANE_FAKE_NVML_FACTS.
//
// Contract:
// - nvmlInit_v2 (re)reads the file when NVML is not initialised (first init,
//   or every init after the matching nvmlShutdown), so one process can
//   script new GPUs per test; handles from before are invalid then. Missing
//   variable: NVML_ERROR_DRIVER_NOT_LOADED; unreadable or invalid file:
//   NVML_ERROR_UNKNOWN with the reason on stderr. Every other call before
//   init: NVML_ERROR_UNINITIALIZED.
// - Per GPU: the scripted facts. "memoryBytes"/"addressingMode" absent ->
//   NOT_SUPPORTED; MIG calls on a GPU that is not "migCapable" ->
//   NOT_SUPPORTED; a GI profile index the GPU lacks -> NOT_SUPPORTED, an
//   index >= 0x11 -> INVALID_ARGUMENT.
// - MIG: "migEnabled" is the current mode; "migDevices" exist at init (each
//   a GI with one CI spanning it). nvmlDeviceSetMigMode on Ampere only sets
//   the pending mode (activation NVML_ERROR_RESET_REQUIRED); on Hopper and
//   later it applies at once, except that disabling with GPU instances
//   present reports activation NVML_ERROR_IN_USE and changes nothing.
//   Creating a GI needs MIG enabled, a possible placement of the profile,
//   fewer than instanceCount GIs of the profile, and no overlap in memory
//   slices or compute slices with live GIs, else INSUFFICIENT_RESOURCES.
//   GI IDs are NVML's placement-derived IDs on an 8-memory-slice GPU
//   (7g -> 0, 4-slice placements 1-2, 2-slice 3-6, 1-slice 7-14), CI IDs the
//   smallest free per GI; new MIG UUIDs are unique per process. Destroying
//   a GI with a live CI -> NVML_ERROR_IN_USE. MIG device handles enumerate
//   by (GI ID, CI ID).
// - Events: nvmlEventSetWait_v2 delivers each scripted "xids" entry of a GPU
//   registered for XidCriticalError once (GI/CI IDs 0xFFFFFFFF); then, if a
//   registered GPU is scripted "lost", NVML_ERROR_GPU_IS_LOST; otherwise
//   NVML_ERROR_TIMEOUT. Both after sleeping min(timeout, 50 ms).
// All entry points are thread-safe (one mutex; the wait sleeps without it).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "devices/gpu_facts.h"
#include "devices/nvml/gpu_facts_json.h"
#include "devices/nvml/internal/nvml_api.h"

namespace {

using draplane::devices::GpuFacts;
using draplane::devices::kArchHopper;
using draplane::devices::MigPlacement;
using draplane::devices::MigProfileFacts;
using draplane::devices::NodeGpuFacts;

struct Gpu;
struct GpuInstance;
struct ComputeInstance;

// What an nvmlDevice_t points at: a physical GPU or a MIG device.
struct DeviceObject {
  Gpu* gpu = nullptr;              // set for a physical GPU
  ComputeInstance* mig = nullptr;  // set for a MIG device
};

struct ComputeInstance {
  DeviceObject device;  // the MIG device
  GpuInstance* gi = nullptr;
  unsigned int id = 0;
  unsigned int profile_index = 0;  // == CI profile ID
  unsigned int slice_count = 0;
  std::string uuid;
  bool alive = true;
};

struct GpuInstance {
  Gpu* gpu = nullptr;
  unsigned int id = 0;
  MigProfileFacts profile;
  MigPlacement placement;
  std::vector<ComputeInstance*> cis;  // live
  bool alive = true;
};

struct Gpu {
  DeviceObject device;
  GpuFacts facts;  // mig_devices and xids are moved into the state below
  unsigned int mig_current = NVML_DEVICE_MIG_DISABLE;
  unsigned int mig_pending = NVML_DEVICE_MIG_DISABLE;
  std::vector<GpuInstance*> gis;  // live
  std::deque<uint32_t> pending_xids;
};

struct EventSet {
  std::vector<std::pair<Gpu*, unsigned long long>> registrations;
  bool alive = true;
};

constexpr unsigned long long kSupportedEvents =
    nvmlEventTypeSingleBitEccError | nvmlEventTypeDoubleBitEccError |
    nvmlEventTypePState | nvmlEventTypeXidCriticalError | nvmlEventTypeClock;
constexpr unsigned int kNoInstance = 0xFFFFFFFF;
// Compute slices of CI profile index 0..7 (1, 2, 3, 4, 7, 8, 6, 1_REV1).
constexpr unsigned int kCiSlices[NVML_COMPUTE_INSTANCE_PROFILE_COUNT] = {
    1, 2, 3, 4, 7, 8, 6, 1};
constexpr unsigned int kGiProfile1SliceRev1 = 0x7;

struct State {
  std::mutex mu;
  int init_count = 0;
  NodeGpuFacts system;  // driver and CUDA versions
  // Everything a handle may point at lives until the next reload, so a
  // stale handle is recognised rather than dangling.
  std::vector<std::unique_ptr<Gpu>> gpus;
  std::vector<std::unique_ptr<GpuInstance>> gi_arena;
  std::vector<std::unique_ptr<ComputeInstance>> ci_arena;
  std::vector<std::unique_ptr<EventSet>> sets;
  unsigned long long next_uuid = 1;  // never reset: UUIDs stay unique
};

State& S() {
  static State state;
  return state;
}

// Handle lookups: nullptr unless the handle is a live object of the kind.
Gpu* AsGpu(nvmlDevice_t device) {
  for (auto& g : S().gpus) {
    if (reinterpret_cast<nvmlDevice_t>(&g->device) == device) return g.get();
  }
  return nullptr;
}

ComputeInstance* AsMig(nvmlDevice_t device) {
  for (auto& ci : S().ci_arena) {
    if (ci->alive && reinterpret_cast<nvmlDevice_t>(&ci->device) == device) {
      return ci.get();
    }
  }
  return nullptr;
}

// The physical GPU of a GPU or MIG device handle.
Gpu* GpuOf(nvmlDevice_t device) {
  if (Gpu* g = AsGpu(device)) return g;
  if (ComputeInstance* ci = AsMig(device)) return ci->gi->gpu;
  return nullptr;
}

GpuInstance* AsGi(nvmlGpuInstance_t handle) {
  for (auto& gi : S().gi_arena) {
    if (gi->alive && reinterpret_cast<nvmlGpuInstance_t>(gi.get()) == handle) {
      return gi.get();
    }
  }
  return nullptr;
}

ComputeInstance* AsCi(nvmlComputeInstance_t handle) {
  for (auto& ci : S().ci_arena) {
    if (ci->alive &&
        reinterpret_cast<nvmlComputeInstance_t>(ci.get()) == handle) {
      return ci.get();
    }
  }
  return nullptr;
}

EventSet* AsSet(nvmlEventSet_t handle) {
  for (auto& s : S().sets) {
    if (s->alive && reinterpret_cast<nvmlEventSet_t>(s.get()) == handle) {
      return s.get();
    }
  }
  return nullptr;
}

nvmlReturn_t CopyString(const std::string& s, char* buf, unsigned int length) {
  if (buf == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (length < s.size() + 1) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(buf, s.c_str(), s.size() + 1);
  return NVML_SUCCESS;
}

const MigProfileFacts* ProfileByIndex(const Gpu& g, unsigned int index) {
  for (const MigProfileFacts& p : g.facts.mig_profiles) {
    if (p.index == index) return &p;
  }
  return nullptr;
}

const MigProfileFacts* ProfileById(const Gpu& g, unsigned int id) {
  for (const MigProfileFacts& p : g.facts.mig_profiles) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

// Memory slices of the GPU (8 on A100/H100/H200) and compute slices (7).
unsigned int MemorySlices(const Gpu& g) {
  unsigned int n = 0;
  for (const MigProfileFacts& p : g.facts.mig_profiles) {
    for (const MigPlacement& pl : p.placements) {
      n = std::max(n, pl.start + pl.size);
    }
  }
  return n;
}

unsigned int ComputeSlices(const Gpu& g) {
  unsigned int n = 0;
  for (const MigProfileFacts& p : g.facts.mig_profiles) {
    n = std::max(n, p.slice_count);
  }
  return n;
}

bool GiIdUsed(const Gpu& g, unsigned int id) {
  return std::any_of(g.gis.begin(), g.gis.end(),
                     [&](const GpuInstance* gi) { return gi->id == id; });
}

// NVML numbers GPU instances by their node in the binary tree of the 8
// memory slices (what `nvidia-smi mig -lgi` shows: 7g.* is 0, the 3g/4g
// halves 1-2, 2-slice quarters 3-6, 1-slice eighths 7-14).
unsigned int NewGiId(const Gpu& g, const MigPlacement& p) {
  const bool power_of_two = p.size != 0 && (p.size & (p.size - 1)) == 0;
  if (MemorySlices(g) == 8 && power_of_two && p.size <= 8 &&
      p.start % p.size == 0) {
    const unsigned int id = 8 / p.size - 1 + p.start / p.size;
    if (!GiIdUsed(g, id)) return id;
  }
  unsigned int id = 1;
  while (GiIdUsed(g, id)) ++id;
  return id;
}

std::string NewMigUuid() {
  const unsigned long long n = S().next_uuid++;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "MIG-%08llx-fa4e-5000-8000-%012llx",
                n & 0xffffffffULL, n);
  return buf;
}

// Whether CI profile `index` exists on `gi`, and its compute slices.
bool CiProfileFits(const GpuInstance& gi, unsigned int index,
                   unsigned int* slices) {
  if (index >= NVML_COMPUTE_INSTANCE_PROFILE_COUNT) return false;
  const unsigned int c = kCiSlices[index];
  const unsigned int g = gi.profile.slice_count;
  if (c > g) return false;
  if ((c == 6 || c == 8) && c != g) return false;
  if (index == NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE_REV1 &&
      gi.profile.index != kGiProfile1SliceRev1) {
    return false;
  }
  *slices = c;
  return true;
}

ComputeInstance* AddComputeInstance(GpuInstance& gi, unsigned int id,
                                    unsigned int profile_index,
                                    unsigned int slices, std::string uuid) {
  auto ci = std::make_unique<ComputeInstance>();
  ci->gi = &gi;
  ci->id = id;
  ci->profile_index = profile_index;
  ci->slice_count = slices;
  ci->uuid = std::move(uuid);
  ci->device.mig = ci.get();
  gi.cis.push_back(ci.get());
  S().ci_arena.push_back(std::move(ci));
  return gi.cis.back();
}

GpuInstance* AddGpuInstance(Gpu& g, unsigned int id,
                            const MigProfileFacts& profile,
                            const MigPlacement& placement) {
  auto gi = std::make_unique<GpuInstance>();
  gi->gpu = &g;
  gi->id = id;
  gi->profile = profile;
  gi->placement = placement;
  g.gis.push_back(gi.get());
  S().gi_arena.push_back(std::move(gi));
  return g.gis.back();
}

// The CI profile index spanning the whole GI (what the DRA driver creates).
unsigned int FullCiProfile(const GpuInstance& gi) {
  for (unsigned int i = 0; i < NVML_COMPUTE_INSTANCE_PROFILE_COUNT; ++i) {
    unsigned int slices = 0;
    if (i != NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE_REV1 &&
        CiProfileFits(gi, i, &slices) && slices == gi.profile.slice_count) {
      return i;
    }
  }
  return 0;
}

bool Fail(const std::string& why) {
  std::fprintf(stderr, "fake libnvidia-ml: %s\n", why.c_str());
  return false;
}

// Replaces the state with the scripted facts. REQUIRES: S().mu held.
bool Load(nvmlReturn_t* error) {
  *error = NVML_ERROR_UNKNOWN;
  const char* path = std::getenv("DRAPLANE_FAKE_NVML_FACTS");
  if (path == nullptr || *path == '\0') {
    *error = NVML_ERROR_DRIVER_NOT_LOADED;
    return Fail("DRAPLANE_FAKE_NVML_FACTS is not set");
  }
  std::ifstream in(path);
  if (!in) return Fail(std::string("cannot read ") + path);
  nlohmann::json json = nlohmann::json::parse(in, nullptr, false);
  if (json.is_discarded()) return Fail(std::string(path) + ": invalid JSON");
  absl::StatusOr<NodeGpuFacts> facts =
      draplane::devices::GpuFactsFromJson(json);
  if (!facts.ok()) {
    return Fail(std::string(path) + ": " +
                std::string(facts.status().message()));
  }
  State& s = S();
  s.sets.clear();
  s.ci_arena.clear();
  s.gi_arena.clear();
  s.gpus.clear();
  s.system = *facts;
  s.system.gpus.clear();
  for (GpuFacts& f : facts->gpus) {
    auto g = std::make_unique<Gpu>();
    g->device.gpu = g.get();
    g->mig_current = g->mig_pending =
        f.mig_enabled ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE;
    g->pending_xids.assign(f.xids.begin(), f.xids.end());
    std::vector<draplane::devices::MigDeviceFacts> devices =
        std::move(f.mig_devices);
    g->facts = std::move(f);
    g->facts.mig_devices.clear();
    g->facts.xids.clear();
    if (!devices.empty() && !g->facts.mig_enabled) {
      return Fail(g->facts.uuid + ": migDevices need migEnabled");
    }
    for (const auto& d : devices) {
      const MigProfileFacts* profile = ProfileById(*g, d.profile_id);
      if (profile == nullptr) {
        return Fail(d.uuid + ": unknown GI profile ID " +
                    std::to_string(d.profile_id));
      }
      GpuInstance* gi =
          AddGpuInstance(*g, d.gpu_instance_id, *profile, d.placement);
      const unsigned int ci_profile = FullCiProfile(*gi);
      AddComputeInstance(*gi, d.compute_instance_id, ci_profile,
                         kCiSlices[ci_profile], d.uuid);
    }
    s.gpus.push_back(std::move(g));
  }
  return true;
}

// Live MIG devices of `g` in NVML's enumeration order.
std::vector<ComputeInstance*> MigDevices(const Gpu& g) {
  std::vector<ComputeInstance*> out;
  for (GpuInstance* gi : g.gis) {
    out.insert(out.end(), gi->cis.begin(), gi->cis.end());
  }
  std::sort(out.begin(), out.end(), [](ComputeInstance* a, ComputeInstance* b) {
    return std::pair(a->gi->id, a->id) < std::pair(b->gi->id, b->id);
  });
  return out;
}

}  // namespace

// Every entry point takes the lock and fails before init.
#define FAKE_NVML_ENTER()                   \
  std::lock_guard<std::mutex> lock(S().mu); \
  if (S().init_count == 0) return NVML_ERROR_UNINITIALIZED

extern "C" {

nvmlReturn_t nvmlInit_v2(void) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (S().init_count == 0) {
    nvmlReturn_t error = NVML_SUCCESS;
    if (!Load(&error)) return error;
  }
  ++S().init_count;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void) {
  FAKE_NVML_ENTER();
  --S().init_count;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  FAKE_NVML_ENTER();
  return CopyString(S().system.driver_version, version, length);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* cudaDriverVersion) {
  FAKE_NVML_ENTER();
  if (cudaDriverVersion == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *cudaDriverVersion = S().system.cuda_driver_version;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* deviceCount) {
  FAKE_NVML_ENTER();
  if (deviceCount == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *deviceCount = static_cast<unsigned int>(S().gpus.size());
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index,
                                           nvmlDevice_t* device) {
  FAKE_NVML_ENTER();
  if (device == nullptr || index >= S().gpus.size()) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  *device = reinterpret_cast<nvmlDevice_t>(&S().gpus[index]->device);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device,
                                      unsigned int* minorNumber) {
  FAKE_NVML_ENTER();
  if (AsMig(device) != nullptr) return NVML_ERROR_NOT_SUPPORTED;
  Gpu* g = AsGpu(device);
  if (g == nullptr || minorNumber == nullptr) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  *minorNumber = g->facts.minor;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid,
                               unsigned int length) {
  FAKE_NVML_ENTER();
  if (ComputeInstance* ci = AsMig(device)) {
    return CopyString(ci->uuid, uuid, length);
  }
  Gpu* g = AsGpu(device);
  if (g == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return CopyString(g->facts.uuid, uuid, length);
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name,
                               unsigned int length) {
  FAKE_NVML_ENTER();
  if (ComputeInstance* ci = AsMig(device)) {
    return CopyString(ci->gi->gpu->facts.product_name + " MIG " +
                          std::to_string(ci->gi->profile.slice_count) + "g",
                      name, length);
  }
  Gpu* g = AsGpu(device);
  if (g == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return CopyString(g->facts.product_name, name, length);
}

nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t device,
                                       nvmlDeviceArchitecture_t* arch) {
  FAKE_NVML_ENTER();
  Gpu* g = GpuOf(device);
  if (g == nullptr || arch == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *arch = g->facts.architecture;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t device, nvmlBrandType_t* type) {
  FAKE_NVML_ENTER();
  Gpu* g = GpuOf(device);
  if (g == nullptr || type == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *type = static_cast<nvmlBrandType_t>(g->facts.brand);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int* major,
                                                int* minor) {
  FAKE_NVML_ENTER();
  Gpu* g = GpuOf(device);
  if (g == nullptr || major == nullptr || minor == nullptr) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  *major = g->facts.cuda_compute_major;
  *minor = g->facts.cuda_compute_minor;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device,
                                     nvmlMemory_t* memory) {
  FAKE_NVML_ENTER();
  Gpu* g = AsGpu(device);
  if (g == nullptr || memory == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (!g->facts.memory_bytes.has_value()) return NVML_ERROR_NOT_SUPPORTED;
  memory->total = *g->facts.memory_bytes;
  memory->used = std::min<unsigned long long>(memory->total, 512ULL << 20);
  memory->free = memory->total - memory->used;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  FAKE_NVML_ENTER();
  Gpu* g = AsGpu(device);
  if (g == nullptr || pci == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  std::memset(pci, 0, sizeof(*pci));
  const std::string& bus_id = g->facts.pci_bus_id;
  if (bus_id.size() >= sizeof(pci->busId)) return NVML_ERROR_UNKNOWN;
  std::memcpy(pci->busId, bus_id.c_str(), bus_id.size() + 1);
  unsigned int function = 0;
  if (std::sscanf(bus_id.c_str(), "%x:%x:%x.%x", &pci->domain, &pci->bus,
                  &pci->device, &function) == 4) {
    std::snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy),
                  "%04X:%02X:%02X.0", pci->domain & 0xffff, pci->bus & 0xff,
                  pci->device & 0xff);
  }
  pci->pciDeviceId = g->facts.pci_device_id;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetAddressingMode(nvmlDevice_t device,
                                         nvmlDeviceAddressingMode_t* mode) {
  FAKE_NVML_ENTER();
  Gpu* g = AsGpu(device);
  if (g == nullptr || mode == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (mode->version != nvmlDeviceAddressingMode_v1) {
    return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  }
  const std::optional<std::string>& name = g->facts.addressing_mode;
  if (!name.has_value()) return NVML_ERROR_NOT_SUPPORTED;
  if (*name == "None") {
    mode->value = NVML_DEVICE_ADDRESSING_MODE_NONE;
  } else if (*name == "HMM") {
    mode->value = NVML_DEVICE_ADDRESSING_MODE_HMM;
  } else if (*name == "ATS") {
    mode->value = NVML_DEVICE_ADDRESSING_MODE_ATS;
  } else {
    return NVML_ERROR_UNKNOWN;
  }
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetVirtualizationMode(
    nvmlDevice_t device, nvmlGpuVirtualizationMode_t* pVirtualMode) {
  FAKE_NVML_ENTER();
  Gpu* g = AsGpu(device);
  if (g == nullptr || pVirtualMode == nullptr) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  *pVirtualMode = g->facts.vgpu_guest ? NVML_GPU_VIRTUALIZATION_MODE_VGPU
                                      : NVML_GPU_VIRTUALIZATION_MODE_NONE;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device,
                                  unsigned int* currentMode,
                                  unsigned int* pendingMode) {
  FAKE_NVML_ENTER();
  Gpu* g = AsGpu(device);
  if (g == nullptr || currentMode == nullptr || pendingMode == nullptr) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  if (!g->facts.mig_capable) return NVML_ERROR_NOT_SUPPORTED;
  *currentMode = g->mig_current;
  *pendingMode = g->mig_pending;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceSetMigMode(nvmlDevice_t device, unsigned int mode,
                                  nvmlReturn_t* activationStatus) {
  FAKE_NVML_ENTER();
  Gpu* g = AsGpu(device);
  if (g == nullptr || activationStatus == nullptr ||
      (mode != NVML_DEVICE_MIG_DISABLE && mode != NVML_DEVICE_MIG_ENABLE)) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  if (!g->facts.mig_capable) return NVML_ERROR_NOT_SUPPORTED;
  if (g->facts.architecture < kArchHopper) {
    g->mig_pending = mode;
    *activationStatus =
        mode == g->mig_current ? NVML_SUCCESS : NVML_ERROR_RESET_REQUIRED;
    return NVML_SUCCESS;
  }
  if (mode == NVML_DEVICE_MIG_DISABLE && !g->gis.empty()) {
    *activationStatus = NVML_ERROR_IN_USE;
    return NVML_SUCCESS;
  }
  g->mig_current = g->mig_pending = mode;
  g->facts.mig_enabled = mode == NVML_DEVICE_MIG_ENABLE;
  *activationStatus = NVML_SUCCESS;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(
    nvmlDevice_t device, unsigned int profile,
    nvmlGpuInstanceProfileInfo_t* info) {
  FAKE_NVML_ENTER();
  Gpu* g = AsGpu(device);
  if (g == nullptr || info == nullptr ||
      profile >= NVML_GPU_INSTANCE_PROFILE_COUNT) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  if (!g->facts.mig_capable) return NVML_ERROR_NOT_SUPPORTED;
  const MigProfileFacts* p = ProfileByIndex(*g, profile);
  if (p == nullptr) return NVML_ERROR_NOT_SUPPORTED;
  std::memset(info, 0, sizeof(*info));
  info->id = p->id;
  info->sliceCount = p->slice_count;
  info->instanceCount = p->instance_count;
  info->multiprocessorCount = p->multiprocessor_count;
  info->copyEngineCount = p->copy_engine_count;
  info->decoderCount = p->decoder_count;
  info->encoderCount = p->encoder_count;
  info->jpegCount = p->jpeg_count;
  info->ofaCount = p->ofa_count;
  info->memorySizeMB = p->memory_size_mib;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuInstancePossiblePlacements_v2(
    nvmlDevice_t device, unsigned int profileId,
    nvmlGpuInstancePlacement_t* placements, unsigned int* count) {
  FAKE_NVML_ENTER();
  Gpu* g = AsGpu(device);
  if (g == nullptr || count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (!g->facts.mig_capable) return NVML_ERROR_NOT_SUPPORTED;
  const MigProfileFacts* p = ProfileById(*g, profileId);
  if (p == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  const auto n = static_cast<unsigned int>(p->placements.size());
  if (placements == nullptr) {
    *count = n;
    return NVML_SUCCESS;
  }
  if (*count < n) {
    *count = n;
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  for (unsigned int i = 0; i < n; ++i) {
    placements[i] = {p->placements[i].start, p->placements[i].size};
  }
  *count = n;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceCreateGpuInstanceWithPlacement(
    nvmlDevice_t device, unsigned int profileId,
    const nvmlGpuInstancePlacement_t* placement,
    nvmlGpuInstance_t* gpuInstance) {
  FAKE_NVML_ENTER();
  Gpu* g = AsGpu(device);
  if (g == nullptr || placement == nullptr || gpuInstance == nullptr) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  if (!g->facts.mig_capable || g->mig_current != NVML_DEVICE_MIG_ENABLE ||
      g->facts.vgpu_guest) {
    return NVML_ERROR_NOT_SUPPORTED;
  }
  const MigProfileFacts* p = ProfileById(*g, profileId);
  if (p == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  const MigPlacement want{placement->start, placement->size};
  if (std::find(p->placements.begin(), p->placements.end(), want) ==
      p->placements.end()) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  unsigned int same_profile = 0, compute_used = 0;
  for (const GpuInstance* gi : g->gis) {
    if (gi->profile.id == p->id) ++same_profile;
    compute_used += gi->profile.slice_count;
    const bool overlap =
        want.start < gi->placement.start + gi->placement.size &&
        gi->placement.start < want.start + want.size;
    if (overlap) return NVML_ERROR_INSUFFICIENT_RESOURCES;
  }
  if (same_profile >= p->instance_count ||
      compute_used + p->slice_count > ComputeSlices(*g)) {
    return NVML_ERROR_INSUFFICIENT_RESOURCES;
  }
  GpuInstance* gi = AddGpuInstance(*g, NewGiId(*g, want), *p, want);
  *gpuInstance = reinterpret_cast<nvmlGpuInstance_t>(gi);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceById(nvmlDevice_t device, unsigned int id,
                                          nvmlGpuInstance_t* gpuInstance) {
  FAKE_NVML_ENTER();
  Gpu* g = AsGpu(device);
  if (g == nullptr || gpuInstance == nullptr) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  if (!g->facts.mig_capable || g->mig_current != NVML_DEVICE_MIG_ENABLE) {
    return NVML_ERROR_NOT_SUPPORTED;
  }
  for (GpuInstance* gi : g->gis) {
    if (gi->id == id) {
      *gpuInstance = reinterpret_cast<nvmlGpuInstance_t>(gi);
      return NVML_SUCCESS;
    }
  }
  return NVML_ERROR_NOT_FOUND;
}

nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t gpuInstance,
                                    nvmlGpuInstanceInfo_t* info) {
  FAKE_NVML_ENTER();
  GpuInstance* gi = AsGi(gpuInstance);
  if (gi == nullptr || info == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  info->device = reinterpret_cast<nvmlDevice_t>(&gi->gpu->device);
  info->id = gi->id;
  info->profileId = gi->profile.id;
  info->placement = {gi->placement.start, gi->placement.size};
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpuInstanceDestroy(nvmlGpuInstance_t gpuInstance) {
  FAKE_NVML_ENTER();
  GpuInstance* gi = AsGi(gpuInstance);
  if (gi == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (!gi->cis.empty()) return NVML_ERROR_IN_USE;
  gi->alive = false;
  std::vector<GpuInstance*>& gis = gi->gpu->gis;
  gis.erase(std::find(gis.begin(), gis.end(), gi));
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfo(
    nvmlGpuInstance_t gpuInstance, unsigned int profile,
    unsigned int engProfile, nvmlComputeInstanceProfileInfo_t* info) {
  FAKE_NVML_ENTER();
  GpuInstance* gi = AsGi(gpuInstance);
  if (gi == nullptr || info == nullptr ||
      profile >= NVML_COMPUTE_INSTANCE_PROFILE_COUNT ||
      engProfile != NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  unsigned int slices = 0;
  if (!CiProfileFits(*gi, profile, &slices)) return NVML_ERROR_NOT_SUPPORTED;
  const MigProfileFacts& g = gi->profile;
  std::memset(info, 0, sizeof(*info));
  info->id = profile;  // NVML's CI profile IDs equal the profile indices
  info->sliceCount = slices;
  info->instanceCount = g.slice_count / slices;
  info->multiprocessorCount = g.multiprocessor_count * slices / g.slice_count;
  info->sharedCopyEngineCount = g.copy_engine_count;
  info->sharedDecoderCount = g.decoder_count;
  info->sharedEncoderCount = g.encoder_count;
  info->sharedJpegCount = g.jpeg_count;
  info->sharedOfaCount = g.ofa_count;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpuInstanceCreateComputeInstance(
    nvmlGpuInstance_t gpuInstance, unsigned int profileId,
    nvmlComputeInstance_t* computeInstance) {
  FAKE_NVML_ENTER();
  GpuInstance* gi = AsGi(gpuInstance);
  if (gi == nullptr || computeInstance == nullptr) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  unsigned int slices = 0;
  if (!CiProfileFits(*gi, profileId, &slices)) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  unsigned int used = 0;
  for (const ComputeInstance* ci : gi->cis) used += ci->slice_count;
  if (used + slices > gi->profile.slice_count) {
    return NVML_ERROR_INSUFFICIENT_RESOURCES;
  }
  unsigned int id = 0;
  while (std::any_of(gi->cis.begin(), gi->cis.end(),
                     [&](const ComputeInstance* ci) { return ci->id == id; })) {
    ++id;
  }
  ComputeInstance* ci =
      AddComputeInstance(*gi, id, profileId, slices, NewMigUuid());
  *computeInstance = reinterpret_cast<nvmlComputeInstance_t>(ci);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlGpuInstanceGetComputeInstanceById(
    nvmlGpuInstance_t gpuInstance, unsigned int id,
    nvmlComputeInstance_t* computeInstance) {
  FAKE_NVML_ENTER();
  GpuInstance* gi = AsGi(gpuInstance);
  if (gi == nullptr || computeInstance == nullptr) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  for (ComputeInstance* ci : gi->cis) {
    if (ci->id == id) {
      *computeInstance = reinterpret_cast<nvmlComputeInstance_t>(ci);
      return NVML_SUCCESS;
    }
  }
  return NVML_ERROR_NOT_FOUND;
}

nvmlReturn_t nvmlComputeInstanceGetInfo_v2(
    nvmlComputeInstance_t computeInstance, nvmlComputeInstanceInfo_t* info) {
  FAKE_NVML_ENTER();
  ComputeInstance* ci = AsCi(computeInstance);
  if (ci == nullptr || info == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  info->device = reinterpret_cast<nvmlDevice_t>(&ci->device);
  info->gpuInstance = reinterpret_cast<nvmlGpuInstance_t>(ci->gi);
  info->id = ci->id;
  info->profileId = ci->profile_index;
  unsigned int start = 0;
  for (const ComputeInstance* other : ci->gi->cis) {
    if (other != ci && other->id < ci->id) start += other->slice_count;
  }
  info->placement = {start, ci->slice_count};
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlComputeInstanceDestroy(nvmlComputeInstance_t computeInstance) {
  FAKE_NVML_ENTER();
  ComputeInstance* ci = AsCi(computeInstance);
  if (ci == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  ci->alive = false;
  std::vector<ComputeInstance*>& cis = ci->gi->cis;
  cis.erase(std::find(cis.begin(), cis.end(), ci));
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device,
                                            unsigned int* count) {
  FAKE_NVML_ENTER();
  Gpu* g = AsGpu(device);
  if (g == nullptr || count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (!g->facts.mig_capable) return NVML_ERROR_NOT_SUPPORTED;
  *count = ComputeSlices(*g);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device,
                                                 unsigned int index,
                                                 nvmlDevice_t* migDevice) {
  FAKE_NVML_ENTER();
  Gpu* g = AsGpu(device);
  if (g == nullptr || migDevice == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (!g->facts.mig_capable) return NVML_ERROR_NOT_SUPPORTED;
  if (index >= ComputeSlices(*g)) return NVML_ERROR_INVALID_ARGUMENT;
  const std::vector<ComputeInstance*> devices = MigDevices(*g);
  if (index >= devices.size()) return NVML_ERROR_NOT_FOUND;
  *migDevice = reinterpret_cast<nvmlDevice_t>(&devices[index]->device);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(
    nvmlDevice_t migDevice, nvmlDevice_t* device) {
  FAKE_NVML_ENTER();
  ComputeInstance* ci = AsMig(migDevice);
  if (ci == nullptr || device == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *device = reinterpret_cast<nvmlDevice_t>(&ci->gi->gpu->device);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int* id) {
  FAKE_NVML_ENTER();
  ComputeInstance* ci = AsMig(device);
  if (ci == nullptr || id == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *id = ci->gi->id;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device,
                                            unsigned int* id) {
  FAKE_NVML_ENTER();
  ComputeInstance* ci = AsMig(device);
  if (ci == nullptr || id == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *id = ci->id;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t* set) {
  FAKE_NVML_ENTER();
  if (set == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  S().sets.push_back(std::make_unique<EventSet>());
  *set = reinterpret_cast<nvmlEventSet_t>(S().sets.back().get());
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device,
                                              unsigned long long* eventTypes) {
  FAKE_NVML_ENTER();
  Gpu* g = AsGpu(device);
  if (g == nullptr || eventTypes == nullptr) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  *eventTypes = kSupportedEvents;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device,
                                      unsigned long long eventTypes,
                                      nvmlEventSet_t set) {
  FAKE_NVML_ENTER();
  Gpu* g = AsGpu(device);
  EventSet* s = AsSet(set);
  if (g == nullptr || s == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if ((eventTypes & ~kSupportedEvents) != 0) return NVML_ERROR_NOT_SUPPORTED;
  s->registrations.emplace_back(g, eventTypes);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t* data,
                                 unsigned int timeoutms) {
  nvmlReturn_t result = NVML_ERROR_TIMEOUT;
  {
    FAKE_NVML_ENTER();
    EventSet* s = AsSet(set);
    if (s == nullptr || data == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    for (auto& [g, mask] : s->registrations) {
      if ((mask & nvmlEventTypeXidCriticalError) != 0 &&
          !g->pending_xids.empty()) {
        std::memset(data, 0, sizeof(*data));
        data->device = reinterpret_cast<nvmlDevice_t>(&g->device);
        data->eventType = nvmlEventTypeXidCriticalError;
        data->eventData = g->pending_xids.front();
        data->gpuInstanceId = kNoInstance;
        data->computeInstanceId = kNoInstance;
        g->pending_xids.pop_front();
        return NVML_SUCCESS;
      }
    }
    for (auto& [g, mask] : s->registrations) {
      if (g->facts.lost) result = NVML_ERROR_GPU_IS_LOST;
    }
  }
  std::this_thread::sleep_for(
      std::chrono::milliseconds(std::min(timeoutms, 50u)));
  return result;
}

nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
  FAKE_NVML_ENTER();
  EventSet* s = AsSet(set);
  if (s == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  s->alive = false;
  return NVML_SUCCESS;
}

}  // extern "C"
