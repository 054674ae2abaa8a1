// NVIDIA's opaque device configuration API `resource.nvidia.com/v1beta1`
// (GpuConfig, MigDeviceConfig, VfioDeviceConfig) and the driver's feature
// gates, as the gpu.nvidia.com kubelet plugin reads them from
// claim.status.allocation.devices.config[].opaque.parameters.
//
// Mirrors kubernetes-sigs/dra-driver-nvidia-gpu (formerly
// NVIDIA/k8s-dra-driver-gpu): api/nvidia.com/resource/v1beta1/{gpuconfig,
// migconfig,vfiodeviceconfig,iommu,sharing,validate}.go for the types,
// Normalize() and Validate(); cmd/gpu-kubelet-plugin/device_state.go
// (GetOpaqueDeviceConfigs, prepareDevices) for precedence and matching;
// pkg/featuregates/featuregates.go for the gates. Error texts are NVIDIA's
// where NVIDIA has one. Design notes: shared/design/reference/
// nvidia-dra-driver.md sections 13 and 14.
//
// All functions are pure and thread-safe.
#ifndef DRAPLANE_NVIDIA_CONFIG_GPU_CONFIG_H_
#define DRAPLANE_NVIDIA_CONFIG_GPU_CONFIG_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/quantity.h"
#include "nlohmann/json.hpp"

namespace draplane::nvidia_config {

inline constexpr std::string_view kApiVersion = "resource.nvidia.com/v1beta1";
inline constexpr std::string_view kGpuConfigKind = "GpuConfig";
inline constexpr std::string_view kMigDeviceConfigKind = "MigDeviceConfig";
inline constexpr std::string_view kVfioDeviceConfigKind = "VfioDeviceConfig";
// The driver name whose opaque configs these are.
inline constexpr std::string_view kGpuDriverName = "gpu.nvidia.com";

inline constexpr std::string_view kTimeSlicingStrategy = "TimeSlicing";
inline constexpr std::string_view kMpsStrategy = "MPS";
inline constexpr std::string_view kLegacyOnlyBackendPolicy = "LegacyOnly";
inline constexpr std::string_view kPreferIommuFdBackendPolicy = "PreferIommuFD";

// ---------------------------------------------------------------------------
// Types. Optional members are absent in the JSON when std::nullopt.

struct TimeSlicingConfig {
  // "Default", "Short", "Medium" or "Long" (nvidia-smi --set-timeslice 0..3).
  std::optional<std::string> interval;

  friend bool operator==(const TimeSlicingConfig&,
                         const TimeSlicingConfig&) = default;
};

struct MpsConfig {
  std::optional<int> default_active_thread_percentage;  // 0..100
  std::optional<Quantity> default_pinned_device_memory_limit;
  // Key: a device UUID, or an index into the group's sorted UUID list.
  std::map<std::string, Quantity> default_per_device_pinned_memory_limit;

  friend bool operator==(const MpsConfig&, const MpsConfig&) = default;
};

struct GpuSharing {
  std::string strategy;  // "TimeSlicing" or "MPS"
  std::optional<TimeSlicingConfig> time_slicing_config;
  std::optional<MpsConfig> mps_config;

  friend bool operator==(const GpuSharing&, const GpuSharing&) = default;
};

// Time-slicing cannot be tuned on a MIG device: no timeSlicingConfig.
struct MigDeviceSharing {
  std::string strategy;  // "TimeSlicing" or "MPS"
  std::optional<MpsConfig> mps_config;

  friend bool operator==(const MigDeviceSharing&,
                         const MigDeviceSharing&) = default;
};

struct IommuConfig {
  std::string backend_policy;  // "LegacyOnly" (when empty) or "PreferIommuFD"
  bool enable_api_device = false;

