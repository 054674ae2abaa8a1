#include "nvidia_config/gpu_config.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "common/field_errors.h"
#include "common/go_strconv.h"
#include "common/json_type_name.h"
#include "common/str_cat.h"

namespace draplane::nvidia_config {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

constexpr std::string_view kKinds =
    "GpuConfig, MigDeviceConfig, VfioDeviceConfig";

// ---------------------------------------------------------------------------
// Strict decoding (Kubernetes' strict JSON serializer): the first type error
// wins; unknown fields are collected and reported together.

class StrictDecoder {
 public:
  // obj[key], or nullptr when absent or null (Go leaves a pointer nil).
  static const Json* Field(const Json& obj, std::string_view key) {
    auto it = obj.find(std::string(key));
    if (it == obj.end() || it->is_null()) return nullptr;
    return &*it;
  }

  bool Object(const Json& v, const FieldPath& path,
              std::initializer_list<std::string_view> known) {
    if (!v.is_object()) {
      TypeError(path, "an object", v);
      return false;
    }
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (std::find(known.begin(), known.end(), it.key()) == known.end()) {
        unknown_.push_back(path.Child(it.key()).ToString());
      }
    }
    return true;
  }

  bool String(const Json& v, const FieldPath& path, std::string& out) {
    if (!v.is_string()) {
      TypeError(path, "a string", v);
      return false;
    }
    out = v.get<std::string>();
    return true;
  }

  bool Bool(const Json& v, const FieldPath& path, bool& out) {
    if (!v.is_boolean()) {
      TypeError(path, "a bool", v);
      return false;
    }
    out = v.get<bool>();
    return true;
  }

  // Go int: an integer literal (not 1.0 or 1e2) within 64 bits; draplane
  // keeps it in an int, so larger magnitudes are refused too.
  bool Int(const Json& v, const FieldPath& path, int& out) {
    // nlohmann keeps non-negative literals unsigned: range-check first.
    if (v.is_number_unsigned()) {
      if (v.get<uint64_t>() <=
          static_cast<uint64_t>(std::numeric_limits<int>::max())) {
        out = static_cast<int>(v.get<uint64_t>());
        return true;
      }
    } else if (v.is_number_integer()) {
      int64_t n = v.get<int64_t>();
      if (n >= std::numeric_limits<int>::min() &&
          n <= std::numeric_limits<int>::max()) {
        out = static_cast<int>(n);
        return true;
      }
    }
    TypeError(path, "an integer", v);
    return false;
  }

  // resource.Quantity's UnmarshalJSON: a string (trimmed) or a bare number.
  bool QuantityValue(const Json& v, const FieldPath& path, Quantity& out) {
    std::string text;
    if (v.is_string()) {
      text = v.get<std::string>();
    } else if (v.is_number()) {
      text = v.dump();
    } else {
      TypeError(path, "a quantity (string or number)", v);
      return false;
    }
    absl::StatusOr<Quantity> q = Quantity::ParseTrimmed(text);
    if (!q.ok()) {
      if (!first_error_) {
        first_error_ = StrCat("cannot decode ", StrconvQuote(path.ToString()),
                              ": ", StatusMessage(q.status()));
      }
      return false;
    }
    out = *q;
    return true;
  }

  absl::Status Finish() const {
    if (first_error_) return absl::InvalidArgumentError(*first_error_);
    if (unknown_.empty()) return absl::OkStatus();
    std::vector<std::string> parts;
    for (const std::string& f : unknown_) {
      parts.push_back(StrCat("unknown field ", StrconvQuote(f)));
    }
    return absl::InvalidArgumentError(
        StrCat("strict decoding error: ", absl::StrJoin(parts, ", ")));
  }

 private:
  void TypeError(const FieldPath& path, std::string_view want, const Json& v) {
    if (first_error_) return;
    first_error_ = StrCat("cannot decode ", StrconvQuote(path.ToString()),
                          ": expected ", want, ", got ", JsonTypeName(v));
  }

