#include "gpu_driver/gpu_driver.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include "absl/strings/numbers.h"
#include "cdi/cdi_spec.h"
#include "common/str_cat.h"
#include "logging/log.h"

namespace draplane::gpu_driver {
namespace {

constexpr char kCdiVendor[] = "k8s.gpu.nvidia.com";
constexpr char kCdiClass[] = "claim";

const api::KindInfo& ClaimKind() {
  static const api::KindInfo* kind =
      api::FindKind("resource.k8s.io", "ResourceClaim");
  return *kind;
}

std::string TypeName(devices::DeviceType t) {
  return t == devices::DeviceType::kMig ? "mig" : "gpu";
}

// CDI edits every container with a GPU of this driver needs: the control
// devices (NVIDIA's "common edits", without the driver-library mounts
// and hooks the NVIDIA Container Toolkit adds on a real node), and
// NVIDIA_VISIBLE_DEVICES=void so the legacy runtime hook injects nothing.
cdi::ContainerEdits CommonEdits() {
  cdi::ContainerEdits e;
  e.env = {"NVIDIA_VISIBLE_DEVICES=void"};
  for (const char* path :
       {"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools"}) {
    cdi::DeviceNode n;
    n.path = path;
    e.device_nodes.push_back(n);
  }
  return e;
}

// Edits for one device and the config that applies to it.
// The MPS settings of a config whose strategy is MPS; nullptr otherwise.
const nvidia_config::MpsConfig* MpsOf(
    const nvidia_config::DeviceConfig& config) {
  static const nvidia_config::MpsConfig* const kNone =
      new nvidia_config::MpsConfig();
  if (const auto* g = std::get_if<nvidia_config::GpuConfig>(&config)) {
    if (g->sharing && g->sharing->strategy == nvidia_config::kMpsStrategy) {
      return g->sharing->mps_config ? &*g->sharing->mps_config : kNone;
    }
  } else if (const auto* m =
                 std::get_if<nvidia_config::MigDeviceConfig>(&config)) {
    if (m->sharing && m->sharing->strategy == nvidia_config::kMpsStrategy) {
      return m->sharing->mps_config ? &*m->sharing->mps_config : kNone;
    }
  }
  return nullptr;
}

// "<MiB>M", as nvidia-cuda-mps-control takes pinned memory limits.
std::string MpsLimit(const Quantity& q) { return StrCat(q.Value() >> 20, "M"); }

cdi::ContainerEdits DeviceEdits(const devices::AllocatableDevice& device,
                                const std::string& mig_uuid,
                                const devices::MpsDaemonSpec* mps) {
  cdi::ContainerEdits e;
  cdi::DeviceNode node;
  node.path = StrCat("/dev/nvidia", device.gpu_minor);
  e.device_nodes.push_back(node);
  const std::string visible =
      device.type == devices::DeviceType::kMig ? mig_uuid : device.gpu_uuid;
  if (!visible.empty()) e.env.push_back(StrCat("DRAPLANE_GPU_UUID=", visible));
  // MPS clients reach their group's control daemon through its pipe
  // directory and share its /dev/shm (NVIDIA's MPS edits).
  if (mps != nullptr) {
    e.env.push_back("CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps");
    const std::vector<std::string> options = {"rw", "nosuid", "nodev", "bind"};
    e.mounts.push_back({mps->pipe_dir, "/tmp/nvidia-mps", options, {}});
    const std::string shm =
        (std::filesystem::path(mps->pipe_dir).parent_path() / "shm").string();
    e.mounts.push_back({shm, "/dev/shm", options, {}});
  }
  return e;
}

// The sharing settings applied to a device, as CDI device annotations
// (what a simulated node cannot apply to hardware, it still reports).
std::map<std::string, std::string> SharingAnnotations(
    const nvidia_config::DeviceConfig& config) {
  std::map<std::string, std::string> out;
  std::optional<std::string> strategy, interval;
  if (const auto* g = std::get_if<nvidia_config::GpuConfig>(&config)) {
    if (g->sharing) {
      strategy = g->sharing->strategy;
      if (g->sharing->time_slicing_config) {
        interval = g->sharing->time_slicing_config->interval;
      }
    }
  } else if (const auto* m =
                 std::get_if<nvidia_config::MigDeviceConfig>(&config)) {
    if (m->sharing) strategy = m->sharing->strategy;
  }
  if (strategy) out["gpu.nvidia.com/sharing-strategy"] = *strategy;
  if (interval) out["gpu.nvidia.com/timeslice-interval"] = *interval;
  return out;
}

// The time-slice a whole GPU's config asks for: TimeSlicing with an
// interval (NVIDIA applies Default to every prepared GPU when the
// TimeSlicingSettings gate is on, through the default GpuConfig).
std::optional<devices::TimeSliceInterval> TimeSlice(
    const nvidia_config::DeviceConfig& config) {
  const auto* g = std::get_if<nvidia_config::GpuConfig>(&config);
  if (g == nullptr || !g->sharing ||
      g->sharing->strategy != nvidia_config::kTimeSlicingStrategy ||
      !g->sharing->time_slicing_config ||
      !g->sharing->time_slicing_config->interval) {
    return std::nullopt;
  }
  const std::string& i = *g->sharing->time_slicing_config->interval;
  if (i == "Short") return devices::TimeSliceInterval::kShort;
  if (i == "Medium") return devices::TimeSliceInterval::kMedium;
  if (i == "Long") return devices::TimeSliceInterval::kLong;
  return devices::TimeSliceInterval::kDefault;
}

// The claim's device configuration as nvidia_config resolves it.
std::vector<nvidia_config::ConfigSource> ConfigSources(
    const api::AllocationResult& allocation) {
  std::vector<nvidia_config::ConfigSource> sources;
  for (const auto& c : allocation.devices.config) {
    nvidia_config::ConfigSource s;
    s.source = c.source;
    s.requests = c.requests;
    if (c.opaque) {
      s.driver = c.opaque->driver;
      s.parameters = c.opaque->parameters;
    } else {
      s.opaque = false;
    }
    sources.push_back(std::move(s));
  }
  return sources;
}

// Per config group with the MPS strategy (the results one config object
// applies to), its MPS daemon's id: <claim UID>-<5 hex digits of the
// group's sorted device names>.
std::map<int, std::string> MpsGroupIds(
    const std::string& uid,
    const std::vector<devices::AllocatableDevice>& targets,
    const std::vector<nvidia_config::ResolvedConfig>& configs) {
  std::map<int, std::vector<std::string>> names;
  for (size_t i = 0; i < targets.size(); ++i) {
    if (MpsOf(configs[i].config) != nullptr) {
      names[configs[i].group].push_back(targets[i].name);
    }
  }
  std::map<int, std::string> ids;
  for (auto& [group, devices_of_group] : names) {
    std::sort(devices_of_group.begin(), devices_of_group.end());
    uint64_t h = 1469598103934665603ull;
    for (const std::string& n : devices_of_group) {
      for (unsigned char c : n + ",") h = (h ^ c) * 1099511628211ull;
    }
    char hex[8];
    std::snprintf(hex, sizeof hex, "%05llx",
                  static_cast<unsigned long long>(h & 0xfffff));
    ids[group] = StrCat(uid, "-", hex);
  }
  return ids;
}

// A group's MPS settings on its daemon: thread percentage and pinned
// memory limits (per device by UUID, or by index into the sorted UUIDs).
absl::Status ApplyMpsSettings(const nvidia_config::MpsConfig& settings,
                              devices::MpsDaemonSpec& daemon) {
  std::sort(daemon.device_uuids.begin(), daemon.device_uuids.end());
  daemon.active_thread_percentage = settings.default_active_thread_percentage;
  if (settings.default_pinned_device_memory_limit) {
    daemon.default_pinned_memory_limit =
        MpsLimit(*settings.default_pinned_device_memory_limit);
  }
  for (const auto& [key, limit] :
       settings.default_per_device_pinned_memory_limit) {
    // A device UUID, or an index into the group's sorted UUIDs.
    std::string uuid = key;
    size_t index = 0;
    if (absl::SimpleAtoi(absl::string_view(key.data(), key.size()), &index)) {
      if (index >= daemon.device_uuids.size()) {
        return absl::InvalidArgumentError(
            StrCat("MPS pinned memory limit for device index ", key,
                   ": the group "
                   "has ",
                   daemon.device_uuids.size(), " devices"));
      }
      uuid = daemon.device_uuids[index];
    }
    daemon.pinned_memory_limits[uuid] = MpsLimit(limit);
  }
  return absl::OkStatus();
}

}  // namespace

nvidia_config::FeatureGates DefaultFeatureGates() {
  nvidia_config::FeatureGates g;
  g.dynamic_mig = true;
  g.time_slicing_settings = true;
  return g;
}

GpuDriver::GpuDriver(const GpuDriverOptions& options,
                     devices::DeviceBackend* backend)
    : options_(options),
      backend_(backend),
      checkpoint_file_(StrCat(options.plugin_data_dir, "/checkpoint.json")) {
  model_options_.driver = options.driver_name;
  model_options_.dynamic_mig = options.gates.dynamic_mig;
  for (uint32_t x : options.additional_ignored_xids) {
    model_options_.ignored_xids.push_back(x);
  }
  if (options.metrics != nullptr) {
    errors_ = &prometheus::BuildCounter()
                   .Name("dra_plugin_errors_total")
                   .Help(
                       "Failed NodePrepareResources and "
                       "NodeUnprepareResources calls of a DRA driver, per "
                       "claim (the guide's plugin error metric).")
                   .Register(options.metrics->prometheus())
                   .Add({{"driver", options.driver_name},
                         {"node", options.node_name}});
  }
}

absl::StatusOr<std::unique_ptr<GpuDriver>> GpuDriver::Start(
    const GpuDriverOptions& options, devices::DeviceBackend* backend) {
  if (absl::Status s = nvidia_config::ValidateFeatureGates(options.gates);
      !s.ok()) {
    return s;
  }
  std::unique_ptr<GpuDriver> driver(new GpuDriver(options, backend));
  if (absl::Status s = driver->Reconcile(); !s.ok()) return s;
  return driver;
}

absl::Status GpuDriver::Reconcile() {
  absl::MutexLock lock(&mu_);
  auto facts = backend_->Discover();
  if (!facts.ok()) return facts.status();
  facts_ = *std::move(facts);
  devices_ = devices::BuildNodeDevices(facts_, model_options_);

  auto stored = checkpoint_file_.Read();
  if (!stored.ok()) return stored.status();
  checkpoint_ = *std::move(stored);
  const std::string boot_id = ReadBootId(options_.boot_id_path);
  if (!checkpoint_.boot_id.empty() && checkpoint_.boot_id != boot_id) {
    // After a reboot nothing is prepared: MIG devices are gone with it,
    // and so are CDI specs on a tmpfs /var/run/cdi; specs left elsewhere
    // (a CDI root on disk, a simulated node) are removed so no runtime
    // injects devices of a claim that is not prepared.
    for (const auto& [uid, c] : checkpoint_.claims) {
      if (!c.cdi_spec_file.empty()) {
        (void)cdi::RemoveSpecFile(options_.cdi_root, c.cdi_spec_file);
      }
    }
    checkpoint_.claims.clear();
  }
  checkpoint_.boot_id = boot_id;
  // Claims a crash left half-prepared are rolled back; the kubelet
  // prepares them again.
  // Claims a crash left half-unprepared are finished (the kubelet asked
  // for it; its retry then finds nothing to do).
  for (auto it = checkpoint_.claims.begin(); it != checkpoint_.claims.end();) {
    if (it->second.state == ClaimState::kPrepareStarted) {
      if (absl::Status s = RollBack(it->first, it->second); !s.ok()) return s;
      it = checkpoint_.claims.erase(it);
    } else if (it->second.state == ClaimState::kUnprepareStarted) {
      if (absl::Status s = UndoPrepared(it->second); !s.ok()) return s;
      it = checkpoint_.claims.erase(it);
    } else {
      ++it;
    }
  }
  if (model_options_.dynamic_mig) {
    // MIG devices no prepared claim owns are not ours to keep (NVIDIA's
    // DestroyUnknownMIGDevices): they would block the placements the
    // driver publishes as free.
    std::set<std::string> owned;  // by MIG device UUID
    for (const auto& [uid, c] : checkpoint_.claims) {
      for (const PreparedDeviceRecord& d : c.prepared) {
        if (d.created_mig) owned.insert(d.created_mig->uuid);
      }
    }
    // What the rollbacks and unprepares above left.
    auto now = backend_->Discover();
    if (!now.ok()) return now.status();
    facts_ = *std::move(now);
    for (const devices::GpuFacts& gpu : facts_.gpus) {
      if (!gpu.mig_enabled) continue;
      for (const devices::MigDeviceFacts& m : gpu.mig_devices) {
        if (owned.count(m.uuid)) continue;
        if (absl::Status s = backend_->DestroyMigDevice(
                gpu.uuid, m.gpu_instance_id, m.compute_instance_id);
            !s.ok()) {
          return s;
        }
      }
    }
  }
  return Save();
}

absl::Status GpuDriver::Save() {
  absl::Status s = checkpoint_file_.Write(checkpoint_);
  if (s.ok()) AfterWrite("checkpoint");
  return s;
}

void GpuDriver::AfterWrite(std::string_view what) const {
  if (options_.after_write) options_.after_write(what);
}

absl::Status GpuDriver::DestroyCreatedMig(const CreatedMigDevice& m,
                                          const devices::NodeGpuFacts& facts) {
  for (const devices::GpuFacts& gpu : facts.gpus) {
    if (gpu.uuid != m.parent_uuid) continue;
    for (const devices::MigDeviceFacts& present : gpu.mig_devices) {
      if (present.gpu_instance_id != m.gpu_instance_id ||
          present.compute_instance_id != m.compute_instance_id) {
        continue;
      }
      if (present.uuid != m.uuid) {
        logging::Warning(
            "Not destroying a MIG device: its instance IDs were reused by "
            "another device",
            {{"gpu", m.parent_uuid},
             {"gpuInstance", static_cast<int64_t>(m.gpu_instance_id)},
             {"recordedUUID", m.uuid},
             {"presentUUID", present.uuid}});
        return absl::OkStatus();
      }
      return backend_->DestroyMigDevice(m.parent_uuid, m.gpu_instance_id,
                                        m.compute_instance_id);
    }
  }
  return absl::OkStatus();  // already gone
}

std::shared_ptr<absl::Mutex> GpuDriver::ClaimLock(const std::string& uid) {
  absl::MutexLock lock(&mu_);
  auto& m = claim_locks_[uid];
  if (!m) m = std::make_shared<absl::Mutex>();
  return m;
}

absl::Status GpuDriver::RollBack(const std::string& uid,
                                 const ClaimRecord& record) {
  // MPS daemons of this claim (started before the record was completed).
  std::error_code ec;
  const std::filesystem::path mps_dir =
      std::filesystem::path(options_.plugin_data_dir) / "mps";
  for (const auto& entry : std::filesystem::directory_iterator(mps_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(uid + "-", 0) != 0) continue;
    devices::MpsDaemonSpec daemon;
    daemon.pipe_dir = (entry.path() / "pipe").string();
    daemon.log_dir = (entry.path() / "log").string();
    if (absl::Status s = backend_->StopMpsDaemon(daemon); !s.ok()) return s;
    std::filesystem::remove_all(entry.path(), ec);
  }
  // MIG devices recorded as created, and any MIG device at a placement
  // this claim was allocated (created before the crash, not yet recorded)
  // that no completed claim owns.
  std::set<std::string> owned_elsewhere;
  for (const auto& [uid, c] : checkpoint_.claims) {
    if (&c == &record || c.state != ClaimState::kPrepareCompleted) continue;
    owned_elsewhere.insert(c.allocated_devices.begin(),
                           c.allocated_devices.end());
  }
  auto facts = backend_->Discover();
  if (!facts.ok()) return facts.status();
  for (const std::string& name : record.allocated_devices) {
    if (owned_elsewhere.count(name)) continue;
    auto it = devices_.allocatable.find(name);
    if (it == devices_.allocatable.end() ||
        it->second.type != devices::DeviceType::kMig ||
        it->second.existing_mig) {
      continue;
    }
    const devices::AllocatableDevice& d = it->second;
    for (const devices::GpuFacts& gpu : facts->gpus) {
      if (gpu.uuid != d.gpu_uuid) continue;
      for (const devices::MigDeviceFacts& m : gpu.mig_devices) {
        if (m.profile_id == d.gi_profile_id &&
            m.placement.start == d.placement.start) {
          if (absl::Status s = backend_->DestroyMigDevice(
                  gpu.uuid, m.gpu_instance_id, m.compute_instance_id);
              !s.ok()) {
            return s;
          }
        }
      }
    }
  }
  if (!record.cdi_spec_file.empty()) {
    (void)cdi::RemoveSpecFile(options_.cdi_root, record.cdi_spec_file);
  }
  return absl::OkStatus();
}

std::string GpuDriver::MpsRoot(const std::string& id) const {
  return StrCat(options_.plugin_data_dir, "/mps/", id);
}

absl::Status GpuDriver::UndoPrepared(const ClaimRecord& record) {
  for (const devices::MpsDaemonSpec& daemon : record.mps_daemons) {
    if (absl::Status s = backend_->StopMpsDaemon(daemon); !s.ok()) return s;
    std::error_code ec;
    std::filesystem::remove_all(
        std::filesystem::path(daemon.pipe_dir).parent_path(), ec);
  }
  if (options_.gates.time_slicing_settings) {
    // Whole GPUs go back to the default time-slice (NVIDIA's unprepare).
    for (const PreparedDeviceRecord& d : record.prepared) {
      auto it = devices_.allocatable.find(d.device);
      if (it == devices_.allocatable.end() ||
          it->second.type != devices::DeviceType::kGpu) {
        continue;
      }
      if (absl::Status s = backend_->SetTimeSlice(
              it->second.gpu_uuid, devices::TimeSliceInterval::kDefault);
          !s.ok()) {
        return s;
      }
    }
  }
  const bool any_mig = std::any_of(
      record.prepared.begin(), record.prepared.end(),
      [](const PreparedDeviceRecord& d) { return d.created_mig.has_value(); });
  if (any_mig) {
    auto facts = backend_->Discover();
    if (!facts.ok()) return facts.status();
    for (const PreparedDeviceRecord& d : record.prepared) {
      if (!d.created_mig) continue;
      if (absl::Status s = DestroyCreatedMig(*d.created_mig, *facts); !s.ok()) {
        return s;
      }
    }
  }
  if (!record.cdi_spec_file.empty()) {
    if (absl::Status s =
            cdi::RemoveSpecFile(options_.cdi_root, record.cdi_spec_file);
        !s.ok()) {
      return s;
    }
    AfterWrite("cdi");
  }
  return absl::OkStatus();
}

kubelet_plugin::PrepareResult GpuDriver::PrepareResourceClaim(
    const api::ResourceClaim& claim) {
  const std::string& uid = claim.metadata.uid;
  const std::string display =
      StrCat(claim.metadata.namespace_, "/", claim.metadata.name, ":", uid);
  const std::shared_ptr<absl::Mutex> claim_mutex = ClaimLock(uid);
  absl::MutexLock claim_lock(claim_mutex.get());
  auto fail = [&](const absl::Status& s) {
    if (errors_ != nullptr) errors_->Increment();
    kubelet_plugin::PrepareResult r;
    r.status =
        absl::Status(s.code(), StrCat("error preparing devices for claim ",
                                      display, ": ", s.message()));
    return r;
  };
  auto done = [](const ClaimRecord& record) {
    kubelet_plugin::PrepareResult r;
    for (const PreparedDeviceRecord& d : record.prepared) {
      r.devices.push_back(
          {{d.request}, d.pool, d.device, d.cdi_device_ids, std::nullopt});
    }
    return r;
  };
  if (!claim.status.allocation) {
    return fail(absl::FailedPreconditionError("claim is not allocated"));
  }
  std::vector<std::string> mine;
  for (const auto& r : claim.status.allocation->devices.results) {
    if (r.driver == options_.driver_name) mine.push_back(r.device);
  }
  {
    absl::MutexLock lock(&mu_);
    auto it = checkpoint_.claims.find(uid);
    if (it != checkpoint_.claims.end() &&
        it->second.state == ClaimState::kPrepareCompleted) {
      return done(it->second);
    }
    // The last line of defence against double allocation: a device
    // prepared (or being prepared) for another claim is refused, unless
    // the result is an admin-access one.
    for (const auto& r : claim.status.allocation->devices.results) {
      if (r.driver != options_.driver_name || r.admin_access.value_or(false)) {
        continue;
      }
      for (const auto& [other_uid, other] : checkpoint_.claims) {
        if (other_uid == uid) continue;
        if (std::find(other.allocated_devices.begin(),
                      other.allocated_devices.end(),
                      r.device) != other.allocated_devices.end()) {
          return fail(absl::FailedPreconditionError(
              StrCat("requested device ", r.device,
                     " is already allocated to different claim ",
                     other.namespace_, "/", other.name, ":", other_uid)));
        }
      }
    }
    if (it != checkpoint_.claims.end()) {
      if (absl::Status s = RollBack(uid, it->second); !s.ok()) return fail(s);
    }
    ClaimRecord started;
    started.namespace_ = claim.metadata.namespace_;
    started.name = claim.metadata.name;
    started.state = ClaimState::kPrepareStarted;
    started.allocated_devices = mine;
    started.cdi_spec_file =
        cdi::TransientSpecFileName(kCdiVendor, kCdiClass, uid);
    checkpoint_.claims[uid] = started;
    if (absl::Status s = Save(); !s.ok()) return fail(s);
  }
  std::vector<PreparedDeviceRecord> made;
  std::vector<devices::MpsDaemonSpec> daemons;
  auto prepared = PrepareDevices(claim, made, daemons);
  absl::MutexLock lock(&mu_);
  ClaimRecord& record = checkpoint_.claims[uid];
  if (!prepared.ok()) {
    // Undo what this attempt created; the record stays PrepareStarted so
    // that a crash before this point is handled the same way.
    ClaimRecord partial = record;
    partial.prepared = made;
    partial.mps_daemons = daemons;
    (void)UndoPrepared(partial);
    return fail(prepared.status());
  }
  record.state = ClaimState::kPrepareCompleted;
  record.prepared = *std::move(prepared);
  record.mps_daemons = std::move(daemons);
  if (absl::Status s = Save(); !s.ok()) return fail(s);
  return done(record);
}

absl::StatusOr<std::vector<PreparedDeviceRecord>> GpuDriver::PrepareDevices(
    const api::ResourceClaim& claim, std::vector<PreparedDeviceRecord>& made,
    std::vector<devices::MpsDaemonSpec>& daemons) {
  const std::string& uid = claim.metadata.uid;
  const api::AllocationResult& allocation = *claim.status.allocation;
  std::vector<devices::AllocatableDevice> targets;
  std::vector<nvidia_config::AllocatedDeviceRef> refs;
  std::vector<const api::DeviceRequestAllocationResult*> results;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& r : allocation.devices.results) {
      if (r.driver != options_.driver_name) continue;
      if (r.pool != options_.node_name) {
        return absl::FailedPreconditionError(
            StrCat("device ", r.device, " is from pool ", r.pool,
                   ", not from this node's pool ", options_.node_name));
      }
      auto it = devices_.allocatable.find(r.device);
      if (it == devices_.allocatable.end()) {
        return absl::NotFoundError(StrCat("allocated device ", r.device,
                                          " is not a device of this node"));
      }
      targets.push_back(it->second);
      refs.push_back(
          {r.request, r.device, TypeName(it->second.type), r.driver});
      results.push_back(&r);
    }
  }
  const std::vector<nvidia_config::ConfigSource> sources =
      ConfigSources(allocation);
  auto configs = nvidia_config::ResolveDeviceConfigs(
      sources, refs, options_.driver_name, options_.gates);
  if (!configs.ok()) return configs.status();

  // One MPS control daemon per config group with the MPS strategy.
  std::map<int, devices::MpsDaemonSpec> mps;
  for (const auto& [group, id] : MpsGroupIds(uid, targets, *configs)) {
    const std::string root = MpsRoot(id);
    mps[group].pipe_dir = root + "/pipe";
    mps[group].log_dir = root + "/log";
  }
  cdi::CdiSpec spec;
  spec.kind = StrCat(kCdiVendor, "/", kCdiClass);
  spec.container_edits = CommonEdits();
  std::vector<PreparedDeviceRecord> out;
  for (size_t i = 0; i < targets.size(); ++i) {
    const devices::AllocatableDevice& d = targets[i];
    PreparedDeviceRecord rec;
    rec.request = results[i]->request;
    rec.pool = results[i]->pool;
    rec.device = d.name;
    std::string mig_uuid;
    if (d.type == devices::DeviceType::kMig) {
      if (d.existing_mig) {
        mig_uuid = d.existing_mig->uuid;
      } else {
        auto mig = backend_->CreateMigDevice(d.gpu_uuid, d.gi_profile_id,
                                             d.placement.start);
        if (!mig.ok()) {
          return absl::Status(mig.status().code(),
                              StrCat("creating MIG device ", d.name, ": ",
                                     mig.status().message()));
        }
        rec.created_mig = CreatedMigDevice{
            d.gpu_uuid, mig->gpu_instance_id, mig->compute_instance_id,
            mig->uuid,  mig->profile_id,      mig->placement.start};
        mig_uuid = mig->uuid;
        made.push_back(rec);
      }
    }
    if (d.type == devices::DeviceType::kGpu) {
      if (auto slice = TimeSlice((*configs)[i].config)) {
        if (absl::Status s = backend_->SetTimeSlice(d.gpu_uuid, *slice);
            !s.ok()) {
          return absl::Status(s.code(), StrCat("setting the time-slice of ",
                                               d.name, ": ", s.message()));
        }
      }
    }
    const std::string cdi_name = StrCat(uid, "-", d.name);
    rec.cdi_device_ids = {
        cdi::QualifiedDeviceName(kCdiVendor, kCdiClass, cdi_name)};
    cdi::Device device;
    device.name = cdi_name;
    device.annotations = SharingAnnotations((*configs)[i].config);
    devices::MpsDaemonSpec* daemon = nullptr;
    if (auto it = mps.find((*configs)[i].group); it != mps.end()) {
      daemon = &it->second;
      daemon->device_uuids.push_back(
          d.type == devices::DeviceType::kMig ? mig_uuid : d.gpu_uuid);
      if (d.type == devices::DeviceType::kGpu) {
        daemon->whole_gpu_uuids.push_back(d.gpu_uuid);
      }
    }
    device.container_edits = DeviceEdits(d, mig_uuid, daemon);
    spec.devices.push_back(std::move(device));
    out.push_back(std::move(rec));
  }
  for (auto& [group, daemon] : mps) {
    // The group's settings: any of its results carries the config.
    const nvidia_config::MpsConfig* settings = nullptr;
    for (size_t i = 0; i < targets.size(); ++i) {
      if ((*configs)[i].group == group) settings = MpsOf((*configs)[i].config);
    }
    if (absl::Status st = ApplyMpsSettings(*settings, daemon); !st.ok()) {
      return st;
    }
    const std::filesystem::path root =
        std::filesystem::path(daemon.pipe_dir).parent_path();
    std::error_code ec;
    for (const char* sub : {"pipe", "shm", "log"}) {
      std::filesystem::create_directories(root / sub, ec);
      if (ec) {
        return absl::InternalError(
            StrCat("creating ", (root / sub).string(), ": ", ec.message()));
      }
    }
    if (absl::Status s = backend_->StartMpsDaemon(daemon); !s.ok()) {
      return absl::Status(s.code(),
                          StrCat("starting the MPS control daemon ",
                                 root.filename().string(), ": ", s.message()));
    }
    daemons.push_back(daemon);
  }
  if (spec.devices.empty()) return out;  // nothing of this driver
  spec.cdi_version = cdi::MinimumCdiVersion(spec);
  if (absl::Status s = cdi::WriteSpecFile(
          options_.cdi_root,
          cdi::TransientSpecFileName(kCdiVendor, kCdiClass, uid), spec);
      !s.ok()) {
    return s;
  }
  AfterWrite("cdi");
  return out;
}

