// Arbitrary bytes as a simulated-GPU inventory (`--inventory`, the fake
// device backend): parsing, then for each node the devices it publishes
// (with and without DynamicMIG) and the ResourceSlices of its pool. Every
// published device must land in exactly one slice. Inputs with more than
// 64 GPUs in total are skipped to keep each run fast. Any crash, sanitizer
// report, hang, exception or lost device is a bug; parse errors are
// expected.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "devices/device_model.h"
#include "devices/fake_backend.h"

namespace {

constexpr size_t kMaxGpus = 64;

void PublishNode(const draplane::devices::InventoryNode& node,
                 bool dynamic_mig) {
  using namespace draplane::devices;
  DeviceModelOptions options;
  options.dynamic_mig = dynamic_mig;
  NodeDevices devices = BuildNodeDevices(node.gpus, options);
  size_t published = 0;
  for (const auto& gpu : devices.devices_per_gpu) published += gpu.size();
  std::vector<draplane::api::ResourceSliceSpec> slices =
      LayoutResourceSlices(devices, node.name, options.driver);
  size_t in_slices = 0;
  for (const draplane::api::ResourceSliceSpec& slice : slices) {
    in_slices += slice.devices.size();
  }
  if (slices.empty() || in_slices != published) {
    std::fprintf(stderr, "node %s: %zu devices published, %zu in %zu slices\n",
                 node.name.c_str(), published, in_slices, slices.size());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace draplane::devices;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<Inventory> inventory = ParseInventory(text, "fuzz");
  if (!inventory.ok()) return 0;
  size_t gpus = 0;
  for (const InventoryNode& node : inventory->nodes) {
    gpus += node.gpus.gpus.size();
  }
  if (gpus > kMaxGpus) return 0;
  for (const InventoryNode& node : inventory->nodes) {
    PublishNode(node, /*dynamic_mig=*/true);
    PublishNode(node, /*dynamic_mig=*/false);
  }
  return 0;
}
