// Arbitrary bytes as a DRA selector: compile in the Kubernetes DRA
// environment (parse, check, plan with every library) and evaluate against
// an NVIDIA-like device with a cost limit, through the public cel.h API
// that admission, the scheduler and `draplane cel` use. Any crash,
// sanitizer report, hang or unbounded memory is a bug; errors are expected.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cel/cel.h"

namespace {

const draplane::cel::Device& FuzzDevice() {
  static const draplane::cel::Device* device = [] {
    draplane::api::Device d;
    d.name = "gpu-0";
    d.attributes["productName"] =
        draplane::api::DeviceAttribute::String("NVIDIA A100 80GB PCIe");
    d.attributes["index"] = draplane::api::DeviceAttribute::Int(0);
    d.attributes["ecc"] = draplane::api::DeviceAttribute::Bool(true);
    d.attributes["cudaComputeCapability"] =
        draplane::api::DeviceAttribute::Version("8.0.0");
    d.attributes["other.example.com/x"] =
        draplane::api::DeviceAttribute::String("y");
    d.capacity["memory"].value = *draplane::Quantity::Parse("80Gi");
    return new draplane::cel::Device(
        *draplane::cel::Device::Create("gpu.nvidia.com", d));
  }();
  return *device;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view source(reinterpret_cast<const char*>(data), size);
  auto program =
      draplane::cel::Compiler::Default().CompileDeviceExpression(source);
  if (!program.ok()) return 0;
  draplane::cel::Evaluation e =
      (*program)->Evaluate(FuzzDevice(), /*cost_limit=*/100000);
  (void)draplane::api::DumpJson(e.value);
  (void)(*program)->Matches(FuzzDevice(), 100000);
  return 0;
}