  std::optional<std::string> first_error_;
  std::vector<std::string> unknown_;
};

std::optional<MpsConfig> DecodeMpsConfig(StrictDecoder& d, const Json& v,
                                         const FieldPath& path) {
  if (!d.Object(
          v, path,
          {"defaultActiveThreadPercentage", "defaultPinnedDeviceMemoryLimit",
           "defaultPerDevicePinnedMemoryLimit"})) {
    return std::nullopt;
  }
  MpsConfig mps;
  if (const Json* p =
          StrictDecoder::Field(v, "defaultActiveThreadPercentage")) {
    int n = 0;
    if (d.Int(*p, path.Child("defaultActiveThreadPercentage"), n)) {
      mps.default_active_thread_percentage = n;
    }
  }
  if (const Json* p =
          StrictDecoder::Field(v, "defaultPinnedDeviceMemoryLimit")) {
    Quantity q;
    if (d.QuantityValue(*p, path.Child("defaultPinnedDeviceMemoryLimit"), q)) {
      mps.default_pinned_device_memory_limit = q;
    }
  }
  if (const Json* p =
          StrictDecoder::Field(v, "defaultPerDevicePinnedMemoryLimit")) {
    FieldPath map_path = path.Child("defaultPerDevicePinnedMemoryLimit");
    if (!p->is_object()) {
      d.Object(*p, map_path, {});  // records the type error
    } else {
      for (auto it = p->begin(); it != p->end(); ++it) {
        Quantity q;  // null: the zero quantity (Quantity.UnmarshalJSON)
        if (it->is_null() || d.QuantityValue(*it, map_path.Key(it.key()), q)) {
          mps.default_per_device_pinned_memory_limit[it.key()] = q;
        }
      }
    }
  }
  return mps;
}

// GpuSharing (with_time_slicing) or MigDeviceSharing (without).
struct DecodedSharing {
  std::string strategy;
  std::optional<TimeSlicingConfig> time_slicing_config;
  std::optional<MpsConfig> mps_config;
};

std::optional<DecodedSharing> DecodeSharing(StrictDecoder& d, const Json& v,
                                            const FieldPath& path,
                                            bool with_time_slicing) {
  bool is_object =
      with_time_slicing
          ? d.Object(v, path, {"strategy", "timeSlicingConfig", "mpsConfig"})
          : d.Object(v, path, {"strategy", "mpsConfig"});
  if (!is_object) return std::nullopt;
  DecodedSharing s;
  if (const Json* p = StrictDecoder::Field(v, "strategy")) {
    d.String(*p, path.Child("strategy"), s.strategy);
  }
  if (with_time_slicing) {
    if (const Json* p = StrictDecoder::Field(v, "timeSlicingConfig")) {
      FieldPath tpath = path.Child("timeSlicingConfig");
      if (d.Object(*p, tpath, {"interval"})) {
        TimeSlicingConfig ts;
        if (const Json* i = StrictDecoder::Field(*p, "interval")) {
          std::string interval;
          if (d.String(*i, tpath.Child("interval"), interval)) {
            ts.interval = interval;
          }
        }
        s.time_slicing_config = ts;
      }
    }
  }
  if (const Json* p = StrictDecoder::Field(v, "mpsConfig")) {
    s.mps_config = DecodeMpsConfig(d, *p, path.Child("mpsConfig"));
  }
  return s;
}

// ---------------------------------------------------------------------------
// Validation (validate.go, sharing.go).

absl::Status Error(const std::string& message) {
  return absl::InvalidArgumentError(message);
}

absl::Status ValidateStrategy(const std::string& s, const FeatureGates& gates) {
  constexpr std::string_view kGateError =
      " is selected as the GPU sharing strategy, but the ";
  if (s == kTimeSlicingStrategy) {
    if (gates.time_slicing_settings) return absl::OkStatus();
    return Error(StrCat(StrconvQuote(s), kGateError,
                        "\"TimeSlicingSettings\" feature gate is not enabled"));
  }
  if (s == kMpsStrategy) {
    if (gates.mps_support) return absl::OkStatus();
    return Error(StrCat(StrconvQuote(s), kGateError,
                        "\"MPSSupport\" feature gate is not enabled"));
  }
  return Error(StrCat("unknown GPU sharing strategy: ", s,
                      ", supported GPU sharing strategies: TimeSlicing, MPS"));
}

