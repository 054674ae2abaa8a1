#include "apiserver/internal/private_files.h"

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "common/str_cat.h"

namespace draplane::apiserver::internal {

namespace fs = std::filesystem;

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
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      return absl::PermissionDeniedError(StrCat("cannot write ", tmp.string()));
    }
    ::chmod(tmp.c_str(), 0600);
    out << content;
    if (!out.flush()) {
      return absl::InternalError(StrCat("cannot write ", tmp.string()));
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) return absl::InternalError(StrCat("cannot write ", path.string()));
  return absl::OkStatus();
}

}  // namespace draplane::apiserver::internal