absl::Status GpuDriver::UnprepareResourceClaim(
    const kubelet_plugin::ClaimRef& claim) {
  const std::shared_ptr<absl::Mutex> claim_mutex = ClaimLock(claim.uid);
  absl::MutexLock claim_lock(claim_mutex.get());
  absl::MutexLock lock(&mu_);
  auto it = checkpoint_.claims.find(claim.uid);
  if (it == checkpoint_.claims.end()) return absl::OkStatus();
  absl::Status s;
  if (it->second.state == ClaimState::kPrepareStarted) {
    s = RollBack(claim.uid, it->second);
  } else {
    // Recorded before anything is undone: a driver stopped part-way
    // finishes the unprepare at its next start, never re-adopts a claim
    // whose devices are partly gone.
    if (it->second.state == ClaimState::kPrepareCompleted) {
      it->second.state = ClaimState::kUnprepareStarted;
      s = Save();
    }
    if (s.ok()) s = UndoPrepared(it->second);
  }
  if (!s.ok()) {
    if (errors_ != nullptr) errors_->Increment();
    return absl::Status(s.code(), StrCat("error unpreparing devices for claim ",
                                         claim.namespace_, "/", claim.name, ":",
                                         claim.uid, ": ", s.message()));
  }
  checkpoint_.claims.erase(it);
  claim_locks_.erase(claim.uid);
  return Save();
}

