#include "store/store.h"

#include "store/internal/sqlite_journal.h"

namespace draplane::store {

absl::StatusOr<std::unique_ptr<Store>> OpenSqliteStore(
    const std::string& path, const StoreOptions& options) {
  auto store = internal::OpenSqliteJournaledStore(path, options);
  if (!store.ok()) return store.status();
  return std::unique_ptr<Store>(std::move(*store));
}

}  // namespace draplane::store
