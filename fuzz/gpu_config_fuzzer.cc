// Arbitrary bytes as the opaque `parameters` of a gpu.nvidia.com device
// config (what NVIDIA's validating webhook and the kubelet plugin decode
// from claims and DeviceClasses): strict decoding, normalization and
// validation under the default feature gates and with every gate on. A
// config that passes must encode with DeviceConfigToJson and decode back to
// an equal config. The same bytes as a --feature-gates value go through
// ParseFeatureGates. Any crash, sanitizer report, hang, exception or
// round-trip mismatch is a bug; errors are expected.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "nvidia_config/gpu_config.h"

namespace {

using draplane::nvidia_config::FeatureGates;

FeatureGates AllGatesOn() {
  FeatureGates gates;
  gates.time_slicing_settings = true;
  gates.mps_support = true;
  gates.passthrough_support = true;
  gates.dynamic_mig = true;
  gates.nvml_device_health_check = true;
  gates.device_metadata = true;
  gates.imex_daemons_with_dns_names = true;
  gates.compute_domain_cliques = true;
  gates.crash_on_nvlink_fabric_errors = true;
  return gates;
}

void DecodeAndRoundTrip(const nlohmann::json& parameters,
                        const FeatureGates& gates) {
  using namespace draplane::nvidia_config;
  absl::StatusOr<DeviceConfig> config =
      DecodeOpaqueParameters(parameters, gates);
  if (!config.ok()) return;
  (void)DeviceConfigKind(*config);
  const std::string encoded = DeviceConfigToJson(*config).dump();
  nlohmann::json reparsed =
      nlohmann::json::parse(encoded, nullptr, /*allow_exceptions=*/false);
  if (reparsed.is_discarded()) {
    std::fprintf(stderr, "DeviceConfigToJson is not JSON: %s\n",
                 encoded.c_str());
    std::abort();
  }
  absl::StatusOr<DeviceConfig> again = DecodeOpaqueParameters(reparsed, gates);
  if (!again.ok()) {
    std::fprintf(stderr, "encoded config does not decode: %s\n%s\n",
                 std::string(again.status().message()).c_str(),
                 encoded.c_str());
    std::abort();
  }
  if (!(*again == *config)) {
    std::fprintf(stderr, "round trip changed the config: %s -> %s\n",
                 encoded.c_str(), DeviceConfigToJson(*again).dump().c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace draplane::nvidia_config;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (absl::StatusOr<FeatureGates> gates = ParseFeatureGates(text);
      gates.ok()) {
    (void)ValidateFeatureGates(*gates);
  }
  nlohmann::json parameters =
      nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parameters.is_discarded()) return 0;
  static const FeatureGates kDefaults;
  static const FeatureGates kAllOn = AllGatesOn();
  DecodeAndRoundTrip(parameters, kDefaults);
  DecodeAndRoundTrip(parameters, kAllOn);
  return 0;
}
