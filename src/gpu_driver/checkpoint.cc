#include "gpu_driver/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "common/str_cat.h"
#include "nlohmann/json.hpp"

namespace draplane::gpu_driver {
namespace {

using Json = nlohmann::json;
constexpr char kKind[] = "DraplaneGpuDriverCheckpoint";

std::string Checksum(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

const char* StateName(ClaimState state) {
  switch (state) {
    case ClaimState::kPrepareStarted:
      return "PrepareStarted";
    case ClaimState::kPrepareCompleted:
      return "PrepareCompleted";
    case ClaimState::kUnprepareStarted:
      return "UnprepareStarted";
  }
  return "PrepareStarted";
}

Json ToJson(const Checkpoint& cp) {
  Json claims = Json::object();
  for (const auto& [uid, c] : cp.claims) {
    Json prepared = Json::array();
    for (const PreparedDeviceRecord& d : c.prepared) {
      Json pd = {{"request", d.request},
                 {"pool", d.pool},
                 {"device", d.device},
                 {"cdiDeviceIDs", d.cdi_device_ids}};
      if (d.created_mig) {
        const CreatedMigDevice& m = *d.created_mig;
        pd["createdMIG"] = {{"parentUUID", m.parent_uuid},
                            {"gpuInstanceID", m.gpu_instance_id},
                            {"computeInstanceID", m.compute_instance_id},
                            {"uuid", m.uuid},
                            {"profileID", m.profile_id},
                            {"placementStart", m.placement_start}};
      }
      prepared.push_back(std::move(pd));
    }
    claims[uid] = {{"namespace", c.namespace_},
                   {"name", c.name},
                   {"state", StateName(c.state)},
                   {"allocatedDevices", c.allocated_devices},
                   {"prepared", std::move(prepared)},
                   {"cdiSpecFile", c.cdi_spec_file}};
    if (!c.mps_daemons.empty()) {
      Json daemons = Json::array();
      for (const devices::MpsDaemonSpec& m : c.mps_daemons) {
        Json d = {{"pipeDir", m.pipe_dir},
                  {"logDir", m.log_dir},
                  {"deviceUUIDs", m.device_uuids},
                  {"wholeGPUUUIDs", m.whole_gpu_uuids},
                  {"pinnedMemoryLimits", m.pinned_memory_limits}};
        if (m.active_thread_percentage) {
          d["activeThreadPercentage"] = *m.active_thread_percentage;
        }
        if (m.default_pinned_memory_limit) {
          d["defaultPinnedMemoryLimit"] = *m.default_pinned_memory_limit;
        }
        daemons.push_back(std::move(d));
      }
      claims[uid]["mpsDaemons"] = std::move(daemons);
    }
  }
  return {{"bootID", cp.boot_id}, {"claims", std::move(claims)}};
}

// REQUIRES: `data` came from a checksum-verified file; mistyped members
// still throw (caught by the caller).
Checkpoint FromJson(const Json& data) {
  Checkpoint cp;
  cp.boot_id = data.at("bootID").get<std::string>();
  for (const auto& [uid, c] : data.at("claims").items()) {
    ClaimRecord r;
    r.namespace_ = c.at("namespace").get<std::string>();
    r.name = c.at("name").get<std::string>();
    const std::string state = c.at("state").get<std::string>();
    if (state == "PrepareCompleted") {
      r.state = ClaimState::kPrepareCompleted;
    } else if (state == "PrepareStarted") {
      r.state = ClaimState::kPrepareStarted;
    } else if (state == "UnprepareStarted") {
      r.state = ClaimState::kUnprepareStarted;
    } else {
      throw std::runtime_error("unknown claim state " + state);
    }
    r.allocated_devices =
        c.at("allocatedDevices").get<std::vector<std::string>>();
    r.cdi_spec_file = c.value("cdiSpecFile", "");
    if (c.contains("mpsDaemons")) {
      for (const Json& d : c["mpsDaemons"]) {
        devices::MpsDaemonSpec m;
        m.pipe_dir = d.at("pipeDir").get<std::string>();
        m.log_dir = d.at("logDir").get<std::string>();
        m.device_uuids = d.at("deviceUUIDs").get<std::vector<std::string>>();
        m.whole_gpu_uuids =
            d.at("wholeGPUUUIDs").get<std::vector<std::string>>();
        m.pinned_memory_limits = d.at("pinnedMemoryLimits")
                                     .get<std::map<std::string, std::string>>();
        if (d.contains("activeThreadPercentage")) {
          m.active_thread_percentage = d["activeThreadPercentage"].get<int>();
        }
        if (d.contains("defaultPinnedMemoryLimit")) {
          m.default_pinned_memory_limit =
              d["defaultPinnedMemoryLimit"].get<std::string>();
        }
        r.mps_daemons.push_back(std::move(m));
      }
    }
    for (const Json& pd : c.at("prepared")) {
      PreparedDeviceRecord d;
      d.request = pd.at("request").get<std::string>();
      d.pool = pd.at("pool").get<std::string>();
      d.device = pd.at("device").get<std::string>();
      d.cdi_device_ids = pd.at("cdiDeviceIDs").get<std::vector<std::string>>();
      if (pd.contains("createdMIG")) {
        const Json& m = pd["createdMIG"];
        d.created_mig =
            CreatedMigDevice{m.at("parentUUID").get<std::string>(),
                             m.at("gpuInstanceID").get<uint32_t>(),
                             m.at("computeInstanceID").get<uint32_t>(),
                             m.at("uuid").get<std::string>(),
                             m.at("profileID").get<uint32_t>(),
                             m.at("placementStart").get<uint32_t>()};
      }
      r.prepared.push_back(std::move(d));
    }
    cp.claims[uid] = std::move(r);
  }
  return cp;
}

absl::Status Errno(std::string_view what, const std::string& path) {
  return absl::InternalError(
      StrCat(what, " ", path, ": ",
             std::error_code(errno, std::generic_category()).message()));
}

}  // namespace

CheckpointFile::CheckpointFile(std::string path) : path_(std::move(path)) {}

absl::StatusOr<Checkpoint> CheckpointFile::Read() const {
  std::ifstream in(path_);
  if (!in) {
    if (!std::filesystem::exists(path_)) return Checkpoint{};
    return Errno("cannot read", path_);
  }
  std::stringstream text;
  text << in.rdbuf();
  try {
    const Json file = Json::parse(text.str());
    if (file.at("kind").get<std::string>() != kKind) {
      return absl::DataLossError(StrCat(path_, ": not a ", kKind));
    }
    const int64_t version = file.at("version").get<int64_t>();
    if (version > kCheckpointFormat) {
      // Written by a newer driver: what it recorded may not be what this
      // one would read, so nothing is guessed (a downgrade with claims
      // prepared must not forget them).
      return absl::FailedPreconditionError(
          StrCat(path_, ": checkpoint format ", version,
                 " is newer than this driver reads (format ", kCheckpointFormat,
                 "): run the driver release that wrote it, or a newer one"));
    }
    if (version < 1) {
      return absl::DataLossError(
          StrCat(path_, ": unknown checkpoint format ", version));
    }
    const Json& data = file.at("data");
    if (Checksum(data.dump()) != file.at("checksum").get<std::string>()) {
      return absl::DataLossError(StrCat(path_, ": checksum mismatch"));
    }
    return FromJson(data);
  } catch (const std::exception& e) {
    return absl::DataLossError(StrCat(path_, ": ", e.what()));
  }
}

absl::Status CheckpointFile::Write(const Checkpoint& checkpoint) const {
  const Json data = ToJson(checkpoint);
  const std::string dump = data.dump();
  const Json file = {{"kind", kKind},
                     {"version", kCheckpointFormat},
                     {"checksum", Checksum(dump)},
                     {"data", data}};
  const std::string text = file.dump(1) + "\n";
  const std::filesystem::path target(path_);
  std::error_code ec;
  std::filesystem::create_directories(target.parent_path(), ec);
  const std::string tmp = path_ + ".tmp";
  const int fd =
      ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Errno("cannot create", tmp);
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      absl::Status s = Errno("cannot write", tmp);
      ::close(fd);
      return s;
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    absl::Status s = Errno("cannot fsync", tmp);
    ::close(fd);
    return s;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path_.c_str()) != 0) {
    return Errno("cannot rename to", path_);
  }
  const int dir =
      ::open(target.parent_path().empty() ? "." : target.parent_path().c_str(),
             O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return absl::OkStatus();
}

std::string ReadBootId(const std::string& path) {
  std::ifstream in(path);
  std::string id;
  std::getline(in, id);
  while (!id.empty() && std::isspace(static_cast<unsigned char>(id.back()))) {
    id.pop_back();
  }
  return id;
}

}  // namespace draplane::gpu_driver