// Upstream's Megabyte(): Value() (rounded up) / 2^20 must be positive.
bool AtLeastOneMebibyte(const Quantity& q) {
  return q.Value() / 1024 / 1024 > 0;
}

absl::Status ValidateMps(const std::optional<MpsConfig>& mps,
                         const FieldPath& path) {
  if (!mps.has_value()) return absl::OkStatus();
  if (mps->default_active_thread_percentage.has_value()) {
    int p = *mps->default_active_thread_percentage;
    if (p < 0) return Error("active thread percentage must not be negative");
    if (p > 100) {
      return Error("active thread percentage must not be greater than 100");
    }
  }
  if (mps->default_pinned_device_memory_limit.has_value() &&
      !AtLeastOneMebibyte(*mps->default_pinned_device_memory_limit)) {
    return Error(StrCat("invalid limit: default value set too low: ",
                        mps->default_pinned_device_memory_limit->ToString()));
  }
  for (const auto& [key, limit] : mps->default_per_device_pinned_memory_limit) {
    if (absl::StripAsciiWhitespace(key).empty()) {
      return Error(Invalid(path.Child("defaultPerDevicePinnedMemoryLimit"), key,
                           "must be a device UUID or an index")
                       .ToString());
    }
    if (!AtLeastOneMebibyte(limit)) {
      return Error(StrCat("invalid limit: value set too low: ", key, ": ",
                          limit.ToString()));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateGpuSharing(const GpuSharing& s,
                                const FeatureGates& gates) {
  if (absl::Status st = ValidateStrategy(s.strategy, gates); !st.ok()) {
    return st;
  }
  if (s.strategy == kTimeSlicingStrategy) {
    if (s.mps_config.has_value()) {
      return Error("cannot use MpsConfig with the 'TimeSlicing' strategy");
    }
    if (s.time_slicing_config.has_value()) {
      std::string interval =
          s.time_slicing_config->interval.value_or(std::string("Default"));
      if (interval != "Default" && interval != "Short" &&
          interval != "Medium" && interval != "Long") {
        return Error(StrCat("unknown time-slice interval: ", interval,
                            ", supported time-slice intervals: Default, "
                            "Short, Medium, Long"));
      }
    }
    return absl::OkStatus();
  }
  if (s.time_slicing_config.has_value()) {
    return Error("cannot use TimeSlicingConfig with the 'MPS' strategy");
  }
  return ValidateMps(s.mps_config, FieldPath("sharing").Child("mpsConfig"));
}

absl::Status ValidateMigSharing(const MigDeviceSharing& s,
                                const FeatureGates& gates) {
  if (absl::Status st = ValidateStrategy(s.strategy, gates); !st.ok()) {
    return st;
  }
  if (s.strategy == kTimeSlicingStrategy) {
    if (s.mps_config.has_value()) {
      return Error("cannot use MpsConfig with the 'TimeSlicing' strategy");
    }
    return absl::OkStatus();
  }
  return ValidateMps(s.mps_config, FieldPath("sharing").Child("mpsConfig"));
}

// ---------------------------------------------------------------------------
// JSON encoding.

OrderedJson MpsJson(const MpsConfig& m) {
  OrderedJson j = OrderedJson::object();
  if (m.default_active_thread_percentage) {
    j["defaultActiveThreadPercentage"] = *m.default_active_thread_percentage;
  }
  if (m.default_pinned_device_memory_limit) {
    j["defaultPinnedDeviceMemoryLimit"] =
        m.default_pinned_device_memory_limit->ToString();
  }
  if (!m.default_per_device_pinned_memory_limit.empty()) {
    OrderedJson limits = OrderedJson::object();
    for (const auto& [k, q] : m.default_per_device_pinned_memory_limit) {
      limits[k] = q.ToString();
    }
    j["defaultPerDevicePinnedMemoryLimit"] = std::move(limits);
  }
  return j;
}

// ---------------------------------------------------------------------------
// Matching.

enum class DeviceType { kGpu, kMig, kVfio };

bool KindFits(const DeviceConfig& config, DeviceType type) {
  return (std::holds_alternative<GpuConfig>(config) &&
          type == DeviceType::kGpu) ||
         (std::holds_alternative<MigDeviceConfig>(config) &&
          type == DeviceType::kMig) ||
         (std::holds_alternative<VfioDeviceConfig>(config) &&
          type == DeviceType::kVfio);
}

// Whether `requests` names `request`, or the parent request of a
// subrequest "parent/sub" (a config may name the parent of a
// prioritized-list request).
bool NamesRequest(const std::vector<std::string>& requests,
                  const std::string& request) {
  std::string_view parent = request;
  if (size_t slash = parent.find('/'); slash != std::string_view::npos) {
    parent = parent.substr(0, slash);
  }
  for (const std::string& r : requests) {
    if (r == request || r == parent) return true;
  }
  return false;
}

struct Candidate {
  std::vector<std::string> requests;
  DeviceConfig config;
  int group;
};

}  // namespace

std::string_view DeviceConfigKind(const DeviceConfig& config) {
  return std::visit(
      Overloaded{
          [](const GpuConfig&) { return kGpuConfigKind; },
          [](const MigDeviceConfig&) { return kMigDeviceConfigKind; },
          [](const VfioDeviceConfig&) { return kVfioDeviceConfigKind; },
      },
      config);
}

OrderedJson DeviceConfigToJson(const DeviceConfig& config) {
  OrderedJson j = OrderedJson::object();
  j["apiVersion"] = kApiVersion;
  j["kind"] = DeviceConfigKind(config);
  std::visit(Overloaded{
                 [&j](const GpuConfig& c) {
                   if (!c.sharing) return;
                   OrderedJson s = OrderedJson::object();
                   s["strategy"] = c.sharing->strategy;
                   if (c.sharing->time_slicing_config) {
                     OrderedJson ts = OrderedJson::object();
                     if (c.sharing->time_slicing_config->interval) {
                       ts["interval"] =
                           *c.sharing->time_slicing_config->interval;
                     }
                     s["timeSlicingConfig"] = std::move(ts);
                   }
                   if (c.sharing->mps_config) {
                     s["mpsConfig"] = MpsJson(*c.sharing->mps_config);
                   }
                   j["sharing"] = std::move(s);
                 },
                 [&j](const MigDeviceConfig& c) {
                   if (!c.sharing) return;
                   OrderedJson s = OrderedJson::object();
                   s["strategy"] = c.sharing->strategy;
                   if (c.sharing->mps_config) {
                     s["mpsConfig"] = MpsJson(*c.sharing->mps_config);
                   }
                   j["sharing"] = std::move(s);
                 },
                 [&j](const VfioDeviceConfig& c) {
                   if (!c.iommu) return;
                   OrderedJson i = OrderedJson::object();
                   i["backendPolicy"] = c.iommu->backend_policy;
                   i["enableAPIDevice"] = c.iommu->enable_api_device;
                   j["iommu"] = std::move(i);
                 },
             },
             config);
  return j;
}

// ---------------------------------------------------------------------------
// Feature gates.

namespace {

struct GateEntry {
  std::string_view name;
  bool FeatureGates::*field;
};

constexpr GateEntry kGates[] = {
    {"ComputeDomainCliques", &FeatureGates::compute_domain_cliques},
    {"CrashOnNVLinkFabricErrors", &FeatureGates::crash_on_nvlink_fabric_errors},
    {"DeviceMetadata", &FeatureGates::device_metadata},
    {"DynamicMIG", &FeatureGates::dynamic_mig},
    {"IMEXDaemonsWithDNSNames", &FeatureGates::imex_daemons_with_dns_names},
    {"MPSSupport", &FeatureGates::mps_support},
    {"NVMLDeviceHealthCheck", &FeatureGates::nvml_device_health_check},
    {"PassthroughSupport", &FeatureGates::passthrough_support},
    {"TimeSlicingSettings", &FeatureGates::time_slicing_settings},
};

// Go's strconv.ParseBool.
std::optional<bool> ParseGoBool(std::string_view s) {
  if (s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" ||
      s == "True") {
    return true;
  }
  if (s == "0" || s == "f" || s == "F" || s == "FALSE" || s == "false" ||
      s == "False") {
    return false;
  }
  return std::nullopt;
}

std::string_view TrimSpace(std::string_view s) {
  return ToStd(
      absl::StripAsciiWhitespace(absl::string_view(s.data(), s.size())));
}

}  // namespace

std::vector<std::string> KnownFeatureGates() {
  std::vector<std::string> out;
  for (const GateEntry& g : kGates) out.emplace_back(g.name);
  return out;
}

absl::StatusOr<FeatureGates> ParseFeatureGates(std::string_view text) {
  FeatureGates gates;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string_view item = text.substr(start, comma == std::string_view::npos
                                                   ? std::string_view::npos
                                                   : comma - start);
    start = comma == std::string_view::npos ? text.size() + 1 : comma + 1;
    if (item.empty()) continue;
    size_t eq = item.find('=');
    std::string_view key = TrimSpace(item.substr(0, eq));
    if (eq == std::string_view::npos) {
      return Error(StrCat("missing bool value for ", key));
    }
    std::string_view value = TrimSpace(item.substr(eq + 1));
    std::optional<bool> b = ParseGoBool(value);
    if (!b.has_value()) {
      return Error(StrCat("invalid value of ", key, "=", value,
                          ", err: strconv.ParseBool: parsing ",
                          StrconvQuote(value), ": invalid syntax"));
    }
    const GateEntry* entry = nullptr;
    for (const GateEntry& g : kGates) {
      if (g.name == key) entry = &g;
    }
    if (entry == nullptr) {
      return Error(StrCat("unrecognized feature gate: ", key, " (known gates: ",
                          absl::StrJoin(KnownFeatureGates(), ", "), ")"));
    }
    gates.*(entry->field) = *b;
  }
  if (absl::Status s = ValidateFeatureGates(gates); !s.ok()) return s;
  return gates;
}

absl::Status ValidateFeatureGates(const FeatureGates& g) {
  auto exclusive = [](std::string_view a, std::string_view b) {
    return Error(StrCat("feature gate ", a,
                        " is currently mutually exclusive with ", b));
  };
  auto requires_gate = [](std::string_view a, std::string_view b) {
    return Error(
        StrCat("feature gate ", a, " requires ", b, " to also be enabled"));
  };
  if (g.compute_domain_cliques && !g.imex_daemons_with_dns_names) {
    return requires_gate("ComputeDomainCliques", "IMEXDaemonsWithDNSNames");
  }
  if (g.dynamic_mig && g.passthrough_support) {
    return exclusive("DynamicMIG", "PassthroughSupport");
  }
  if (g.dynamic_mig && g.mps_support) {
    return exclusive("DynamicMIG", "MPSSupport");
  }
  if (g.passthrough_support && g.nvml_device_health_check) {
    return exclusive("PassthroughSupport", "NVMLDeviceHealthCheck");
  }
  if (g.device_metadata && !g.passthrough_support) {
    return requires_gate("DeviceMetadata", "PassthroughSupport");
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Decode, normalize, validate.

absl::StatusOr<DeviceConfig> DecodeDeviceConfig(const Json& parameters) {
  if (!parameters.is_object()) {
    return Error(
        StrCat("opaque parameters must be a JSON object with "
               "apiVersion \"",
               kApiVersion, "\" and a kind (", kKinds, "), got ",
               JsonTypeName(parameters)));
  }
  std::string api_version, kind;
  if (const Json* v = StrictDecoder::Field(parameters, "apiVersion")) {
    if (!v->is_string()) {
      return Error(
          StrCat("cannot decode \"apiVersion\": expected a string, "
                 "got ",
                 JsonTypeName(*v)));
    }
    api_version = v->get<std::string>();
  }
  if (const Json* v = StrictDecoder::Field(parameters, "kind")) {
    if (!v->is_string()) {
      return Error(StrCat("cannot decode \"kind\": expected a string, got ",
                          JsonTypeName(*v)));
    }
    kind = v->get<std::string>();
  }
  if (api_version != kApiVersion) {
    std::string what = api_version.empty() ? std::string("missing apiVersion")
                                           : StrCat("unsupported apiVersion ",
                                                    StrconvQuote(api_version));
    if (!kind.empty()) StrAppend(&what, " (kind ", StrconvQuote(kind), ")");
    return Error(StrCat(what, ": the accepted apiVersion is \"", kApiVersion,
                        "\" (kinds ", kKinds, ")"));
  }
  if (kind.empty()) {
    return Error(StrCat("missing kind: the kinds of \"", kApiVersion, "\" are ",
                        kKinds));
  }

  StrictDecoder d;
  const FieldPath root;
  DeviceConfig config;
  if (kind == kGpuConfigKind) {
    GpuConfig c;
    d.Object(parameters, root, {"apiVersion", "kind", "sharing"});
    if (const Json* v = StrictDecoder::Field(parameters, "sharing")) {
      if (std::optional<DecodedSharing> s =
              DecodeSharing(d, *v, root.Child("sharing"), true)) {
        c.sharing =
            GpuSharing{s->strategy, s->time_slicing_config, s->mps_config};
      }
    }
    config = c;
  } else if (kind == kMigDeviceConfigKind) {
    MigDeviceConfig c;
    d.Object(parameters, root, {"apiVersion", "kind", "sharing"});
    if (const Json* v = StrictDecoder::Field(parameters, "sharing")) {
      if (std::optional<DecodedSharing> s =
              DecodeSharing(d, *v, root.Child("sharing"), false)) {
        c.sharing = MigDeviceSharing{s->strategy, s->mps_config};
      }
    }
    config = c;
  } else if (kind == kVfioDeviceConfigKind) {
    VfioDeviceConfig c;
    d.Object(parameters, root, {"apiVersion", "kind", "iommu"});
    if (const Json* v = StrictDecoder::Field(parameters, "iommu")) {
      FieldPath path = root.Child("iommu");
      if (d.Object(*v, path, {"backendPolicy", "enableAPIDevice"})) {
        IommuConfig iommu;
        if (const Json* p = StrictDecoder::Field(*v, "backendPolicy")) {
          d.String(*p, path.Child("backendPolicy"), iommu.backend_policy);
        }
        if (const Json* p = StrictDecoder::Field(*v, "enableAPIDevice")) {
          d.Bool(*p, path.Child("enableAPIDevice"), iommu.enable_api_device);
        }
        c.iommu = iommu;
      }
    }
    config = c;
  } else if (kind == "ComputeDomainChannelConfig" ||
             kind == "ComputeDomainDaemonConfig") {
    return Error(StrCat("kind \"", kind,
                        "\" configures the compute-domain driver "
                        "(compute-domain.nvidia.com), not ",
                        kGpuDriverName, ": the kinds for GPUs are ", kKinds));
  } else {
    return Error(StrCat("no kind ", StrconvQuote(kind),
                        " is registered for version \"", kApiVersion,
                        "\": the accepted kinds are ", kKinds));
  }
  if (absl::Status s = d.Finish(); !s.ok()) return s;
  return config;
}

void NormalizeDeviceConfig(DeviceConfig& config, const FeatureGates& gates) {
  std::visit(Overloaded{
                 [&gates](GpuConfig& c) {
                   if (!c.sharing) {
                     if (!gates.time_slicing_settings) return;
                     c.sharing = GpuSharing{std::string(kTimeSlicingStrategy),
                                            std::nullopt, std::nullopt};
                   }
                   GpuSharing& s = *c.sharing;
                   if (gates.time_slicing_settings &&
                       s.strategy == kTimeSlicingStrategy) {
                     if (!s.time_slicing_config)
                       s.time_slicing_config.emplace();
                     // Upstream would dereference a nil interval in Validate.
                     if (!s.time_slicing_config->interval) {
                       s.time_slicing_config->interval = "Default";
                     }
                   }
                   if (gates.mps_support && s.strategy == kMpsStrategy &&
                       !s.mps_config) {
                     s.mps_config.emplace();
                   }
                 },
                 [&gates](MigDeviceConfig& c) {
                   if (!c.sharing) {
                     if (!gates.time_slicing_settings) return;
                     c.sharing = MigDeviceSharing{
                         std::string(kTimeSlicingStrategy), std::nullopt};
                   }
                   if (gates.mps_support &&
                       c.sharing->strategy == kMpsStrategy &&
                       !c.sharing->mps_config) {
                     c.sharing->mps_config.emplace();
                   }
                 },
                 [](VfioDeviceConfig& c) {
                   if (!c.iommu) c.iommu.emplace();
                   if (c.iommu->backend_policy.empty()) {
                     c.iommu->backend_policy = kLegacyOnlyBackendPolicy;
                   }
                 },
             },
             config);
}

absl::Status ValidateDeviceConfig(const DeviceConfig& config,
                                  const FeatureGates& gates) {
  return std::visit(Overloaded{
                        [&gates](const GpuConfig& c) {
                          if (!c.sharing) return absl::OkStatus();
                          return ValidateGpuSharing(*c.sharing, gates);
                        },
                        [&gates](const MigDeviceConfig& c) {
                          if (!c.sharing) return absl::OkStatus();
                          return ValidateMigSharing(*c.sharing, gates);
                        },
                        [](const VfioDeviceConfig& c) {
                          if (!c.iommu) return absl::OkStatus();
                          const std::string& p = c.iommu->backend_policy;
                          if (p == kLegacyOnlyBackendPolicy ||
                              p == kPreferIommuFdBackendPolicy) {
                            return absl::OkStatus();
                          }
                          return Error(StrCat("unknown IOMMU backend policy: ",
                                              StrconvQuote(p)));
                        },
                    },
                    config);
}

absl::StatusOr<DeviceConfig> DecodeOpaqueParameters(const Json& parameters,
                                                    const FeatureGates& gates) {
  absl::StatusOr<DeviceConfig> config = DecodeDeviceConfig(parameters);
  if (!config.ok()) return config.status();
  NormalizeDeviceConfig(*config, gates);
  if (absl::Status s = ValidateDeviceConfig(*config, gates); !s.ok()) return s;
  return config;
}

DeviceConfig DefaultGpuConfig(const FeatureGates& gates) {
  GpuConfig c;
  if (gates.time_slicing_settings) {
    c.sharing =
        GpuSharing{std::string(kTimeSlicingStrategy),
                   TimeSlicingConfig{std::string("Default")}, std::nullopt};
  }
  return c;
}

DeviceConfig DefaultMigDeviceConfig(const FeatureGates& gates) {
  MigDeviceConfig c;
  if (gates.time_slicing_settings) {
    c.sharing =
        MigDeviceSharing{std::string(kTimeSlicingStrategy), std::nullopt};
  }
  return c;
}

DeviceConfig DefaultVfioDeviceConfig() {
  return VfioDeviceConfig{
      IommuConfig{std::string(kLegacyOnlyBackendPolicy), false}};
}

// ---------------------------------------------------------------------------
// Precedence and matching.

absl::StatusOr<std::vector<ResolvedConfig>> ResolveDeviceConfigs(
    const std::vector<ConfigSource>& configs,
    const std::vector<AllocatedDeviceRef>& results, std::string_view driver,
    const FeatureGates& gates) {
  // GetOpaqueDeviceConfigs: class entries, then claim entries.
  std::vector<size_t> order;
  for (size_t i = 0; i < configs.size(); ++i) {
    const std::string& src = configs[i].source;
    if (src != "FromClass" && src != "FromClaim") {
      return Error(StrCat("invalid config source: ", src));
    }
    if (src == "FromClass") order.push_back(i);
  }
  for (size_t i = 0; i < configs.size(); ++i) {
    if (configs[i].source == "FromClaim") order.push_back(i);
  }

  // Lowest precedence first: the defaults (as prepareDevices inserts them:
  // VFIO, MIG, GPU), then the decoded entries.
  const int n = static_cast<int>(configs.size());
  std::vector<Candidate> candidates;
  if (gates.passthrough_support) {
    candidates.push_back({{}, DefaultVfioDeviceConfig(), n + 2});
  }
  candidates.push_back({{}, DefaultMigDeviceConfig(gates), n + 1});
  candidates.push_back({{}, DefaultGpuConfig(gates), n});
  for (size_t i : order) {
    const ConfigSource& c = configs[i];
    if (!c.opaque) {
      return Error("only opaque parameters are supported by this driver");
    }
    if (c.driver != driver) continue;
    absl::StatusOr<DeviceConfig> decoded = DecodeDeviceConfig(c.parameters);
    if (!decoded.ok()) {
      return Error(StrCat("error decoding config parameters: ",
                          StatusMessage(decoded.status())));
    }
    candidates.push_back(
        {c.requests, *std::move(decoded), static_cast<int>(i)});
  }

  // For each result, the applicable candidate (index into `candidates`).
  std::vector<ResolvedConfig> out;
  std::vector<size_t> chosen;
  for (const AllocatedDeviceRef& r : results) {
    if (!r.driver.empty() && r.driver != driver) continue;
    DeviceType type;
    if (r.device_type == "gpu") {
      type = DeviceType::kGpu;
    } else if (r.device_type == "mig") {
      type = DeviceType::kMig;
    } else if (r.device_type == "vfio") {
      type = DeviceType::kVfio;
    } else {
      return Error(StrCat("unknown device type ", StrconvQuote(r.device_type),
                          " of device ", StrconvQuote(r.device_name),
                          ": expected \"gpu\", \"mig\" or \"vfio\""));
    }
    std::optional<size_t> pick;
    for (size_t k = candidates.size(); k-- > 0;) {
      const Candidate& c = candidates[k];
      if (NamesRequest(c.requests, r.request)) {
        if (!KindFits(c.config, type)) {
          return Error(StrCat("cannot apply ", DeviceConfigKind(c.config),
                              " to device ", StrconvQuote(r.device_name),
                              " of type ", StrconvQuote(r.device_type),
                              " (request: ", r.request, ")"));
        }
        pick = k;
        break;
      }
      if (c.requests.empty() && KindFits(c.config, type)) {
        pick = k;
        break;
      }
    }
    if (!pick.has_value()) {
      // Unreachable while a default exists for every type; a vfio device
      // without PassthroughSupport has none.
      return Error(StrCat("no configuration applies to device ",
                          StrconvQuote(r.device_name), " of type ",
                          StrconvQuote(r.device_type)));
    }
    chosen.push_back(*pick);
    out.push_back(
        {r.device_name, candidates[*pick].config, candidates[*pick].group});
  }

  // Normalize and validate each config that applies, once, in precedence
  // order (deterministic, unlike upstream's map iteration).
  std::vector<bool> done(candidates.size(), false);
  std::vector<size_t> used = chosen;
  std::sort(used.begin(), used.end());
  for (size_t k : used) {
    if (done[k]) continue;
    done[k] = true;
    NormalizeDeviceConfig(candidates[k].config, gates);
    if (absl::Status s = ValidateDeviceConfig(candidates[k].config, gates);
        !s.ok()) {
      return Error(StrCat("error validating GPU config: ", StatusMessage(s)));
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].config = candidates[chosen[i]].config;
  }
  return out;
}

}  // namespace draplane::nvidia_config
