#include "nvidia_config/gpu_config.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace draplane::nvidia_config {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

FeatureGates AllSharing() {
  FeatureGates g;
  g.time_slicing_settings = true;
  g.mps_support = true;
  return g;
}

template <typename T>
std::string Message(const absl::StatusOr<T>& s) {
  return std::string(s.status().message());
}

std::string ToJson(const DeviceConfig& c) {
  return DeviceConfigToJson(c).dump();
}

// ---------------------------------------------------------------------------
// Decoding.

TEST(DecodeTest, GpuConfigTimeSlicing) {
  absl::StatusOr<DeviceConfig> c = DecodeDeviceConfig(Json::parse(R"({
    "apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig",
    "sharing": {"strategy": "TimeSlicing",
                "timeSlicingConfig": {"interval": "Long"}}})"));
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(std::holds_alternative<GpuConfig>(*c));
  const GpuConfig& g = std::get<GpuConfig>(*c);
  ASSERT_TRUE(g.sharing.has_value());
  EXPECT_EQ(g.sharing->strategy, "TimeSlicing");
  EXPECT_EQ(g.sharing->time_slicing_config->interval, "Long");
  EXPECT_FALSE(g.sharing->mps_config.has_value());
  EXPECT_EQ(DeviceConfigKind(*c), "GpuConfig");
}

TEST(DecodeTest, GpuConfigMpsLikeTheReferenceClaimTemplate) {
  absl::StatusOr<DeviceConfig> c = DecodeDeviceConfig(Json::parse(R"({
    "apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig",
    "sharing": {"strategy": "MPS", "mpsConfig": {
      "defaultActiveThreadPercentage": 50,
      "defaultPinnedDeviceMemoryLimit": "10Gi",
      "defaultPerDevicePinnedMemoryLimit": {"0": "1Gi", "GPU-abc": 2147483648}}}})"));
  ASSERT_TRUE(c.ok()) << c.status();
  const MpsConfig& m = *std::get<GpuConfig>(*c).sharing->mps_config;
  EXPECT_EQ(m.default_active_thread_percentage, 50);
  EXPECT_EQ(m.default_pinned_device_memory_limit->ToString(), "10Gi");
  ASSERT_EQ(m.default_per_device_pinned_memory_limit.size(), 2u);
  EXPECT_EQ(m.default_per_device_pinned_memory_limit.at("0").ToString(), "1Gi");
  EXPECT_EQ(m.default_per_device_pinned_memory_limit.at("GPU-abc").Value(),
            2147483648);
  EXPECT_TRUE(
      DecodeOpaqueParameters(Json::parse(ToJson(*c)), AllSharing()).ok());
}

TEST(DecodeTest, MigAndVfioConfigs) {
  absl::StatusOr<DeviceConfig> mig = DecodeDeviceConfig(Json::parse(R"({
    "apiVersion": "resource.nvidia.com/v1beta1", "kind": "MigDeviceConfig",
    "sharing": {"strategy": "MPS", "mpsConfig": {"defaultActiveThreadPercentage": 20}}})"));
  ASSERT_TRUE(mig.ok()) << mig.status();
  EXPECT_EQ(std::get<MigDeviceConfig>(*mig).sharing->strategy, "MPS");

  absl::StatusOr<DeviceConfig> vfio = DecodeDeviceConfig(Json::parse(R"({
    "apiVersion": "resource.nvidia.com/v1beta1", "kind": "VfioDeviceConfig",
    "iommu": {"backendPolicy": "PreferIommuFD", "enableAPIDevice": true}})"));
  ASSERT_TRUE(vfio.ok()) << vfio.status();
  const IommuConfig& i = *std::get<VfioDeviceConfig>(*vfio).iommu;
  EXPECT_EQ(i.backend_policy, "PreferIommuFD");
  EXPECT_TRUE(i.enable_api_device);
}

TEST(DecodeTest, UnknownFieldsAreListedWithTheirPaths) {
  absl::StatusOr<DeviceConfig> c = DecodeDeviceConfig(Json::parse(R"({
    "apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig",
    "metadata": {"name": "x"},
    "sharing": {"strategy": "MPS", "foo": 1,
                "mpsConfig": {"defaultActiveThreadPercentage": 5, "bar": 2}}})"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Message(c),
            "strict decoding error: unknown field \"metadata\", unknown field "
            "\"sharing.foo\", unknown field \"sharing.mpsConfig.bar\"");
}

