// An append-only log file rotated by size, as kube-apiserver's audit log
// writes it through natefinch/lumberjack v2.2.1 (LocalTime false,
// Compress false):
// - a write that would take the file beyond `max_bytes` first renames it
//   to `<name>-<UTC time as 2006-01-02T15-04-05.000><.ext>` in the same
//   directory (`audit.log` -> `audit-2025-01-02T03-04-05.678.log`) and
//   starts a new file with the old one's mode (0600 for the first);
// - an existing file is appended to when the first write fits, else it is
//   rotated first;
// - after a rotation, backups beyond the `max_backups` newest (by the time
//   in their names) are removed; 0 keeps all;
// - a single write larger than `max_bytes` is refused (lumberjack's
//   "write length N exceeds maximum file size M").
// Beyond lumberjack: the directory mill runs synchronously inside the
// write that rotated (lumberjack runs it in a goroutine), and the time
// comes from the injected Clock. `max_bytes` 0 never rotates (as
// kube-apiserver with --audit-log-maxsize=0, a plain O_APPEND file).
// Path "-" writes to standard output, never rotated. MaxAge (removal of
// backups by age) is not implemented.
//
// Thread-safe: writes are serialised by a mutex, each Write is one write
// of the whole data (retried on partial writes).
#ifndef DRAPLANE_APISERVER_INTERNAL_ROTATING_FILE_H_
#define DRAPLANE_APISERVER_INTERNAL_ROTATING_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "clock/clock.h"

namespace draplane::apiserver::internal {

struct RotatingFileOptions {
  std::string path;
  int64_t max_bytes = 0;   // 0: never rotated
  int max_backups = 0;     // 0: keep every backup
  Clock* clock = nullptr;  // names of backups (null: RealClock())
};

// lumberjack's backup name of `path` at `t` (UTC, milliseconds).
std::string BackupName(std::string_view path, absl::Time t);

class RotatingFile {
 public:
  explicit RotatingFile(RotatingFileOptions options);
  ~RotatingFile();
  RotatingFile(const RotatingFile&) = delete;
  RotatingFile& operator=(const RotatingFile&) = delete;

  // Appends `data` (rotating first when it would not fit). An error
  // (UNAVAILABLE: I/O, RESOURCE_EXHAUSTED: larger than max_bytes) leaves
  // the file as it was; the next write tries again.
  absl::Status Write(std::string_view data) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  absl::Status OpenExistingOrNew(int64_t write_len)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status Rotate() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status OpenNew() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Removes the oldest backups beyond max_backups.
  void RemoveOldBackups() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Close() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Constant after construction.
  const RotatingFileOptions options_;
  Clock& clock_;

  absl::Mutex mu_;
  int fd_ ABSL_GUARDED_BY(mu_) = -1;
  int64_t size_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace draplane::apiserver::internal

#endif  // DRAPLANE_APISERVER_INTERNAL_ROTATING_FILE_H_
