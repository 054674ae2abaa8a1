// The SQLite journal: one append-only log table (kine's model), WAL mode,
// synchronous=FULL so that an appended entry survives a crash of the
// process or the machine.
#ifndef DRAPLANE_STORE_INTERNAL_SQLITE_JOURNAL_H_
#define DRAPLANE_STORE_INTERNAL_SQLITE_JOURNAL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "store/internal/journal.h"
#include "store/internal/revisioned_store.h"

namespace draplane::store::internal {

// Opens (creating when missing) the database at `path`, takes an exclusive
// lock on it, and returns a store rebuilt from its contents whose writes go
// to it.
absl::StatusOr<std::unique_ptr<RevisionedStore>> OpenSqliteJournaledStore(
    const std::string& path, const StoreOptions& options);

// Writes `versions` (in revision order) and `compact_revision` as a new
// store file at `path` (AlreadyExists when it exists): built in a
// temporary file beside it, synced, renamed into place.
absl::Status WriteSqliteSnapshot(const std::string& path,
                                 const std::vector<SnapshotVersion>& versions,
                                 int64_t compact_revision);

}  // namespace draplane::store::internal

#endif  // DRAPLANE_STORE_INTERNAL_SQLITE_JOURNAL_H_