TEST(DecodeTest, MigSharingHasNoTimeSlicingConfig) {
  absl::StatusOr<DeviceConfig> c = DecodeDeviceConfig(Json::parse(R"({
    "apiVersion": "resource.nvidia.com/v1beta1", "kind": "MigDeviceConfig",
    "sharing": {"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Long"}}})"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(Message(c),
            "strict decoding error: unknown field "
            "\"sharing.timeSlicingConfig\"");
}

TEST(DecodeTest, WrongTypes) {
  auto decode = [](const char* sharing) {
    return DecodeDeviceConfig(
        Json::parse(std::string(R"({"apiVersion": "resource.nvidia.com/v1beta1",
                        "kind": "GpuConfig", "sharing": )") +
                    sharing + "}"));
  };
  EXPECT_EQ(
      Message(decode(R"({"strategy": "MPS", "mpsConfig":
                              {"defaultActiveThreadPercentage": "50"}})")),
      "cannot decode \"sharing.mpsConfig.defaultActiveThreadPercentage\": "
      "expected an integer, got string");
  EXPECT_EQ(
      Message(decode(R"({"strategy": "MPS", "mpsConfig":
                              {"defaultActiveThreadPercentage": 50.0}})")),
      "cannot decode \"sharing.mpsConfig.defaultActiveThreadPercentage\": "
      "expected an integer, got number");
  for (const char* big :
       {"2147483648", "18446744073709551615", "-2147483649"}) {
    EXPECT_EQ(Message(decode((std::string(R"({"strategy": "MPS", "mpsConfig":
                                  {"defaultActiveThreadPercentage": )") +
                              big + "}}")
                                 .c_str())),
              "cannot decode "
              "\"sharing.mpsConfig.defaultActiveThreadPercentage\": "
              "expected an integer, got number")
        << big;
  }
  EXPECT_THAT(Message(decode(R"({"strategy": "MPS", "mpsConfig":
                              {"defaultPinnedDeviceMemoryLimit": "lots"}})")),
              HasSubstr("cannot decode "
                        "\"sharing.mpsConfig.defaultPinnedDeviceMemoryLimit\": "
                        "quantities must match the regular expression"));
  EXPECT_EQ(
      Message(decode(R"({"strategy": 1})")),
      "cannot decode \"sharing.strategy\": expected a string, got number");
  EXPECT_EQ(Message(decode(R"("MPS")")),
            "cannot decode \"sharing\": expected an object, got string");
  // A type error wins over unknown fields, as in Kubernetes.
  EXPECT_EQ(Message(decode(R"({"strategy": true, "x": 1})")),
            "cannot decode \"sharing.strategy\": expected a string, got bool");
}

TEST(DecodeTest, NullIsAbsent) {
  absl::StatusOr<DeviceConfig> c = DecodeDeviceConfig(Json::parse(R"({
    "apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig",
    "sharing": null})"));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(std::get<GpuConfig>(*c).sharing.has_value());
}

TEST(DecodeTest, SeedGuidesV1alpha1ApiVersionIsRejected) {
  // The guide's DeviceClasses carry this; NVIDIA's driver never served
  // gpu.nvidia.com/v1alpha1 for opaque parameters.
  absl::StatusOr<DeviceConfig> c = DecodeOpaqueParameters(
      Json::parse(R"({"apiVersion": "gpu.nvidia.com/v1alpha1",
                      "kind": "GpuConfig",
                      "sharing": {"strategy": "TimeSlicing"}})"),
      AllSharing());
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Message(c),
            "unsupported apiVersion \"gpu.nvidia.com/v1alpha1\" (kind "
            "\"GpuConfig\"): the accepted apiVersion is "
            "\"resource.nvidia.com/v1beta1\" (kinds GpuConfig, "
            "MigDeviceConfig, VfioDeviceConfig)");
}

