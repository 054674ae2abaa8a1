// Files of the data directory's credentials: read whole, and written
// atomically (a temporary file renamed over the old one) readable by the
// owner only.
#ifndef DRAPLANE_APISERVER_INTERNAL_PRIVATE_FILES_H_
#define DRAPLANE_APISERVER_INTERNAL_PRIVATE_FILES_H_

#include <filesystem>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace draplane::apiserver::internal {

// NotFound when the file cannot be read.
absl::StatusOr<std::string> ReadPrivateFile(const std::filesystem::path& path);

// Replaces `path` with `content`, mode 0600.
absl::Status WritePrivateFile(const std::filesystem::path& path,
                              const std::string& content);

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_PRIVATE_FILES_H_
