// Arbitrary bytes as the JSON form of discovered GPU facts (saved NVML
// facts, DRAPLANE_FAKE_NVML_FACTS): decoding, then GpuFactsToJson must
// decode back to equal facts, and the devices and ResourceSlices published
// for the facts must build. Publishing is skipped for inputs beyond a
// small size (GPUs, MIG profiles, placements and memory slices), whose
// cost grows with the numbers in the facts, to keep each run fast. Any
// crash, sanitizer report, hang, exception or round-trip mismatch is a bug;
// decoding errors are expected.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "devices/device_model.h"
#include "devices/nvml/gpu_facts_json.h"

namespace {

using draplane::devices::NodeGpuFacts;

constexpr size_t kMaxGpus = 64;
constexpr size_t kMaxMigProfiles = 16;
constexpr size_t kMaxPlacements = 16;
constexpr size_t kMaxMigDevices = 16;
// BuildNodeDevices makes one counter or capacity per memory slice up to
// the end of each placement, start + size (as uint32_t, like the model).
constexpr uint32_t kMaxMemorySlices = 64;

bool SmallEnoughToPublish(const NodeGpuFacts& facts) {
  if (facts.gpus.size() > kMaxGpus) return false;
  for (const draplane::devices::GpuFacts& gpu : facts.gpus) {
    if (gpu.mig_profiles.size() > kMaxMigProfiles ||
        gpu.mig_devices.size() > kMaxMigDevices) {
      return false;
    }
    for (const draplane::devices::MigProfileFacts& p : gpu.mig_profiles) {
      if (p.placements.size() > kMaxPlacements) return false;
      for (const draplane::devices::MigPlacement& pl : p.placements) {
        if (static_cast<uint32_t>(pl.start + pl.size) > kMaxMemorySlices) {
          return false;
        }
      }
    }
    for (const draplane::devices::MigDeviceFacts& d : gpu.mig_devices) {
      if (static_cast<uint32_t>(d.placement.start + d.placement.size) >
          kMaxMemorySlices) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace draplane::devices;
  nlohmann::json json = nlohmann::json::parse(data, data + size, nullptr,
                                              /*allow_exceptions=*/false);
  if (json.is_discarded()) return 0;
  absl::StatusOr<NodeGpuFacts> facts = GpuFactsFromJson(json);
  if (!facts.ok()) return 0;
  const nlohmann::json encoded = GpuFactsToJson(*facts);
  absl::StatusOr<NodeGpuFacts> again = GpuFactsFromJson(encoded);
  if (!again.ok()) {
    std::fprintf(stderr, "GpuFactsToJson output does not decode: %s\n%s\n",
                 std::string(again.status().message()).c_str(),
                 encoded.dump().c_str());
    std::abort();
  }
  if (!(*again == *facts)) {
    std::fprintf(stderr, "round trip changed the facts:\n%s\n%s\n",
                 encoded.dump().c_str(), GpuFactsToJson(*again).dump().c_str());
    std::abort();
  }
  if (!SmallEnoughToPublish(*facts)) return 0;
  for (bool dynamic_mig : {true, false}) {
    DeviceModelOptions options;
    options.dynamic_mig = dynamic_mig;
    NodeDevices devices = BuildNodeDevices(*facts, options);
    (void)LayoutResourceSlices(devices, "node", options.driver);
  }
  return 0;
}