TEST(DecodeTest, ApiVersionAndKindErrors) {
  EXPECT_EQ(
      Message(DecodeDeviceConfig(Json::parse(R"({"kind": "GpuConfig"})"))),
      "missing apiVersion (kind \"GpuConfig\"): the accepted apiVersion "
      "is \"resource.nvidia.com/v1beta1\" (kinds GpuConfig, "
      "MigDeviceConfig, VfioDeviceConfig)");
  EXPECT_EQ(Message(DecodeDeviceConfig(Json::parse(
                R"({"apiVersion": "resource.nvidia.com/v1beta1"})"))),
            "missing kind: the kinds of \"resource.nvidia.com/v1beta1\" are "
            "GpuConfig, MigDeviceConfig, VfioDeviceConfig");
  EXPECT_EQ(Message(DecodeDeviceConfig(Json::parse(
                R"({"apiVersion": "resource.nvidia.com/v1beta1",
                    "kind": "TpuConfig"})"))),
            "no kind \"TpuConfig\" is registered for version "
            "\"resource.nvidia.com/v1beta1\": the accepted kinds are "
            "GpuConfig, MigDeviceConfig, VfioDeviceConfig");
  EXPECT_THAT(Message(DecodeDeviceConfig(Json::parse(
                  R"({"apiVersion": "resource.nvidia.com/v1beta1",
                      "kind": "ComputeDomainChannelConfig"})"))),
              HasSubstr("configures the compute-domain driver"));
  EXPECT_THAT(Message(DecodeDeviceConfig(Json::parse("[1]"))),
              HasSubstr("must be a JSON object"));
  EXPECT_EQ(Message(DecodeDeviceConfig(
                Json::parse(R"({"apiVersion": 1, "kind": "GpuConfig"})"))),
            "cannot decode \"apiVersion\": expected a string, got number");
}

// ---------------------------------------------------------------------------
// Normalize.

DeviceConfig Decoded(const char* json) {
  absl::StatusOr<DeviceConfig> c = DecodeDeviceConfig(Json::parse(json));
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : DeviceConfig{};
}

std::string Normalized(const char* json, const FeatureGates& gates) {
  DeviceConfig c = Decoded(json);
  NormalizeDeviceConfig(c, gates);
  return ToJson(c);
}

TEST(NormalizeTest, NilSharingBecomesTimeSlicingWhenTheGateIsOn) {
  const char* gpu =
      R"({"apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig"})";
  EXPECT_EQ(Normalized(gpu, AllSharing()),
            R"({"apiVersion":"resource.nvidia.com/v1beta1","kind":"GpuConfig",)"
            R"("sharing":{"strategy":"TimeSlicing","timeSlicingConfig":)"
            R"({"interval":"Default"}}})");
  EXPECT_EQ(
      Normalized(gpu, FeatureGates{}),
      R"({"apiVersion":"resource.nvidia.com/v1beta1","kind":"GpuConfig"})");
  const char* mig =
      R"({"apiVersion": "resource.nvidia.com/v1beta1",
          "kind": "MigDeviceConfig"})";
  EXPECT_EQ(
      Normalized(mig, AllSharing()),
      R"({"apiVersion":"resource.nvidia.com/v1beta1",)"
      R"("kind":"MigDeviceConfig","sharing":{"strategy":"TimeSlicing"}})");
}

TEST(NormalizeTest, StrategyDefaults) {
  EXPECT_EQ(Normalized(R"({"apiVersion": "resource.nvidia.com/v1beta1",
                     "kind": "GpuConfig", "sharing": {"strategy": "TimeSlicing",
                     "timeSlicingConfig": {}}})",
                       AllSharing()),
            R"({"apiVersion":"resource.nvidia.com/v1beta1","kind":"GpuConfig",)"
            R"("sharing":{"strategy":"TimeSlicing","timeSlicingConfig":)"
            R"({"interval":"Default"}}})");
  EXPECT_EQ(Normalized(R"({"apiVersion": "resource.nvidia.com/v1beta1",
                           "kind": "GpuConfig", "sharing": {"strategy": "MPS"}})",
                       AllSharing()),
            R"({"apiVersion":"resource.nvidia.com/v1beta1","kind":"GpuConfig",)"
            R"("sharing":{"strategy":"MPS","mpsConfig":{}}})");
  EXPECT_EQ(
      Normalized(R"({"apiVersion": "resource.nvidia.com/v1beta1",
                     "kind": "MigDeviceConfig", "sharing": {"strategy": "MPS"}})",
                 AllSharing()),
      R"({"apiVersion":"resource.nvidia.com/v1beta1","kind":"MigDeviceConfig",)"
      R"("sharing":{"strategy":"MPS","mpsConfig":{}}})");
}