  friend bool operator==(const IommuConfig&, const IommuConfig&) = default;
};

struct GpuConfig {
  std::optional<GpuSharing> sharing;
  friend bool operator==(const GpuConfig&, const GpuConfig&) = default;
};

struct MigDeviceConfig {
  std::optional<MigDeviceSharing> sharing;
  friend bool operator==(const MigDeviceConfig&,
                         const MigDeviceConfig&) = default;
};

struct VfioDeviceConfig {
  std::optional<IommuConfig> iommu;
  friend bool operator==(const VfioDeviceConfig&,
                         const VfioDeviceConfig&) = default;
};

// One decoded `parameters` object; the alternative is its kind.
using DeviceConfig = std::variant<GpuConfig, MigDeviceConfig, VfioDeviceConfig>;

// "GpuConfig", "MigDeviceConfig" or "VfioDeviceConfig".
std::string_view DeviceConfigKind(const DeviceConfig& config);

// The config as the JSON object the API defines (apiVersion and kind
// first; absent optionals omitted; quantities as their canonical text).
nlohmann::ordered_json DeviceConfigToJson(const DeviceConfig& config);

// ---------------------------------------------------------------------------
// Feature gates (pkg/featuregates). Defaults are NVIDIA's.

struct FeatureGates {
  bool time_slicing_settings = false;     // TimeSlicingSettings (alpha)
  bool mps_support = false;               // MPSSupport (alpha)
  bool passthrough_support = false;       // PassthroughSupport (alpha)
  bool dynamic_mig = false;               // DynamicMIG (alpha)
  bool nvml_device_health_check = false;  // NVMLDeviceHealthCheck (alpha)
  bool device_metadata = false;           // DeviceMetadata (alpha)
  // Compute-domain driver gates (beta, on by default); accepted so one
  // --feature-gates value can serve both drivers.
  bool imex_daemons_with_dns_names = true;    // IMEXDaemonsWithDNSNames
  bool compute_domain_cliques = true;         // ComputeDomainCliques
  bool crash_on_nvlink_fabric_errors = true;  // CrashOnNVLinkFabricErrors

