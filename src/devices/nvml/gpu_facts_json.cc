#include "devices/nvml/gpu_facts_json.h"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "common/str_cat.h"

namespace draplane::devices {
namespace {

using nlohmann::json;

json PlacementToJson(const MigPlacement& p) {
  return {{"start", p.start}, {"size", p.size}};
}

json ProfileToJson(const MigProfileFacts& p) {
  json placements = json::array();
  for (const MigPlacement& pl : p.placements) {
    placements.push_back(PlacementToJson(pl));
  }
  return {{"index", p.index},
          {"id", p.id},
          {"sliceCount", p.slice_count},
          {"instanceCount", p.instance_count},
          {"multiprocessorCount", p.multiprocessor_count},
          {"copyEngineCount", p.copy_engine_count},
          {"decoderCount", p.decoder_count},
          {"encoderCount", p.encoder_count},
          {"jpegCount", p.jpeg_count},
          {"ofaCount", p.ofa_count},
          {"memorySizeMiB", p.memory_size_mib},
          {"placements", std::move(placements)}};
}

json MigDeviceToJson(const MigDeviceFacts& d) {
  return {{"uuid", d.uuid},
          {"gpuInstanceID", d.gpu_instance_id},
          {"computeInstanceID", d.compute_instance_id},
          {"profileID", d.profile_id},
          {"placement", PlacementToJson(d.placement)}};
}

json GpuToJson(const GpuFacts& g) {
  json j = {{"index", g.index},
            {"minor", g.minor},
            {"uuid", g.uuid},
            {"productName", g.product_name},
            {"architecture", g.architecture},
            {"brand", g.brand},
            {"cudaComputeMajor", g.cuda_compute_major},
            {"cudaComputeMinor", g.cuda_compute_minor}};
  if (g.memory_bytes.has_value()) j["memoryBytes"] = *g.memory_bytes;
  j["pciBusID"] = g.pci_bus_id;
  j["pciDeviceID"] = g.pci_device_id;
  j["pcieRoot"] = g.pcie_root;
  if (g.addressing_mode.has_value()) j["addressingMode"] = *g.addressing_mode;
  j["migCapable"] = g.mig_capable;
  j["migEnabled"] = g.mig_enabled;
  j["vgpuGuest"] = g.vgpu_guest;
  json profiles = json::array();
  for (const MigProfileFacts& p : g.mig_profiles) {
    profiles.push_back(ProfileToJson(p));
  }
  j["migProfiles"] = std::move(profiles);
  json devices = json::array();
  for (const MigDeviceFacts& d : g.mig_devices) {
    devices.push_back(MigDeviceToJson(d));
  }
  j["migDevices"] = std::move(devices);
  j["xids"] = g.xids;
  j["lost"] = g.lost;
  return j;
}

// Decoding. Each reader checks the JSON type of one value at `path` and
// stores it; the Status names the path.
std::string Child(std::string_view path, std::string_view key) {
  return path.empty() ? std::string(key) : StrCat(path, ".", key);
}

std::string Index(std::string_view path, size_t i) {
  return StrCat(path, "[", i, "]");
}

absl::Status Invalid(std::string_view path, std::string_view want) {
  return absl::InvalidArgumentError(
      StrCat(path.empty() ? "<root>" : path, ": must be ", want));
}

template <typename T>
absl::Status ReadInteger(const json& v, std::string_view path, T& out) {
  constexpr bool kSigned = std::numeric_limits<T>::is_signed;
  const char* want =
      kSigned ? (sizeof(T) == 4 ? "a 32-bit integer" : "a 64-bit integer")
              : (sizeof(T) == 4 ? "an unsigned 32-bit integer"
                                : "an unsigned 64-bit integer");
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
      return Invalid(path, want);
    }
    out = static_cast<T>(u);
    return absl::OkStatus();
  }
  if (v.is_number_integer()) {  // negative
    const int64_t s = v.get<int64_t>();
    if (!kSigned || s < static_cast<int64_t>(std::numeric_limits<T>::min())) {
      return Invalid(path, want);
    }
    out = static_cast<T>(s);
    return absl::OkStatus();
  }
  return Invalid(path, want);
}

absl::Status ReadString(const json& v, std::string_view path,
                        std::string& out) {
  if (!v.is_string()) return Invalid(path, "a string");
  out = v.get<std::string>();
  return absl::OkStatus();
}

absl::Status ReadBool(const json& v, std::string_view path, bool& out) {
  if (!v.is_boolean()) return Invalid(path, "a boolean");
  out = v.get<bool>();
  return absl::OkStatus();
}