TEST(NormalizeTest, VfioDefaults) {
  EXPECT_EQ(Normalized(R"({"apiVersion": "resource.nvidia.com/v1beta1",
                           "kind": "VfioDeviceConfig"})",
                       FeatureGates{}),
            R"({"apiVersion":"resource.nvidia.com/v1beta1",)"
            R"("kind":"VfioDeviceConfig","iommu":{"backendPolicy":)"
            R"("LegacyOnly","enableAPIDevice":false}})");
  EXPECT_EQ(Normalized(R"({"apiVersion": "resource.nvidia.com/v1beta1",
                           "kind": "VfioDeviceConfig",
                           "iommu": {"enableAPIDevice": true}})",
                       FeatureGates{}),
            R"({"apiVersion":"resource.nvidia.com/v1beta1",)"
            R"("kind":"VfioDeviceConfig","iommu":{"backendPolicy":)"
            R"("LegacyOnly","enableAPIDevice":true}})");
  EXPECT_EQ(ToJson(DefaultVfioDeviceConfig()),
            R"({"apiVersion":"resource.nvidia.com/v1beta1",)"
            R"("kind":"VfioDeviceConfig","iommu":{"backendPolicy":)"
            R"("LegacyOnly","enableAPIDevice":false}})");
}

// ---------------------------------------------------------------------------
// Validate: one test per rule.

std::string GpuError(const char* sharing, const FeatureGates& gates) {
  absl::StatusOr<DeviceConfig> c = DecodeOpaqueParameters(
      Json::parse(std::string(R"({"apiVersion": "resource.nvidia.com/v1beta1",
                                  "kind": "GpuConfig", "sharing": )") +
                  sharing + "}"),
      gates);
  return c.ok() ? "OK" : Message(c);
}

TEST(ValidateTest, StrategyNeedsItsFeatureGate) {
  EXPECT_EQ(GpuError(R"({"strategy": "TimeSlicing"})", FeatureGates{}),
            "\"TimeSlicing\" is selected as the GPU sharing strategy, but the "
            "\"TimeSlicingSettings\" feature gate is not enabled");
  FeatureGates ts_only;
  ts_only.time_slicing_settings = true;
  EXPECT_EQ(GpuError(R"({"strategy": "MPS"})", ts_only),
            "\"MPS\" is selected as the GPU sharing strategy, but the "
            "\"MPSSupport\" feature gate is not enabled");
  EXPECT_EQ(GpuError(R"({"strategy": "TimeSlicing"})", ts_only), "OK");
}

TEST(ValidateTest, UnknownStrategy) {
  EXPECT_EQ(GpuError(R"({"strategy": "Fabric"})", AllSharing()),
            "unknown GPU sharing strategy: Fabric, supported GPU sharing "
            "strategies: TimeSlicing, MPS");
  EXPECT_EQ(GpuError(R"({})", AllSharing()),
            "unknown GPU sharing strategy: , supported GPU sharing "
            "strategies: TimeSlicing, MPS");
}

TEST(ValidateTest, ConfigOfTheOtherStrategy) {
  EXPECT_EQ(
      GpuError(R"({"strategy": "TimeSlicing", "mpsConfig": {}})", AllSharing()),
      "cannot use MpsConfig with the 'TimeSlicing' strategy");
  EXPECT_EQ(GpuError(R"({"strategy": "MPS",
                         "timeSlicingConfig": {"interval": "Long"}})",
                     AllSharing()),
            "cannot use TimeSlicingConfig with the 'MPS' strategy");
}

TEST(ValidateTest, Interval) {
  for (const char* ok : {"Default", "Short", "Medium", "Long"}) {
    EXPECT_EQ(GpuError((std::string(R"({"strategy": "TimeSlicing",
                          "timeSlicingConfig": {"interval": ")") +
                        ok + "\"}}")
                           .c_str(),
                       AllSharing()),
              "OK");
  }
  EXPECT_EQ(GpuError(R"({"strategy": "TimeSlicing",
                         "timeSlicingConfig": {"interval": "VeryLong"}})",
                     AllSharing()),
            "unknown time-slice interval: VeryLong, supported time-slice "
            "intervals: Default, Short, Medium, Long");
}

TEST(ValidateTest, ActiveThreadPercentage) {
  EXPECT_EQ(GpuError(R"({"strategy": "MPS", "mpsConfig":
                         {"defaultActiveThreadPercentage": -1}})",
                     AllSharing()),
            "active thread percentage must not be negative");
  EXPECT_EQ(GpuError(R"({"strategy": "MPS", "mpsConfig":
                         {"defaultActiveThreadPercentage": 101}})",
                     AllSharing()),
            "active thread percentage must not be greater than 100");
  for (const char* ok : {"0", "100"}) {
    EXPECT_EQ(GpuError((std::string(R"({"strategy": "MPS", "mpsConfig":
                         {"defaultActiveThreadPercentage": )") +
                        ok + "}}")
                           .c_str(),
                       AllSharing()),
              "OK");
  }
}

