#include "common/private_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

#include "common/str_cat.h"

namespace draplane {

namespace fs = std::filesystem;

namespace {

absl::Status Errno(std::string_view what, const fs::path& path) {
  return absl::UnavailableError(
      StrCat(what, " ", path.string(), ": ",
             std::error_code(errno, std::generic_category()).message()));
}

// Writes all of `content` to `fd`.
bool WriteAll(int fd, const std::string& content) {
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

absl::StatusOr<std::string> ReadPrivateFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(StrCat("cannot read ", path.string()));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

absl::Status WritePrivateFile(const fs::path& path,
                              const std::string& content) {
  const fs::path tmp = path.string() + ".tmp";
  ::unlink(tmp.c_str());  // a leftover of a crash; O_EXCL below
  const int fd = ::open(
      tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Errno("cannot write", tmp);
  const bool written = WriteAll(fd, content) && ::fsync(fd) == 0;
  ::close(fd);
  if (!written) {
    ::unlink(tmp.c_str());
    return Errno("cannot write", tmp);
  }
  if (absl::Status s = RenameDurably(tmp, path); !s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  return absl::OkStatus();
}

absl::Status RenameDurably(const fs::path& from, const fs::path& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    return Errno("cannot rename to", to);
  }
  fs::path dir = to.parent_path();
  if (dir.empty()) dir = ".";
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open", dir);
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced) return Errno("cannot sync", dir);
  return absl::OkStatus();
}

absl::Status CreatePrivateDirectories(const fs::path& path) {
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path p = path; !p.empty() && !fs::exists(p, ec);
       p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0700) != 0 && errno != EEXIST) {
      return Errno("cannot create", *it);
    }
  }
  if (!fs::is_directory(path, ec)) {
    return absl::FailedPreconditionError(
        StrCat(path.string(), " is not a directory"));
  }
  return absl::OkStatus();
}

absl::Status TouchPrivateFile(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Errno("cannot create", path);
  ::close(fd);
  return absl::OkStatus();
}

}  // namespace draplane
