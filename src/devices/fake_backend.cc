#include "devices/fake_backend.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "absl/strings/str_join.h"
#include "api/manifest.h"
#include "common/field_errors.h"
#include "common/str_cat.h"
#include "common/uuid.h"
#include "devices/gpu_models.h"
#include "devices/mig_profiles.h"
#include "yaml-cpp/yaml.h"

namespace draplane::devices {
namespace {

// A stable UUID-shaped text from a seed string (FNV-1a based; the fake
// only needs UUIDs that are unique per node and GPU and never change).
std::string StableUuid(std::string_view prefix, std::string_view seed) {
  uint64_t h1 = 1469598103934665603ull, h2 = 0x9e3779b97f4a7c15ull;
  for (unsigned char c : seed) {
    h1 = (h1 ^ c) * 1099511628211ull;
    h2 = (h2 ^ c) * 0x100000001b3ull + 0x7f4a7c15;
  }
  return StrCat(prefix, FormatUuid(h1, h2));
}

absl::Status Error(std::string_view file, const FieldError& e) {
  return absl::InvalidArgumentError(StrCat(file, ": ", e.ToString()));
}

std::vector<std::string> ModelNames() {
  std::vector<std::string> names;
  for (const GpuModel& m : GpuModels()) names.emplace_back(m.names.front());
  return names;
}

// Reads a scalar; yaml-cpp throws on mistyped values.
template <typename T>
absl::StatusOr<T> Scalar(const YAML::Node& node, std::string_view file,
                         const FieldPath& path, std::string_view type) {
  try {
    return node.as<T>();
  } catch (const YAML::Exception&) {
    return Error(file, Invalid(path, BadValue(YAML::Dump(node)),
                               StrCat("must be ", type)));
  }
}

absl::Status CheckKeys(const YAML::Node& node, std::string_view file,
                       const FieldPath& path,
                       std::initializer_list<std::string_view> known) {
  if (!node.IsMap()) {
    return Error(
        file, Invalid(path, BadValue(YAML::Dump(node)), "must be a mapping"));
  }
  for (const auto& kv : node) {
    std::string key = kv.first.as<std::string>("");
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      const FieldPath bad = path.empty() ? FieldPath(key) : path.Child(key);
      return absl::InvalidArgumentError(StrCat(
          file, ": ", bad.ToString(), ": unknown field \"", key,
          "\" (known fields: ",
          absl::StrJoin(std::vector<std::string>(known.begin(), known.end()),
                        ", "),
          ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status ParseGpuGroup(const YAML::Node& group, std::string_view file,
                           const FieldPath& path, const std::string& node_name,
                           NodeGpuFacts& facts) {
  if (absl::Status s = CheckKeys(group, file, path,
                                 {"model", "count", "migEnabled", "migDevices",
                                  "pcieRoot", "xids", "lost"});
      !s.ok()) {
    return s;
  }
  if (!group["model"]) return Error(file, Required(path.Child("model")));
  auto model_name = Scalar<std::string>(group["model"], file,
                                        path.Child("model"), "a string");
  if (!model_name.ok()) return model_name.status();
  const GpuModel* model = FindGpuModel(*model_name);
  if (model == nullptr) {
    return Error(file,
                 NotSupported(path.Child("model"), *model_name, ModelNames()));
  }
  int count = 1;
  if (group["count"]) {
    auto c =
        Scalar<int>(group["count"], file, path.Child("count"), "an integer");
    if (!c.ok()) return c.status();
    if (*c < 1 || *c > 64) {
      return Error(
          file, Invalid(path.Child("count"), *c, "must be between 1 and 64"));
    }
    count = *c;
  }
  bool mig_enabled = false;
  if (group["migEnabled"]) {
    auto m = Scalar<bool>(group["migEnabled"], file, path.Child("migEnabled"),
                          "a boolean");
    if (!m.ok()) return m.status();
    mig_enabled = *m;
    if (mig_enabled && !model->mig_capable) {
      return Error(
          file, Invalid(path.Child("migEnabled"), true,
                        StrCat(model->product_name, " does not support MIG")));
    }
  }
  std::string pcie_root;
  if (group["pcieRoot"]) {
    auto r = Scalar<std::string>(group["pcieRoot"], file,
                                 path.Child("pcieRoot"), "a string");
    if (!r.ok()) return r.status();
    pcie_root = *r;
  }
  std::vector<uint32_t> xids;
  if (group["xids"]) {
    auto x = Scalar<std::vector<uint32_t>>(
        group["xids"], file, path.Child("xids"), "a list of integers");
    if (!x.ok()) return x.status();
    xids = *x;
  }
  bool lost = false;
  if (group["lost"]) {
    auto l = Scalar<bool>(group["lost"], file, path.Child("lost"), "a boolean");
    if (!l.ok()) return l.status();
    lost = *l;
  }
  for (int i = 0; i < count; ++i) {
    const uint32_t index = static_cast<uint32_t>(facts.gpus.size());
    // Bus numbers as on a typical 8-GPU server: 0x1b, 0x2b, ...
    char bus[32];
    std::snprintf(bus, sizeof bus, "00000000:%02X:00.0", 0x1b + 0x10 * index);
    GpuFacts gpu = MakeGpuFacts(
        *model, index, StableUuid("GPU-", StrCat(node_name, "/", index)), bus);
    if (!pcie_root.empty()) {
      gpu.pcie_root = pcie_root;
    } else {
      char root[32];
      std::snprintf(root, sizeof root, "pci0000:%02x",
                    0x1a + 0x20 * (index / 2));
      gpu.pcie_root = root;
    }
    gpu.mig_enabled = mig_enabled;
    gpu.xids = xids;
    gpu.lost = lost;
    if (group["migDevices"]) {
      const YAML::Node devices = group["migDevices"];
      const FieldPath dpath = path.Child("migDevices");
      if (!devices.IsSequence()) {
        return Error(file, Invalid(dpath, BadValue(YAML::Dump(devices)),
                                   "must be a list"));
      }
      if (!mig_enabled && devices.size() > 0) {
        return Error(file, Invalid(dpath, BadValue::Omitted(),
                                   "MIG devices need migEnabled: true"));
      }
      uint32_t gi_id = 1;
      for (size_t j = 0; j < devices.size(); ++j) {
        const FieldPath p = dpath.Index(static_cast<int64_t>(j));
        if (absl::Status s =
                CheckKeys(devices[j], file, p, {"profile", "placement"});
            !s.ok()) {
          return s;
        }
        auto profile_name = Scalar<std::string>(devices[j]["profile"], file,
                                                p.Child("profile"), "a string");
        if (!profile_name.ok()) return profile_name.status();
        auto start = Scalar<uint32_t>(devices[j]["placement"], file,
                                      p.Child("placement"), "an integer");
        if (!start.ok()) return start.status();
        std::optional<MigProfileFacts> profile =
            FindMigProfile(gpu, *profile_name);
        if (!profile) {
          std::vector<std::string> names;
          for (const MigProfileFacts& mp : gpu.mig_profiles) {
            names.push_back(MigProfileName(mp, *gpu.memory_bytes));
          }
          return Error(file,
                       NotSupported(p.Child("profile"), *profile_name, names));
        }
        auto placement = std::find_if(
            profile->placements.begin(), profile->placements.end(),
            [&](const MigPlacement& pl) { return pl.start == *start; });
        if (placement == profile->placements.end()) {
          return Error(
              file, Invalid(p.Child("placement"), static_cast<int64_t>(*start),
                            StrCat("not a placement of ", *profile_name)));
        }
        for (const MigDeviceFacts& other : gpu.mig_devices) {
          if (placement->start < other.placement.start + other.placement.size &&
              other.placement.start < placement->start + placement->size) {
            return Error(file, Invalid(p.Child("placement"),
                                       static_cast<int64_t>(*start),
                                       "overlaps another MIG device"));
          }
        }
        MigDeviceFacts mig;
        mig.uuid = StableUuid("MIG-", StrCat(node_name, "/", index, "/", j));
        mig.gpu_instance_id = gi_id++;
        mig.compute_instance_id = 0;
        mig.profile_id = profile->id;
        mig.placement = *placement;
        gpu.mig_devices.push_back(std::move(mig));
      }
    }
    facts.gpus.push_back(std::move(gpu));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Inventory> ParseInventory(std::string_view text,
                                         std::string_view file_name) {
  // The API's guarded loader (invalid UTF-8, control characters, the
  // inputs Debian's yaml-cpp loops on).
  auto loaded = api::LoadYamlDocuments(text, file_name);
  if (!loaded.ok()) return loaded.status();
  if (loaded->size() != 1) {
    return absl::InvalidArgumentError(
        StrCat(file_name, ": an inventory is one YAML document, found ",
               loaded->size()));
  }
  const YAML::Node root = (*loaded)[0];
  if (absl::Status s =
          CheckKeys(root, file_name, FieldPath(""),
                    {"driverVersion", "cudaDriverVersion", "nodes"});
      !s.ok()) {
    return s;
  }
  std::string driver_version = "580.95.05";
  int cuda_version = 13000;
  if (root["driverVersion"]) {
    auto v = Scalar<std::string>(root["driverVersion"], file_name,
                                 FieldPath("driverVersion"), "a string");
    if (!v.ok()) return v.status();
    driver_version = *v;
  }
  if (root["cudaDriverVersion"]) {
    auto v = Scalar<int>(root["cudaDriverVersion"], file_name,
                         FieldPath("cudaDriverVersion"), "an integer");
    if (!v.ok()) return v.status();
    cuda_version = *v;
  }
  const YAML::Node nodes = root["nodes"];
  if (!nodes || !nodes.IsSequence() || nodes.size() == 0) {
    return Error(file_name,
                 Required(FieldPath("nodes"), "a list of at least one node"));
  }
  Inventory inv;
  std::set<std::string> names;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const FieldPath path = FieldPath("nodes").Index(static_cast<int64_t>(i));
    const YAML::Node n = nodes[i];
    if (absl::Status s = CheckKeys(n, file_name, path,
                                   {"name", "labels", "cpu", "memory", "gpus"});
        !s.ok()) {
      return s;
    }
    InventoryNode node;
    auto name = Scalar<std::string>(n["name"], file_name, path.Child("name"),
                                    "a string");
    if (!name.ok() || name->empty()) {
      return Error(file_name, Required(path.Child("name")));
    }
    node.name = *name;
    if (!names.insert(node.name).second) {
      return Error(file_name, Duplicate(path.Child("name"), node.name));
    }
    if (n["labels"]) {
      auto labels = Scalar<std::map<std::string, std::string>>(
          n["labels"], file_name, path.Child("labels"), "a map of strings");
      if (!labels.ok()) return labels.status();
      node.labels = *labels;
    }
    if (n["cpu"]) {
      auto v = Scalar<std::string>(n["cpu"], file_name, path.Child("cpu"),
                                   "a quantity");
      if (!v.ok()) return v.status();
      node.cpu = *v;
    }
    if (n["memory"]) {
      auto v = Scalar<std::string>(n["memory"], file_name, path.Child("memory"),
                                   "a quantity");
      if (!v.ok()) return v.status();
      node.memory = *v;
    }
    node.gpus.driver_version = driver_version;
    node.gpus.cuda_driver_version = cuda_version;
    const YAML::Node gpus = n["gpus"];
    if (gpus) {
      if (!gpus.IsSequence()) {
        return Error(file_name,
                     Invalid(path.Child("gpus"), BadValue(YAML::Dump(gpus)),
                             "must be a list"));
      }
      for (size_t j = 0; j < gpus.size(); ++j) {
        if (absl::Status s =
                ParseGpuGroup(gpus[j], file_name,
                              path.Child("gpus").Index(static_cast<int64_t>(j)),
                              node.name, node.gpus);
            !s.ok()) {
          return s;
        }
      }
    }
    inv.nodes.push_back(std::move(node));
  }
  return inv;
}

absl::StatusOr<Inventory> ReadInventoryFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(StrCat("cannot read ", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseInventory(ss.str(), path);
}

FakeDeviceBackend::FakeDeviceBackend(NodeGpuFacts facts)
    : facts_(std::move(facts)) {}

GpuFacts* FakeDeviceBackend::FindGpu(std::string_view uuid) {
  for (GpuFacts& g : facts_.gpus) {
    if (g.uuid == uuid) return &g;
  }
  return nullptr;
}

absl::StatusOr<NodeGpuFacts> FakeDeviceBackend::Discover() {
  absl::MutexLock lock(&mu_);
  if (!discover_error_.ok()) return discover_error_;
  return facts_;
}

absl::StatusOr<MigDeviceFacts> FakeDeviceBackend::CreateMigDevice(
    std::string_view parent_uuid, uint32_t gi_profile_id,
    uint32_t placement_start) {
  absl::MutexLock lock(&mu_);
  GpuFacts* gpu = FindGpu(parent_uuid);
  if (gpu == nullptr) {
    return absl::NotFoundError(StrCat("no GPU with UUID ", parent_uuid));
  }
  if (!gpu->mig_capable) {
    return absl::FailedPreconditionError(
        StrCat("GPU ", parent_uuid, " does not support MIG"));
  }
  auto profile = std::find_if(
      gpu->mig_profiles.begin(), gpu->mig_profiles.end(),
      [&](const MigProfileFacts& p) { return p.id == gi_profile_id; });
  if (profile == gpu->mig_profiles.end()) {
    return absl::NotFoundError(StrCat(
        "GPU ", parent_uuid, " has no GPU instance profile ", gi_profile_id));
  }
  auto placement = std::find_if(
      profile->placements.begin(), profile->placements.end(),
      [&](const MigPlacement& p) { return p.start == placement_start; });
  if (placement == profile->placements.end()) {
    return absl::InvalidArgumentError(
        StrCat("GPU instance profile ", gi_profile_id,
               " cannot start at memory slice ", placement_start));
  }
  if (!gpu->mig_enabled) {
    if (gpu->architecture < kArchHopper) {
      return absl::FailedPreconditionError(
          StrCat("MIG mode is off on ", parent_uuid,
                 " and enabling it needs a GPU reset on this architecture"));
    }
    gpu->mig_enabled = true;
  }
  int same_profile = 0;
  std::set<uint32_t> gi_ids;
  for (const MigDeviceFacts& m : gpu->mig_devices) {
    if (placement->start < m.placement.start + m.placement.size &&
        m.placement.start < placement->start + placement->size) {
      return absl::FailedPreconditionError(
          StrCat("placement ", placement_start, " of GPU instance profile ",
                 gi_profile_id, " on ", parent_uuid,
                 " is occupied (NVML_ERROR_INSUFFICIENT_RESOURCES)"));
    }
    if (m.profile_id == gi_profile_id) ++same_profile;
    gi_ids.insert(m.gpu_instance_id);
  }
  if (same_profile >= static_cast<int>(profile->instance_count)) {
    return absl::FailedPreconditionError(
        StrCat("GPU instance profile ", gi_profile_id, " on ", parent_uuid,
               " allows ", profile->instance_count,
               " instances (NVML_ERROR_INSUFFICIENT_RESOURCES)"));
  }
  MigDeviceFacts mig;
  mig.gpu_instance_id = 1;
  while (gi_ids.count(mig.gpu_instance_id)) ++mig.gpu_instance_id;
  mig.compute_instance_id = 0;
  mig.profile_id = gi_profile_id;
  mig.placement = *placement;
  // Unique among the devices that exist (a backend may start from facts
  // with created devices: a simulated machine that outlived its driver).
  const auto taken = [this](const std::string& uuid) {
    for (const GpuFacts& g : facts_.gpus) {
      for (const MigDeviceFacts& m : g.mig_devices) {
        if (m.uuid == uuid) return true;
      }
    }
    return false;
  };
  do {
    mig.uuid =
        StableUuid("MIG-", StrCat(parent_uuid, "/created/", next_uuid_++));
  } while (taken(mig.uuid));
  gpu->mig_devices.push_back(mig);
  ++creations_;
  return mig;
}

absl::Status FakeDeviceBackend::DestroyMigDevice(std::string_view parent_uuid,
                                                 uint32_t gpu_instance_id,
                                                 uint32_t compute_instance_id) {
  absl::MutexLock lock(&mu_);
  GpuFacts* gpu = FindGpu(parent_uuid);
  if (gpu == nullptr) {
    return absl::NotFoundError(StrCat("no GPU with UUID ", parent_uuid));
  }
  auto it = std::find_if(gpu->mig_devices.begin(), gpu->mig_devices.end(),
                         [&](const MigDeviceFacts& m) {
                           return m.gpu_instance_id == gpu_instance_id &&
                                  m.compute_instance_id == compute_instance_id;
                         });
  if (it != gpu->mig_devices.end()) {
    gpu->mig_devices.erase(it);
    ++destructions_;
  }
  if (gpu->mig_devices.empty() && gpu->architecture >= kArchHopper) {
    gpu->mig_enabled = false;
  }
  return absl::OkStatus();
}

absl::Status FakeDeviceBackend::SetTimeSlice(std::string_view gpu_uuid,
                                             TimeSliceInterval interval) {
  absl::MutexLock lock(&mu_);
  if (FindGpu(gpu_uuid) == nullptr) {
    return absl::NotFoundError(StrCat("no GPU with UUID ", gpu_uuid));
  }
  time_slices_[std::string(gpu_uuid)] = interval;
  return absl::OkStatus();
}

absl::Status FakeDeviceBackend::StartMpsDaemon(const MpsDaemonSpec& spec) {
  absl::MutexLock lock(&mu_);
  for (const std::string& uuid : spec.device_uuids) {
    bool known = FindGpu(uuid) != nullptr;
    for (const GpuFacts& g : facts_.gpus) {
      for (const MigDeviceFacts& m : g.mig_devices) known |= m.uuid == uuid;
    }
    if (!known) {
      return absl::NotFoundError(StrCat("MPS: no GPU or MIG device ", uuid));
    }
  }
  mps_daemons_.emplace(spec.pipe_dir, spec);
  return absl::OkStatus();
}

absl::Status FakeDeviceBackend::StopMpsDaemon(const MpsDaemonSpec& spec) {
  absl::MutexLock lock(&mu_);
  mps_daemons_.erase(spec.pipe_dir);
  return absl::OkStatus();
}

std::map<std::string, MpsDaemonSpec> FakeDeviceBackend::mps_daemons() const {
  absl::MutexLock lock(&mu_);
  return mps_daemons_;
}

TimeSliceInterval FakeDeviceBackend::time_slice(
    std::string_view gpu_uuid) const {
  absl::MutexLock lock(&mu_);
  auto it = time_slices_.find(gpu_uuid);
  return it == time_slices_.end() ? TimeSliceInterval::kDefault : it->second;
}

void FakeDeviceBackend::InjectXid(uint32_t gpu_index, uint32_t xid) {
  absl::MutexLock lock(&mu_);
  if (gpu_index < facts_.gpus.size())
    facts_.gpus[gpu_index].xids.push_back(xid);
}

void FakeDeviceBackend::SetLost(uint32_t gpu_index, bool lost) {
  absl::MutexLock lock(&mu_);
  if (gpu_index < facts_.gpus.size()) facts_.gpus[gpu_index].lost = lost;
}

void FakeDeviceBackend::SetDiscoverError(absl::Status error) {
  absl::MutexLock lock(&mu_);
  discover_error_ = std::move(error);
}

int FakeDeviceBackend::mig_creations() const {
  absl::MutexLock lock(&mu_);
  return creations_;
}

int FakeDeviceBackend::mig_destructions() const {
  absl::MutexLock lock(&mu_);
  return destructions_;
}

}  // namespace draplane::devices