TEST(ValidateTest, PinnedMemoryLimitsAtLeastOneMebibyte) {
  EXPECT_EQ(GpuError(R"({"strategy": "MPS", "mpsConfig":
                         {"defaultPinnedDeviceMemoryLimit": "512Ki"}})",
                     AllSharing()),
            "invalid limit: default value set too low: 512Ki");
  EXPECT_EQ(GpuError(R"({"strategy": "MPS", "mpsConfig":
                         {"defaultPinnedDeviceMemoryLimit": "1Mi"}})",
                     AllSharing()),
            "OK");
  EXPECT_EQ(GpuError(R"({"strategy": "MPS", "mpsConfig":
                         {"defaultPerDevicePinnedMemoryLimit":
                          {"0": "2Gi", "1": "1023Ki"}}})",
                     AllSharing()),
            "invalid limit: value set too low: 1: 1023Ki");
  EXPECT_EQ(GpuError(R"({"strategy": "MPS", "mpsConfig":
                         {"defaultPerDevicePinnedMemoryLimit": {"": "2Gi"}}})",
                     AllSharing()),
            "sharing.mpsConfig.defaultPerDevicePinnedMemoryLimit: Invalid "
            "value: \"\": must be a device UUID or an index");
}

TEST(ValidateTest, MigSharing) {
  absl::StatusOr<DeviceConfig> c = DecodeOpaqueParameters(
      Json::parse(R"({"apiVersion": "resource.nvidia.com/v1beta1",
                      "kind": "MigDeviceConfig", "sharing": {"strategy": "MPS",
                      "mpsConfig": {"defaultActiveThreadPercentage": 101}}})"),
      AllSharing());
  EXPECT_EQ(Message(c),
            "active thread percentage must not be greater than 100");
  c = DecodeOpaqueParameters(
      Json::parse(R"({"apiVersion": "resource.nvidia.com/v1beta1",
                      "kind": "MigDeviceConfig",
                      "sharing": {"strategy": "TimeSlicing"}})"),
      FeatureGates{});
  EXPECT_THAT(Message(c), HasSubstr("\"TimeSlicingSettings\" feature gate is "
                                    "not enabled"));
}

TEST(ValidateTest, IommuBackendPolicy) {
  absl::StatusOr<DeviceConfig> c = DecodeOpaqueParameters(
      Json::parse(R"({"apiVersion": "resource.nvidia.com/v1beta1",
                      "kind": "VfioDeviceConfig",
                      "iommu": {"backendPolicy": "Bogus"}})"),
      FeatureGates{});
  EXPECT_EQ(Message(c), "unknown IOMMU backend policy: \"Bogus\"");
}

// ---------------------------------------------------------------------------
// Feature gates.

TEST(FeatureGatesTest, DefaultsAndParsing) {
  absl::StatusOr<FeatureGates> g = ParseFeatureGates("");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(*g, FeatureGates{});
  EXPECT_FALSE(g->time_slicing_settings);
  EXPECT_TRUE(g->compute_domain_cliques);

  g = ParseFeatureGates(
      " TimeSlicingSettings = true ,, MPSSupport=T,"
      "NVMLDeviceHealthCheck=1,MPSSupport=false");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(g->time_slicing_settings);
  EXPECT_FALSE(g->mps_support);  // the later value wins
  EXPECT_TRUE(g->nvml_device_health_check);
}

TEST(FeatureGatesTest, Errors) {
  EXPECT_EQ(Message(ParseFeatureGates("Foo=true")),
            "unrecognized feature gate: Foo (known gates: "
            "ComputeDomainCliques, CrashOnNVLinkFabricErrors, DeviceMetadata, "
            "DynamicMIG, IMEXDaemonsWithDNSNames, MPSSupport, "
            "NVMLDeviceHealthCheck, PassthroughSupport, TimeSlicingSettings)");
  EXPECT_EQ(Message(ParseFeatureGates("MPSSupport")),
            "missing bool value for MPSSupport");
  EXPECT_EQ(Message(ParseFeatureGates("MPSSupport=yes")),
            "invalid value of MPSSupport=yes, err: strconv.ParseBool: parsing "
            "\"yes\": invalid syntax");
}