std::vector<kubelet_plugin::DeviceHealth> GpuDriver::DeviceHealthReport() {
  using kubelet_plugin::DeviceHealthStatus;
  std::vector<kubelet_plugin::DeviceHealth> report;
  absl::MutexLock lock(&mu_);
  for (const std::vector<api::Device>& gpu : devices_.devices_per_gpu) {
    for (const api::Device& d : gpu) {
      kubelet_plugin::DeviceHealth h{options_.node_name, d.name,
                                     DeviceHealthStatus::kHealthy, ""};
      for (const api::DeviceTaint& t : d.rare->taints) {
        const bool lost = t.key == StrCat(model_options_.driver, "/gpu-lost");
        std::string why =
            lost ? "the GPU fell off the bus (NVML: GPU is lost)"
                 : StrCat("NVML reported XID ", t.value, " on the GPU");
        if (t.effect == "None") {
          why += " (an application error: the device stays usable)";
        } else {
          h.health = DeviceHealthStatus::kUnhealthy;
        }
        h.message = h.message.empty() ? why : StrCat(h.message, "; ", why);
      }
      report.push_back(std::move(h));
    }
  }
  return report;
}

absl::StatusOr<std::vector<api::ResourceSliceSpec>> GpuDriver::DesiredSlices() {
  auto facts = backend_->Discover();
  if (!facts.ok()) return facts.status();
  absl::MutexLock lock(&mu_);
  facts_ = *std::move(facts);
  // MIG devices the driver created do not change what is published: the
  // partitionable model publishes placements, not instances.
  devices::NodeGpuFacts model_facts = facts_;
  if (model_options_.dynamic_mig) {
    for (devices::GpuFacts& g : model_facts.gpus) {
      g.mig_devices.clear();
      if (g.architecture >= devices::kArchHopper) g.mig_enabled = false;
    }
  }
  devices_ = devices::BuildNodeDevices(model_facts, model_options_);
  return devices::LayoutResourceSlices(devices_, options_.node_name,
                                       options_.driver_name);
}

