// draplane-nvml-discover: prints what the nvml backend discovers on this
// node, as the JSON of gpu_facts_json.h (the form saved under tests/data).
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <string_view>

#include "devices/gpu_models.h"
#include "devices/nvml/gpu_facts_json.h"
#include "devices/nvml/nvml_backend.h"

namespace {

constexpr char kUsage[] =
    "Usage: draplane-nvml-discover [--library PATH] [--driver-root DIR]\n"
    "                              [--sysfs-root DIR]\n"
    "       draplane-nvml-discover --model NAME\n"
    "\n"
    "Loads libnvidia-ml.so.1 and prints the node's GPUs as NVML reports\n"
    "them (NodeGpuFacts JSON).\n"
    "\n"
    "  --library PATH      the library to load (default: searched under the\n"
    "                      driver root)\n"
    "  --driver-root DIR   where the NVIDIA driver is installed (default /)\n"
    "  --sysfs-root DIR    sysfs, for PCIe roots (default /sys)\n"
    "  --model NAME        print instead what the fake backend reports for\n"
    "                      one GPU of this model (gpu_models.h), to compare\n"
    "                      with a real GPU (tests/gpu/check-h200.sh)\n"
    "\n"
    "Example:\n"
    "  draplane-nvml-discover --driver-root /run/nvidia/driver > h200.json\n";

}  // namespace

int main(int argc, char** argv) {
  draplane::devices::NvmlBackendOptions options;
  std::string model;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    std::string* target = nullptr;
    std::string_view flag = arg;
    std::string_view value;
    bool has_value = false;
    if (const size_t eq = arg.find('='); eq != std::string_view::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    if (flag == "--library") {
      target = &options.library_path;
    } else if (flag == "--driver-root") {
      target = &options.driver_root;
    } else if (flag == "--sysfs-root") {
      target = &options.sysfs_root;
    } else if (flag == "--model") {
      target = &model;
    } else {
      std::fprintf(stderr, "draplane-nvml-discover: unknown argument %s\n\n%s",
                   argv[i], kUsage);
      return 2;
    }
    if (!has_value) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "draplane-nvml-discover: %s needs a value\n",
                     argv[i]);
        return 2;
      }
      value = argv[++i];
    }
    *target = std::string(value);
  }

  if (!model.empty()) {
    const draplane::devices::GpuModel* m =
        draplane::devices::FindGpuModel(model);
    if (m == nullptr) {
      std::fprintf(stderr, "draplane-nvml-discover: unknown model %s\n",
                   model.c_str());
      return 2;
    }
    draplane::devices::NodeGpuFacts facts;
    facts.gpus.push_back(draplane::devices::MakeGpuFacts(
        *m, 0, "GPU-00000000-0000-0000-0000-000000000000", "00000000:00:00.0"));
    std::cout << draplane::devices::GpuFactsToJson(facts).dump(2) << "\n";
    return 0;
  }
  auto backend = draplane::devices::OpenNvmlBackend(options);
  if (!backend.ok()) {
    std::fprintf(stderr, "draplane-nvml-discover: %s\n",
                 backend.status().ToString().c_str());
    return 1;
  }
  auto facts = (*backend)->Discover();
  if (!facts.ok()) {
    std::fprintf(stderr, "draplane-nvml-discover: %s\n",
                 facts.status().ToString().c_str());
    return 1;
  }
  std::cout << draplane::devices::GpuFactsToJson(*facts).dump(2) << "\n";
  return 0;
}