TEST(FeatureGatesTest, Exclusions) {
  EXPECT_EQ(
      Message(ParseFeatureGates("DynamicMIG=true,PassthroughSupport=true")),
      "feature gate DynamicMIG is currently mutually exclusive with "
      "PassthroughSupport");
  EXPECT_EQ(Message(ParseFeatureGates("DynamicMIG=true,MPSSupport=true")),
            "feature gate DynamicMIG is currently mutually exclusive with "
            "MPSSupport");
  EXPECT_EQ(Message(ParseFeatureGates(
                "PassthroughSupport=true,NVMLDeviceHealthCheck=true")),
            "feature gate PassthroughSupport is currently mutually exclusive "
            "with NVMLDeviceHealthCheck");
  EXPECT_EQ(Message(ParseFeatureGates("DeviceMetadata=true")),
            "feature gate DeviceMetadata requires PassthroughSupport to also "
            "be enabled");
  EXPECT_EQ(Message(ParseFeatureGates("IMEXDaemonsWithDNSNames=false")),
            "feature gate ComputeDomainCliques requires "
            "IMEXDaemonsWithDNSNames to also be enabled");
  EXPECT_TRUE(ParseFeatureGates("DynamicMIG=true,NVMLDeviceHealthCheck=true,"
                                "TimeSlicingSettings=true")
                  .ok());
  EXPECT_TRUE(
      ParseFeatureGates("DeviceMetadata=true,PassthroughSupport=true").ok());
}

// ---------------------------------------------------------------------------
// Precedence and matching.

constexpr char kDriver[] = "gpu.nvidia.com";

ConfigSource Source(std::string source, std::vector<std::string> requests,
                    const char* params, std::string driver = kDriver) {
  ConfigSource c;
  c.source = std::move(source);
  c.requests = std::move(requests);
  c.driver = std::move(driver);
  c.parameters = Json::parse(params);
  return c;
}

ConfigSource TimeSlice(std::string source, std::vector<std::string> requests,
                       const std::string& interval) {
  ConfigSource c = Source(std::move(source), std::move(requests), "{}");
  c.parameters = Json::parse(
      R"({"apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig",
          "sharing": {"strategy": "TimeSlicing", "timeSlicingConfig":
          {"interval": ")" +
      interval + "\"}}}");
  return c;
}

AllocatedDeviceRef Result(std::string request, std::string device,
                          std::string type) {
  AllocatedDeviceRef r;
  r.request = std::move(request);
  r.device_name = std::move(device);
  r.device_type = std::move(type);
  return r;
}

std::string Interval(const ResolvedConfig& r) {
  const GpuConfig& g = std::get<GpuConfig>(r.config);
  if (!g.sharing || !g.sharing->time_slicing_config) return "<none>";
  return g.sharing->time_slicing_config->interval.value_or("<unset>");
}

TEST(ResolveTest, ClaimConfigsOverrideClassConfigsWhateverTheInputOrder) {
  // Claim entry listed first: the class entry still ranks lower.
  std::vector<ConfigSource> configs = {
      TimeSlice("FromClaim", {"gpu"}, "Long"),
      TimeSlice("FromClass", {"gpu"}, "Short")};
  absl::StatusOr<std::vector<ResolvedConfig>> r = ResolveDeviceConfigs(
      configs, {Result("gpu", "gpu-0", "gpu")}, kDriver, AllSharing());
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ(Interval((*r)[0]), "Long");
  EXPECT_EQ((*r)[0].group, 0);
}

TEST(ResolveTest, LaterEntriesWinWithinASource) {
  std::vector<ConfigSource> configs = {TimeSlice("FromClass", {}, "Short"),
                                       TimeSlice("FromClass", {}, "Medium")};
  absl::StatusOr<std::vector<ResolvedConfig>> r = ResolveDeviceConfigs(
      configs, {Result("gpu", "gpu-0", "gpu")}, kDriver, AllSharing());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Interval((*r)[0]), "Medium");
  EXPECT_EQ((*r)[0].group, 1);
}

TEST(ResolveTest, RequestSpecificVersusGeneral) {
  // A general claim entry outranks a request-specific class entry: the walk
  // goes by precedence and a general entry applies when its kind fits.
  std::vector<ConfigSource> configs = {TimeSlice("FromClass", {"a"}, "Long"),
                                       TimeSlice("FromClaim", {}, "Medium"),
                                       TimeSlice("FromClaim", {"b"}, "Short")};
  absl::StatusOr<std::vector<ResolvedConfig>> r = ResolveDeviceConfigs(
      configs,
      {Result("a", "gpu-0", "gpu"), Result("b", "gpu-1", "gpu"),
       Result("c", "gpu-2", "gpu")},
      kDriver, AllSharing());
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ(Interval((*r)[0]), "Medium");
  EXPECT_EQ(Interval((*r)[1]), "Short");
  EXPECT_EQ(Interval((*r)[2]), "Medium");
  EXPECT_EQ((*r)[0].group, 1);
  EXPECT_EQ((*r)[1].group, 2);
  EXPECT_EQ((*r)[2].group, 1);
}

TEST(ResolveTest, GeneralEntryOfAnotherKindIsPassedOver) {
  std::vector<ConfigSource> configs = {
      Source("FromClaim", {},
             R"({"apiVersion": "resource.nvidia.com/v1beta1",
          "kind": "MigDeviceConfig", "sharing": {"strategy": "MPS"}})")};
  absl::StatusOr<std::vector<ResolvedConfig>> r =
      ResolveDeviceConfigs(configs,
                           {Result("r", "gpu-0", "gpu"),
                            Result("r", "gpu-1-mig-1g10gb-19-0", "mig")},
                           kDriver, AllSharing());
  ASSERT_TRUE(r.ok()) << r.status();
  // The GPU falls through to the built-in GpuConfig (time-slicing Default).
  EXPECT_EQ((*r)[0].group, 1);  // configs.size() + 0
  EXPECT_EQ(Interval((*r)[0]), "Default");
  // The MIG device takes the claim's MigDeviceConfig, normalized.
  EXPECT_EQ((*r)[1].group, 0);
  EXPECT_EQ(ToJson((*r)[1].config),
            R"({"apiVersion":"resource.nvidia.com/v1beta1",)"
            R"("kind":"MigDeviceConfig","sharing":{"strategy":"MPS",)"
            R"("mpsConfig":{}}})");
}

TEST(ResolveTest, RequestSpecificEntryOfTheWrongKindIsAnError) {
  std::vector<ConfigSource> configs = {
      TimeSlice("FromClaim", {"mig-req"}, "Long")};
  absl::StatusOr<std::vector<ResolvedConfig>> r = ResolveDeviceConfigs(
      configs, {Result("mig-req", "gpu-0-mig-1g5gb-19-0", "mig")}, kDriver,
      AllSharing());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Message(r),
            "cannot apply GpuConfig to device \"gpu-0-mig-1g5gb-19-0\" of "
            "type \"mig\" (request: mig-req)");
}