// Calls `member(key, value, path)` for each member of the object at `path`;
// `member` returns NotFound for keys it does not know.
template <typename Member>
absl::Status ReadObject(const json& v, std::string_view path, Member member) {
  if (!v.is_object()) return Invalid(path, "an object");
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string child = Child(path, it.key());
    absl::Status s = member(it.key(), it.value(), child);
    if (absl::IsNotFound(s)) {
      return absl::InvalidArgumentError(StrCat(child, ": unknown field"));
    }
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

template <typename Item>
absl::Status ReadArray(const json& v, std::string_view path, Item item) {
  if (!v.is_array()) return Invalid(path, "an array");
  for (size_t i = 0; i < v.size(); ++i) {
    if (absl::Status s = item(v[i], Index(path, i)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status UnknownField() { return absl::NotFoundError(""); }

absl::Status ReadPlacement(const json& v, std::string_view path,
                           MigPlacement& out) {
  return ReadObject(
      v, path, [&](const std::string& k, const json& m, const std::string& p) {
        if (k == "start") return ReadInteger(m, p, out.start);
        if (k == "size") return ReadInteger(m, p, out.size);
        return UnknownField();
      });
}

absl::Status ReadProfile(const json& v, std::string_view path,
                         MigProfileFacts& out) {
  return ReadObject(
      v, path, [&](const std::string& k, const json& m, const std::string& p) {
        if (k == "index") return ReadInteger(m, p, out.index);
        if (k == "id") return ReadInteger(m, p, out.id);
        if (k == "sliceCount") return ReadInteger(m, p, out.slice_count);
        if (k == "instanceCount") return ReadInteger(m, p, out.instance_count);
        if (k == "multiprocessorCount") {
          return ReadInteger(m, p, out.multiprocessor_count);
        }
        if (k == "copyEngineCount")
          return ReadInteger(m, p, out.copy_engine_count);
        if (k == "decoderCount") return ReadInteger(m, p, out.decoder_count);
        if (k == "encoderCount") return ReadInteger(m, p, out.encoder_count);
        if (k == "jpegCount") return ReadInteger(m, p, out.jpeg_count);
        if (k == "ofaCount") return ReadInteger(m, p, out.ofa_count);
        if (k == "memorySizeMiB") return ReadInteger(m, p, out.memory_size_mib);
        if (k == "placements") {
          return ReadArray(m, p, [&](const json& e, const std::string& ep) {
            return ReadPlacement(e, ep, out.placements.emplace_back());
          });
        }
        return UnknownField();
      });
}

absl::Status ReadMigDevice(const json& v, std::string_view path,
                           MigDeviceFacts& out) {
  return ReadObject(
      v, path, [&](const std::string& k, const json& m, const std::string& p) {
        if (k == "uuid") return ReadString(m, p, out.uuid);
        if (k == "gpuInstanceID") return ReadInteger(m, p, out.gpu_instance_id);
        if (k == "computeInstanceID") {
          return ReadInteger(m, p, out.compute_instance_id);
        }
        if (k == "profileID") return ReadInteger(m, p, out.profile_id);
        if (k == "placement") return ReadPlacement(m, p, out.placement);
        return UnknownField();
      });
}

absl::Status ReadGpu(const json& v, std::string_view path, GpuFacts& out) {
  return ReadObject(
      v, path,
      [&](const std::string& k, const json& m,
          const std::string& p) -> absl::Status {
        if (k == "index") return ReadInteger(m, p, out.index);
        if (k == "minor") return ReadInteger(m, p, out.minor);
        if (k == "uuid") return ReadString(m, p, out.uuid);
        if (k == "productName") return ReadString(m, p, out.product_name);
        if (k == "architecture") return ReadInteger(m, p, out.architecture);
        if (k == "brand") return ReadInteger(m, p, out.brand);
        if (k == "cudaComputeMajor") {
          return ReadInteger(m, p, out.cuda_compute_major);
        }
        if (k == "cudaComputeMinor") {
          return ReadInteger(m, p, out.cuda_compute_minor);
        }
        if (k == "memoryBytes") {
          return ReadInteger(m, p, out.memory_bytes.emplace());
        }
        if (k == "pciBusID") return ReadString(m, p, out.pci_bus_id);
        if (k == "pciDeviceID") return ReadInteger(m, p, out.pci_device_id);
        if (k == "pcieRoot") return ReadString(m, p, out.pcie_root);
        if (k == "addressingMode") {
          return ReadString(m, p, out.addressing_mode.emplace());
        }
        if (k == "migCapable") return ReadBool(m, p, out.mig_capable);
        if (k == "migEnabled") return ReadBool(m, p, out.mig_enabled);
        if (k == "vgpuGuest") return ReadBool(m, p, out.vgpu_guest);
        if (k == "migProfiles") {
          return ReadArray(m, p, [&](const json& e, const std::string& ep) {
            return ReadProfile(e, ep, out.mig_profiles.emplace_back());
          });
        }
        if (k == "migDevices") {
          return ReadArray(m, p, [&](const json& e, const std::string& ep) {
            return ReadMigDevice(e, ep, out.mig_devices.emplace_back());
          });
        }
        if (k == "xids") {
          return ReadArray(m, p, [&](const json& e, const std::string& ep) {
            return ReadInteger(e, ep, out.xids.emplace_back());
          });
        }
        if (k == "lost") return ReadBool(m, p, out.lost);
        return UnknownField();
      });
}

}  // namespace

nlohmann::json GpuFactsToJson(const NodeGpuFacts& facts) {
  json gpus = json::array();
  for (const GpuFacts& g : facts.gpus) gpus.push_back(GpuToJson(g));
  return {{"driverVersion", facts.driver_version},
          {"cudaDriverVersion", facts.cuda_driver_version},
          {"gpus", std::move(gpus)}};
}

absl::StatusOr<NodeGpuFacts> GpuFactsFromJson(const nlohmann::json& json) {
  NodeGpuFacts facts;
  try {
    absl::Status s = ReadObject(
        json, "",
        [&](const std::string& k, const nlohmann::json& m,
            const std::string& p) -> absl::Status {
          if (k == "driverVersion")
            return ReadString(m, p, facts.driver_version);
          if (k == "cudaDriverVersion") {
            return ReadInteger(m, p, facts.cuda_driver_version);
          }
          if (k == "gpus") {
            return ReadArray(
                m, p, [&](const nlohmann::json& e, const std::string& ep) {
                  return ReadGpu(e, ep, facts.gpus.emplace_back());
                });
          }
          return UnknownField();
        });
    if (!s.ok()) return s;
  } catch (const nlohmann::json::exception& e) {
    // Not expected: every value is type-checked before it is read.
    return absl::InvalidArgumentError(StrCat("gpu facts: ", e.what()));
  }
  return facts;
}

}  // namespace draplane::devices
