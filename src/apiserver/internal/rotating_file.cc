#include "apiserver/internal/rotating_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <system_error>
#include <utility>
#include <vector>

#include "common/str_cat.h"

namespace draplane::apiserver::internal {
namespace {

namespace fs = std::filesystem;

// lumberjack's backupTimeFormat, Go's "2006-01-02T15-04-05.000".
constexpr char kBackupTimeFormat[] = "%Y-%m-%dT%H-%M-%E3S";

absl::Status Errno(std::string_view what, const std::string& path) {
  return absl::UnavailableError(
      StrCat(what, " ", path, ": ",
             std::error_code(errno, std::generic_category()).message()));
}

// The name without its extension, and the extension (Go's filepath.Ext:
// from the last dot of the base name).
std::pair<std::string, std::string> PrefixAndExt(const std::string& base) {
  const size_t dot = base.rfind('.');
  if (dot == std::string::npos) return {base, ""};
  return {base.substr(0, dot), base.substr(dot)};
}

}  // namespace

std::string BackupName(std::string_view path, absl::Time t) {
  const fs::path p{std::string(path)};
  auto [prefix, ext] = PrefixAndExt(p.filename().string());
  const std::string name =
      StrCat(prefix, "-",
             absl::FormatTime(kBackupTimeFormat, t, absl::UTCTimeZone()), ext);
  return (p.parent_path() / name).string();
}

RotatingFile::RotatingFile(RotatingFileOptions options)
    : options_(std::move(options)),
      clock_(options_.clock != nullptr ? *options_.clock : RealClock()) {}

RotatingFile::~RotatingFile() {
  absl::MutexLock lock(&mu_);
  Close();
}

void RotatingFile::Close() {
  if (fd_ >= 0 && fd_ != STDOUT_FILENO) ::close(fd_);
  fd_ = -1;
}

absl::Status RotatingFile::Write(std::string_view data) {
  absl::MutexLock lock(&mu_);
  const auto len = static_cast<int64_t>(data.size());
  const bool rotates = options_.max_bytes > 0 && options_.path != "-";
  if (rotates && len > options_.max_bytes) {
    return absl::ResourceExhaustedError(StrCat("write length ", len,
                                               " exceeds maximum file size ",
                                               options_.max_bytes));
  }
  if (fd_ < 0) {
    if (absl::Status s = OpenExistingOrNew(len); !s.ok()) return s;
  }
  if (rotates && size_ + len > options_.max_bytes) {
    if (absl::Status s = Rotate(); !s.ok()) return s;
  }
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd_, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      absl::Status s = Errno("cannot write", options_.path);
      // Reopened by the next write.
      Close();
      return s;
    }
    done += static_cast<size_t>(n);
    size_ += n;
  }
  return absl::OkStatus();
}

absl::Status RotatingFile::OpenExistingOrNew(int64_t write_len) {
  if (options_.path == "-") {
    fd_ = STDOUT_FILENO;
    return absl::OkStatus();
  }
  struct stat st {};
  if (::stat(options_.path.c_str(), &st) != 0) {
    if (errno == ENOENT) return OpenNew();
    return Errno("error getting log file info of", options_.path);
  }
  if (options_.max_bytes > 0 && st.st_size + write_len >= options_.max_bytes) {
    return Rotate();
  }
  const int fd =
      ::open(options_.path.c_str(), O_APPEND | O_WRONLY | O_CLOEXEC, 0644);
  // lumberjack: a file that cannot be opened is moved away and replaced.
  if (fd < 0) return OpenNew();
  fd_ = fd;
  size_ = st.st_size;
  return absl::OkStatus();
}

absl::Status RotatingFile::Rotate() {
  Close();
  if (absl::Status s = OpenNew(); !s.ok()) return s;
  RemoveOldBackups();
  return absl::OkStatus();
}

absl::Status RotatingFile::OpenNew() {
  const fs::path path(options_.path);
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  if (ec) {
    return absl::UnavailableError(
        StrCat("can't make directories for new logfile: ", ec.message()));
  }
  mode_t mode = 0600;
  struct stat st {};
  if (::stat(options_.path.c_str(), &st) == 0) {
    mode = st.st_mode & 07777;
    const std::string backup = BackupName(options_.path, clock_.Now());
    if (::rename(options_.path.c_str(), backup.c_str()) != 0) {
      return Errno("can't rename log file", options_.path);
    }
  }
  const int fd =
      ::open(options_.path.c_str(),
             O_CREAT | O_WRONLY | O_TRUNC | O_APPEND | O_CLOEXEC, mode);
  if (fd < 0) return Errno("can't open new logfile", options_.path);
  fd_ = fd;
  size_ = 0;
  return absl::OkStatus();
}

void RotatingFile::RemoveOldBackups() {
  if (options_.max_backups <= 0) return;
  const fs::path path(options_.path);
  const fs::path dir = path.has_parent_path() ? path.parent_path() : ".";
  auto [prefix, ext] = PrefixAndExt(path.filename().string());
  prefix += "-";
  // (time in the name, file name): lumberjack's oldLogFiles.
  std::vector<std::pair<absl::Time, std::string>> backups;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::error_code type_ec;
    if (entry.is_directory(type_ec)) continue;
    const std::string name = entry.path().filename().string();
    if (name.size() < prefix.size() + ext.size() ||
        name.compare(0, prefix.size(), prefix) != 0 ||
        name.compare(name.size() - ext.size(), ext.size(), ext) != 0) {
      continue;
    }
    const std::string stamp =
        name.substr(prefix.size(), name.size() - prefix.size() - ext.size());
    absl::Time t;
    std::string err;
    if (!absl::ParseTime(kBackupTimeFormat, stamp, absl::UTCTimeZone(), &t,
                         &err)) {
      continue;
    }
    backups.emplace_back(t, name);
  }
  if (static_cast<int>(backups.size()) <= options_.max_backups) return;
  std::sort(backups.begin(), backups.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = static_cast<size_t>(options_.max_backups); i < backups.size();
       ++i) {
    fs::remove(dir / backups[i].second, ec);
  }
}

}  // namespace draplane::apiserver::internal