TEST(ResolveTest, OtherDriversEntriesAndResultsAreIgnored) {
  std::vector<ConfigSource> configs = {
      // Not even decodable, but another driver's business.
      Source("FromClaim", {"gpu"}, R"({"whatever": true})",
             "other.example.com"),
      TimeSlice("FromClass", {"gpu"}, "Short")};
  AllocatedDeviceRef foreign = Result("gpu", "dev-9", "tpu");
  foreign.driver = "other.example.com";
  absl::StatusOr<std::vector<ResolvedConfig>> r = ResolveDeviceConfigs(
      configs, {Result("gpu", "gpu-0", "gpu"), foreign}, kDriver, AllSharing());
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ(Interval((*r)[0]), "Short");
  EXPECT_EQ((*r)[0].group, 1);
}

TEST(ResolveTest, NonOpaqueEntryAndBadSourceAreErrors) {
  ConfigSource non_opaque = TimeSlice("FromClass", {}, "Long");
  non_opaque.opaque = false;
  non_opaque.driver = "";
  EXPECT_EQ(
      Message(ResolveDeviceConfigs({non_opaque}, {}, kDriver, AllSharing())),
      "only opaque parameters are supported by this driver");
  EXPECT_EQ(Message(ResolveDeviceConfigs({TimeSlice("FromPod", {}, "Long")}, {},
                                         kDriver, AllSharing())),
            "invalid config source: FromPod");
}

TEST(ResolveTest, EveryEntryOfTheDriverMustDecode) {
  // The entry names a request no result has, yet it must decode strictly.
  std::vector<ConfigSource> configs = {Source(
      "FromClaim", {"unused"},
      R"({"apiVersion": "gpu.nvidia.com/v1alpha1", "kind": "GpuConfig"})")};
  EXPECT_THAT(
      Message(ResolveDeviceConfigs(configs, {Result("gpu", "gpu-0", "gpu")},
                                   kDriver, AllSharing())),
      HasSubstr("error decoding config parameters: unsupported apiVersion "
                "\"gpu.nvidia.com/v1alpha1\""));
}

