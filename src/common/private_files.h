// Files and folders only their owner may read: credentials, the store, a
// data directory. Each is created with its final mode (no window in which
// another user could open it): folders 0700, files 0600, files written
// atomically (a temporary file synced and renamed over the old one).
#ifndef DRAPLANE_COMMON_PRIVATE_FILES_H_
#define DRAPLANE_COMMON_PRIVATE_FILES_H_

#include <filesystem>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace draplane {

// NotFound when the file cannot be read.
absl::StatusOr<std::string> ReadPrivateFile(const std::filesystem::path& path);

// Replaces `path` with `content`, mode 0600.
absl::Status WritePrivateFile(const std::filesystem::path& path,
                              const std::string& content);

// Renames `from` to `to` (replacing it) and syncs `to`'s folder, so that
// the rename survives a power cut.
absl::Status RenameDurably(const std::filesystem::path& from,
                           const std::filesystem::path& to);

// Creates `path` and its missing parents, each new one mode 0700; an
// existing `path` keeps its mode.
absl::Status CreatePrivateDirectories(const std::filesystem::path& path);

// Creates `path` empty with mode 0600 unless it exists (which keeps its
// mode), so that a program that opens it next (SQLite) finds it private.
absl::Status TouchPrivateFile(const std::filesystem::path& path);

}  // namespace draplane

#endif  // DRAPLANE_COMMON_PRIVATE_FILES_H_