absl::StatusOr<int> GpuDriver::CleanupStaleClaims(client::Client& api) {
  std::vector<kubelet_plugin::ClaimRef> stale;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [uid, c] : checkpoint_.claims) {
      if (c.state == ClaimState::kPrepareStarted) {
        stale.push_back({c.namespace_, c.name, uid});
      }
    }
  }
  int cleaned = 0;
  for (const kubelet_plugin::ClaimRef& ref : stale) {
    auto claim = api.Get(ClaimKind(), ref.namespace_, ref.name);
    if (claim.ok()) {
      const api::ObjectMeta* m = claim->metadata();
      if (m != nullptr && m->uid == ref.uid) continue;  // still wanted
    } else if (!client::IsNotFound(claim.status())) {
      continue;  // try again next round
    }
    if (absl::Status s = UnprepareResourceClaim(ref); !s.ok()) return s;
    ++cleaned;
  }
  return cleaned;
}

std::vector<std::string> GpuDriver::Claims(ClaimState state) const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> out;
  for (const auto& [uid, c] : checkpoint_.claims) {
    if (c.state == state) out.push_back(uid);
  }
  return out;
}

std::vector<kubelet_plugin::ClaimRef> GpuDriver::CheckpointedClaims() const {
  absl::MutexLock lock(&mu_);
  std::vector<kubelet_plugin::ClaimRef> out;
  for (const auto& [uid, c] : checkpoint_.claims) {
    out.push_back({c.namespace_, c.name, uid});
  }
  return out;
}

}  // namespace draplane::gpu_driver