TEST(ResolveTest, OnlyConfigsThatApplyAreValidated) {
  ConfigSource mps = Source(
      "FromClaim", {"b"},
      R"({"apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig",
          "sharing": {"strategy": "MPS"}})");
  FeatureGates ts_only;
  ts_only.time_slicing_settings = true;
  // Nothing requests "b": the MPS config is decoded but not validated.
  absl::StatusOr<std::vector<ResolvedConfig>> r = ResolveDeviceConfigs(
      {mps}, {Result("a", "gpu-0", "gpu")}, kDriver, ts_only);
  ASSERT_TRUE(r.ok()) << r.status();
  r = ResolveDeviceConfigs({mps}, {Result("b", "gpu-0", "gpu")}, kDriver,
                           ts_only);
  EXPECT_EQ(Message(r),
            "error validating GPU config: \"MPS\" is selected as the GPU "
            "sharing strategy, but the \"MPSSupport\" feature gate is not "
            "enabled");
}

TEST(ResolveTest, ResultsSharingAConfigObjectFormOneGroup) {
  std::vector<ConfigSource> configs = {
      Source("FromClaim", {"shared"},
             R"({"apiVersion": "resource.nvidia.com/v1beta1",
                 "kind": "GpuConfig", "sharing": {"strategy": "MPS",
                 "mpsConfig": {"defaultActiveThreadPercentage": 50}}})")};
  absl::StatusOr<std::vector<ResolvedConfig>> r = ResolveDeviceConfigs(
      configs,
      {Result("shared", "gpu-0", "gpu"), Result("shared", "gpu-1", "gpu"),
       Result("other", "gpu-2", "gpu"),
       Result("other", "gpu-3-mig-1g10gb-19-0", "mig")},
      kDriver, AllSharing());
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ((*r)[0].device_name, "gpu-0");
  EXPECT_EQ((*r)[0].group, 0);
  EXPECT_EQ((*r)[1].group, 0);
  EXPECT_EQ((*r)[0].config, (*r)[1].config);
  EXPECT_EQ((*r)[2].group, 1);  // built-in GpuConfig
  EXPECT_EQ((*r)[3].group, 2);  // built-in MigDeviceConfig
  EXPECT_EQ(
      ToJson((*r)[3].config),
      R"({"apiVersion":"resource.nvidia.com/v1beta1",)"
      R"("kind":"MigDeviceConfig","sharing":{"strategy":"TimeSlicing"}})");
}

TEST(ResolveTest, SubrequestMatchesAConfigNamingItsParent) {
  std::vector<ConfigSource> configs = {
      TimeSlice("FromClaim", {"gpu"}, "Long"),
      TimeSlice("FromClaim", {"x/small"}, "Short")};
  absl::StatusOr<std::vector<ResolvedConfig>> r = ResolveDeviceConfigs(
      configs,
      {Result("gpu/big", "gpu-0", "gpu"), Result("x/small", "gpu-1", "gpu"),
       Result("x/large", "gpu-2", "gpu")},
      kDriver, AllSharing());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Interval((*r)[0]), "Long");
  EXPECT_EQ(Interval((*r)[1]), "Short");
  EXPECT_EQ(Interval((*r)[2]), "Default");  // built-in
}

TEST(ResolveTest, VfioDevicesGetTheVfioDefaultWithPassthrough) {
  FeatureGates gates;
  gates.passthrough_support = true;
  absl::StatusOr<std::vector<ResolvedConfig>> r = ResolveDeviceConfigs(
      {}, {Result("v", "gpu-vfio-0", "vfio"), Result("g", "gpu-0", "gpu")},
      kDriver, gates);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].group, 2);
  EXPECT_EQ((*r)[0].config, DefaultVfioDeviceConfig());
  EXPECT_EQ((*r)[1].group, 0);
  EXPECT_EQ(
      ToJson((*r)[1].config),
      R"({"apiVersion":"resource.nvidia.com/v1beta1","kind":"GpuConfig"})");
  EXPECT_THAT(Message(ResolveDeviceConfigs(
                  {}, {Result("v", "gpu-vfio-0", "vfio")}, kDriver, {})),
              HasSubstr("no configuration applies"));
  EXPECT_THAT(Message(ResolveDeviceConfigs({}, {Result("v", "x", "tpu")},
                                           kDriver, gates)),
              HasSubstr("unknown device type \"tpu\""));
}

}  // namespace
}  // namespace draplane::nvidia_config
