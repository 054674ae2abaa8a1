#include "store/store.h"

#include <filesystem>
#include <system_error>

#include "common/private_files.h"
#include "common/str_cat.h"
#include "store/internal/sqlite_journal.h"

namespace draplane::store {

absl::StatusOr<std::unique_ptr<Store>> OpenSqliteStore(
    const std::string& path, const StoreOptions& options) {
  auto store = internal::OpenSqliteJournaledStore(path, options);
  if (!store.ok()) return store.status();
  return std::unique_ptr<Store>(std::move(*store));
}

absl::StatusOr<int64_t> RestoreSqliteStore(const std::string& backup,
                                           const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(path, ec)) {
    return absl::AlreadyExistsError(
        StrCat(path, " exists: restore into a new data directory"));
  }
  if (!fs::is_regular_file(backup, ec)) {
    return absl::NotFoundError(StrCat("cannot read ", backup));
  }
  // Checked and upgraded as a copy beside `path`, then renamed into place:
  // `path` appears whole or not at all.
  const std::string tmp = StrCat(path, ".restoring");
  for (const char* suffix : {"", "-wal", "-shm", ".lock"}) {
    fs::remove(tmp + suffix, ec);
  }
  if (absl::Status s = TouchPrivateFile(tmp); !s.ok()) return s;
  fs::copy_file(backup, tmp, fs::copy_options::overwrite_existing, ec);
  // copy_file gives the copy the backup's mode.
  if (!ec) {
    fs::permissions(tmp, fs::perms::owner_read | fs::perms::owner_write,
                    fs::perm_options::replace, ec);
  }
  if (ec) {
    fs::remove(tmp, ec);
    return absl::InternalError(StrCat("cannot copy ", backup, " to ", tmp));
  }
  int64_t revision = 0;
  {
    auto store = OpenSqliteStore(tmp, StoreOptions{.quota_bytes = 0});
    if (!store.ok()) {
      fs::remove(tmp, ec);
      fs::remove(tmp + ".lock", ec);
      return absl::Status(store.status().code(),
                          StrCat(backup, " is not a usable store backup: ",
                                 store.status().message()));
    }
    revision = (*store)->Revision();
  }
  fs::remove(tmp + ".lock", ec);
  if (absl::Status s = RenameDurably(tmp, path); !s.ok()) return s;
  return revision;
}

}  // namespace draplane::store