  friend bool operator==(const FeatureGates&, const FeatureGates&) = default;
};

// The gate names ParseFeatureGates accepts, sorted.
std::vector<std::string> KnownFeatureGates();

// Parses a --feature-gates value like Kubernetes' featuregate Set():
// comma-separated "Name=bool" pairs (spaces around names and values
// ignored, empty items skipped, bools as Go's strconv.ParseBool: 1 t T TRUE
// true True 0 f F FALSE false False), starting from the defaults, then
// ValidateFeatureGates. Errors (InvalidArgument):
//   "missing bool value for Foo"
//   "invalid value of Foo=x, err: strconv.ParseBool: parsing \"x\": invalid
//    syntax"
//   "unrecognized feature gate: Foo (known gates: ComputeDomainCliques, ...)"
absl::StatusOr<FeatureGates> ParseFeatureGates(std::string_view text);

// NVIDIA's ValidateFeatureGates, in its order and with its texts:
// ComputeDomainCliques requires IMEXDaemonsWithDNSNames; DynamicMIG is
// mutually exclusive with PassthroughSupport and with MPSSupport;
// PassthroughSupport with NVMLDeviceHealthCheck; DeviceMetadata requires
// PassthroughSupport. (DynamicMIG with NVMLDeviceHealthCheck, excluded up to
// v0.4, is allowed as upstream now allows it.) E.g. "feature gate DynamicMIG
// is currently mutually exclusive with MPSSupport".
absl::Status ValidateFeatureGates(const FeatureGates& gates);

// ---------------------------------------------------------------------------
// Decoding, defaulting, validation.

// Strict decoding only (upstream's StrictDecoder): `parameters` must be an
// object with apiVersion "resource.nvidia.com/v1beta1" and a kind of this
// API; every other field must be known (else `strict decoding error:
// unknown field "sharing.foo"`, all unknown fields listed); values must
// have the right JSON types (else `cannot decode "<path>": expected ...`);
// quantities must parse. A JSON null counts as absent. Errors are
// InvalidArgument and name what is accepted, e.g. for the guide's
// DeviceClasses: `unsupported apiVersion "gpu.nvidia.com/v1alpha1" (kind
// "GpuConfig"): the accepted apiVersion is "resource.nvidia.com/v1beta1"
// (kinds GpuConfig, MigDeviceConfig, VfioDeviceConfig)`.
absl::StatusOr<DeviceConfig> DecodeDeviceConfig(
    const nlohmann::json& parameters);

// Upstream Normalize(): fills implied defaults.
//  - GpuConfig/MigDeviceConfig without sharing: {strategy: TimeSlicing} when
//    TimeSlicingSettings is on (else left absent);
//  - TimeSlicing (GPU) without timeSlicingConfig, or with one lacking an
//    interval: interval "Default" (when TimeSlicingSettings is on);
//  - MPS without mpsConfig: an empty MpsConfig (when MPSSupport is on);
//  - VfioDeviceConfig without iommu: {LegacyOnly, enableAPIDevice false};
//    an iommu without backendPolicy gets LegacyOnly (upstream would reject
//    the empty policy instead).
void NormalizeDeviceConfig(DeviceConfig& config, const FeatureGates& gates);

// Upstream Validate() plus the MPS limit checks upstream defers to Prepare.
// The first problem, as InvalidArgument with NVIDIA's text:
//   "\"MPS\" is selected as the GPU sharing strategy, but the \"MPSSupport\"
//    feature gate is not enabled" (likewise TimeSlicing/TimeSlicingSettings)
//   "unknown GPU sharing strategy: X, supported GPU sharing strategies:
//    TimeSlicing, MPS"
//   "cannot use MpsConfig with the 'TimeSlicing' strategy"
//   "cannot use TimeSlicingConfig with the 'MPS' strategy"
//   "unknown time-slice interval: X, supported time-slice intervals:
//    Default, Short, Medium, Long"
//   "active thread percentage must not be negative" / "... must not be
//    greater than 100"
//   "invalid limit: default value set too low: 512Ki" (limits below 1Mi)
//   "invalid limit: value set too low: <key>: <value>"
//   "sharing.mpsConfig.defaultPerDevicePinnedMemoryLimit: Invalid value:
//    \"\": must be a device UUID or an index" (an empty key; draplane's)
//   "unknown IOMMU backend policy: \"X\""
absl::Status ValidateDeviceConfig(const DeviceConfig& config,
                                  const FeatureGates& gates);

// DecodeDeviceConfig, NormalizeDeviceConfig, ValidateDeviceConfig: what the
// NVIDIA validating webhook does with one `parameters` object.
absl::StatusOr<DeviceConfig> DecodeOpaqueParameters(
    const nlohmann::json& parameters, const FeatureGates& gates);

// The built-in configs the plugin puts at the lowest precedence
// (DefaultGpuConfig, DefaultMigDeviceConfig, DefaultVfioDeviceConfig).
DeviceConfig DefaultGpuConfig(const FeatureGates& gates);
DeviceConfig DefaultMigDeviceConfig(const FeatureGates& gates);
DeviceConfig DefaultVfioDeviceConfig();

// ---------------------------------------------------------------------------
// Precedence and matching (reference section 13.1).

// One claim.status.allocation.devices.config[] entry. (Json's move
// constructor is noexcept; bugprone-exception-escape follows its
// debug-only invariant assertion.)
// NOLINTNEXTLINE(bugprone-exception-escape)
struct ConfigSource {
  std::string source;                 // "FromClass" or "FromClaim"
  std::vector<std::string> requests;  // empty: every request
  std::string driver;                 // opaque.driver
  nlohmann::json parameters;          // opaque.parameters
  bool opaque = true;                 // false: a non-opaque configuration
};

// One claim.status.allocation.devices.results[] entry.
struct AllocatedDeviceRef {
  std::string request;      // "req" or "req/subrequest"
  std::string device_name;  // e.g. "gpu-0", "gpu-0-mig-1g5gb-19-0"
  std::string device_type;  // "gpu", "mig" or "vfio"
  // The result's driver; empty means `driver` of ResolveDeviceConfigs.
  // Results of other drivers are skipped.
  std::string driver;
};

struct ResolvedConfig {
  std::string device_name;
  DeviceConfig config;  // normalized and validated
  // Identifies the config object that applies: its index in `configs`, or
  // configs.size() + 0/1/2 for the built-in GPU/MIG/VFIO default. Results
  // with equal groups share one config object and form one device group
  // (one MPS daemon, one set of CDI edits).
  int group = 0;
};

// Picks the config for each result of `driver`, like the plugin's Prepare:
//  1. entries are ordered class first, then claim, each in their order
//     (later wins); a source other than FromClass/FromClaim is an error
//     ("invalid config source: X");
//  2. a non-opaque entry is an error ("only opaque parameters are supported
//     by this driver"); entries for other drivers are skipped; every entry
//     of `driver` is strictly decoded (error "error decoding config
//     parameters: <why>");
//  3. the built-in defaults (MIG, GPU, and VFIO when PassthroughSupport is
//     on) go below everything else, with empty requests;
//  4. for each result, walking from the highest precedence: an entry whose
//     requests name result.request (or, for a subrequest "req/sub", its
//     parent "req") applies, and is an error if its kind does not fit the
//     device type ("cannot apply GpuConfig to device \"gpu-0-mig-...\" of
//     type \"mig\" (request: r)"); an entry with empty requests applies only
//     if its kind fits (GpuConfig-gpu, MigDeviceConfig-mig,
//     VfioDeviceConfig-vfio), else the walk goes on;
//  5. each config that applies to some result is normalized and validated
//     ("error validating GPU config: <why>", upstream's text for all kinds).
// Returns one entry per result of `driver`, in `results` order. Errors are
// InvalidArgument; an unknown device_type is one too.
absl::StatusOr<std::vector<ResolvedConfig>> ResolveDeviceConfigs(
    const std::vector<ConfigSource>& configs,
    const std::vector<AllocatedDeviceRef>& results, std::string_view driver,
    const FeatureGates& gates);

}  // namespace draplane::nvidia_config

#endif  // DRAPLANE_NVIDIA_CONFIG_GPU_CONFIG_H_
