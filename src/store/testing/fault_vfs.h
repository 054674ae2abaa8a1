// A SQLite VFS over the default one that injects what a machine does to a
// database (LazyFS's model, inside the process):
//  - power loss: at a chosen write, sync or truncate, every change made to
//    a file since that file's last sync is undone on disk (data a power cut
//    would have lost), and from then on every operation of the VFS fails,
//    as if the machine had stopped; Revive() lets it be used again;
//  - a full disk: writes that would grow the files opened through it past
//    a byte limit fail with SQLITE_FULL.
// Creating and deleting files counts as durable at once (a directory sync
// is not modelled), and synced data is never torn.
//
// Usage:
//   FaultVfs& vfs = FaultVfs::Get("faulty");   // registered on first use
//   vfs.CutAfter(120);                         // the 120th write op cuts
//   ... OpenSqliteStore(path, {.sqlite_vfs = "faulty"}) ...
//   vfs.Revive();
#ifndef DRAPLANE_STORE_TESTING_FAULT_VFS_H_
#define DRAPLANE_STORE_TESTING_FAULT_VFS_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace draplane::store::testing {

class FaultVfs {
 public:
  // The VFS registered under `name` (registered on the first call; never
  // the default VFS). Lives until the process ends.
  static FaultVfs& Get(const std::string& name);

  // Power loss at the `n`th write, sync or truncate from now (n >= 1); 0
  // disarms.
  void CutAfter(int64_t n);
  // True once the cut has happened (every operation fails since).
  bool cut() const;
  // Makes the VFS usable again after a cut (the files stay as the cut left
  // them) and disarms.
  void Revive();
  // Writes that grow the files past `bytes` in total fail; -1 = no limit.
  void SetSpaceLimit(int64_t bytes);
  // The total size of the files opened through the VFS and still present.
  int64_t UsedBytes() const;
  // Changes undone by cuts so far (for tests that the cuts hit something).
  int64_t undone_writes() const;

  // For the VFS callbacks (fault_vfs.cc).
  struct Undo {
    int64_t offset = 0;
    std::string old_bytes;
    int64_t old_size = 0;
  };
  mutable std::mutex mu;
  int64_t ops_until_cut = 0;  // 0: disarmed
  bool dead = false;
  int64_t space_limit = -1;
  int64_t undone = 0;
  std::map<std::string, std::vector<Undo>> unsynced;  // by path
  std::map<std::string, int64_t> sizes;               // by path
  // Counts one write-like operation; true when it is the one that cuts
  // (the cut is then done). Caller holds `mu`.
  bool CountOpLocked();
  void CutLocked();
};

}  // namespace draplane::store::testing

#endif  // DRAPLANE_STORE_TESTING_FAULT_VFS_H_
