#include "store/testing/fault_vfs.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <memory>

namespace draplane::store::testing {
namespace {

struct FaultFile {
  sqlite3_file base;  // first: SQLite sees a FaultFile as a sqlite3_file
  FaultVfs* vfs;
  std::string* path;   // null for files without a name (temporary)
  sqlite3_file* real;  // the default VFS's file, allocated after this
};

struct Registered {
  sqlite3_vfs vfs;
  sqlite3_vfs* real;  // the default VFS, which the callbacks forward to
  FaultVfs fault;
  std::string name;
};

sqlite3_vfs* Real(sqlite3_vfs* vfs) {
  return static_cast<Registered*>(vfs->pAppData)->real;
}
FaultVfs& Fault(sqlite3_vfs* vfs) {
  return static_cast<Registered*>(vfs->pAppData)->fault;
}
FaultFile* AsFault(sqlite3_file* f) { return reinterpret_cast<FaultFile*>(f); }

int64_t FileSize(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_size : 0;
}

// The bytes of `path` in [offset, offset + n), clipped to its size.
std::string ReadRange(const std::string& path, int64_t offset, int64_t n) {
  std::string out;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  out.resize(static_cast<size_t>(n));
  const ssize_t got = ::pread(fd, out.data(), out.size(), offset);
  out.resize(got > 0 ? static_cast<size_t>(got) : 0);
  ::close(fd);
  return out;
}

int Close(sqlite3_file* f) {
  FaultFile* ff = AsFault(f);
  const int rc =
      ff->real->pMethods ? ff->real->pMethods->xClose(ff->real) : SQLITE_OK;
  delete ff->path;
  ff->path = nullptr;
  bool dead;
  {
    std::lock_guard lock(ff->vfs->mu);
    dead = ff->vfs->dead;
  }
  return dead ? SQLITE_OK : rc;
}

int Read(sqlite3_file* f, void* buf, int n, sqlite3_int64 offset) {
  FaultFile* ff = AsFault(f);
  {
    std::lock_guard lock(ff->vfs->mu);
    if (ff->vfs->dead) return SQLITE_IOERR_READ;
  }
  return ff->real->pMethods->xRead(ff->real, buf, n, offset);
}

int Write(sqlite3_file* f, const void* buf, int n, sqlite3_int64 offset) {
  FaultFile* ff = AsFault(f);
  FaultVfs& v = *ff->vfs;
  std::lock_guard lock(v.mu);
  if (v.dead || v.CountOpLocked()) return SQLITE_IOERR_WRITE;
  if (ff->path != nullptr) {
    const std::string& path = *ff->path;
    const int64_t size = FileSize(path);
    const int64_t growth = std::max<int64_t>(0, offset + n - size);
    if (v.space_limit >= 0 && growth > 0) {
      int64_t used = 0;
      for (const auto& [p, s] : v.sizes) used += s;
      if (used + growth > v.space_limit) return SQLITE_FULL;
    }
    v.unsynced[path].push_back(
        FaultVfs::Undo{offset, ReadRange(path, offset, n), size});
  }
  const int rc = ff->real->pMethods->xWrite(ff->real, buf, n, offset);
  if (ff->path != nullptr) v.sizes[*ff->path] = FileSize(*ff->path);
  return rc;
}

int Truncate(sqlite3_file* f, sqlite3_int64 size) {
  FaultFile* ff = AsFault(f);
  FaultVfs& v = *ff->vfs;
  std::lock_guard lock(v.mu);
  if (v.dead || v.CountOpLocked()) return SQLITE_IOERR_TRUNCATE;
  if (ff->path != nullptr) {
    const std::string& path = *ff->path;
    const int64_t old_size = FileSize(path);
    if (size < old_size) {
      v.unsynced[path].push_back(FaultVfs::Undo{
          size, ReadRange(path, size, old_size - size), old_size});
    }
  }
  const int rc = ff->real->pMethods->xTruncate(ff->real, size);
  if (ff->path != nullptr) v.sizes[*ff->path] = FileSize(*ff->path);
  return rc;
}

int Sync(sqlite3_file* f, int flags) {
  FaultFile* ff = AsFault(f);
  FaultVfs& v = *ff->vfs;
  std::lock_guard lock(v.mu);
  if (v.dead || v.CountOpLocked()) return SQLITE_IOERR_FSYNC;
  const int rc = ff->real->pMethods->xSync(ff->real, flags);
  if (rc == SQLITE_OK && ff->path != nullptr) v.unsynced.erase(*ff->path);
  return rc;
}

int FileSizeMethod(sqlite3_file* f, sqlite3_int64* size) {
  FaultFile* ff = AsFault(f);
  {
    std::lock_guard lock(ff->vfs->mu);
    if (ff->vfs->dead) return SQLITE_IOERR_FSTAT;
  }
  return ff->real->pMethods->xFileSize(ff->real, size);
}

int Lock(sqlite3_file* f, int level) {
  FaultFile* ff = AsFault(f);
  {
    std::lock_guard lock(ff->vfs->mu);
    if (ff->vfs->dead) return SQLITE_IOERR_LOCK;
  }
  return ff->real->pMethods->xLock(ff->real, level);
}
int Unlock(sqlite3_file* f, int level) {
  FaultFile* ff = AsFault(f);
  return ff->real->pMethods->xUnlock(ff->real, level);
}
int CheckReservedLock(sqlite3_file* f, int* out) {
  FaultFile* ff = AsFault(f);
  return ff->real->pMethods->xCheckReservedLock(ff->real, out);
}
int FileControl(sqlite3_file* f, int op, void* arg) {
  FaultFile* ff = AsFault(f);
  return ff->real->pMethods->xFileControl(ff->real, op, arg);
}
int SectorSize(sqlite3_file* f) {
  FaultFile* ff = AsFault(f);
  return ff->real->pMethods->xSectorSize(ff->real);
}
int DeviceCharacteristics(sqlite3_file* f) {
  FaultFile* ff = AsFault(f);
  return ff->real->pMethods->xDeviceCharacteristics(ff->real);
}
int ShmMap(sqlite3_file* f, int region, int size, int extend,
           void volatile** out) {
  FaultFile* ff = AsFault(f);
  return ff->real->pMethods->xShmMap(ff->real, region, size, extend, out);
}
int ShmLock(sqlite3_file* f, int offset, int n, int flags) {
  FaultFile* ff = AsFault(f);
  return ff->real->pMethods->xShmLock(ff->real, offset, n, flags);
}
void ShmBarrier(sqlite3_file* f) {
  FaultFile* ff = AsFault(f);
  ff->real->pMethods->xShmBarrier(ff->real);
}
int ShmUnmap(sqlite3_file* f, int delete_flag) {
  FaultFile* ff = AsFault(f);
  return ff->real->pMethods->xShmUnmap(ff->real, delete_flag);
}

const sqlite3_io_methods kMethods = {
    2,
    Close,
    Read,
    Write,
    Truncate,
    Sync,
    FileSizeMethod,
    Lock,
    Unlock,
    CheckReservedLock,
    FileControl,
    SectorSize,
    DeviceCharacteristics,
    ShmMap,
    ShmLock,
    ShmBarrier,
    ShmUnmap,
    nullptr,
    nullptr,
};

int Open(sqlite3_vfs* vfs, const char* name, sqlite3_file* f, int flags,
         int* out_flags) {
  FaultFile* ff = AsFault(f);
  ff->base.pMethods = nullptr;
  ff->vfs = &Fault(vfs);
  ff->path = nullptr;
  ff->real = reinterpret_cast<sqlite3_file*>(ff + 1);
  {
    std::lock_guard lock(ff->vfs->mu);
    if (ff->vfs->dead) return SQLITE_CANTOPEN;
  }
  const int rc = Real(vfs)->xOpen(Real(vfs), name, ff->real, flags, out_flags);
  if (rc != SQLITE_OK) return rc;
  if (name != nullptr) {
    ff->path = new std::string(name);
    std::lock_guard lock(ff->vfs->mu);
    ff->vfs->sizes[*ff->path] = FileSize(*ff->path);
  }
  ff->base.pMethods = &kMethods;
  return SQLITE_OK;
}

int Delete(sqlite3_vfs* vfs, const char* name, int sync_dir) {
  FaultVfs& v = Fault(vfs);
  {
    std::lock_guard lock(v.mu);
    if (v.dead) return SQLITE_IOERR_DELETE;
    v.unsynced.erase(name);
    v.sizes.erase(name);
  }
  return Real(vfs)->xDelete(Real(vfs), name, sync_dir);
}

int Access(sqlite3_vfs* vfs, const char* name, int flags, int* out) {
  {
    std::lock_guard lock(Fault(vfs).mu);
    if (Fault(vfs).dead) return SQLITE_IOERR_ACCESS;
  }
  return Real(vfs)->xAccess(Real(vfs), name, flags, out);
}

int FullPathname(sqlite3_vfs* vfs, const char* name, int n, char* out) {
  return Real(vfs)->xFullPathname(Real(vfs), name, n, out);
}
int Randomness(sqlite3_vfs* vfs, int n, char* out) {
  return Real(vfs)->xRandomness(Real(vfs), n, out);
}
int Sleep(sqlite3_vfs* vfs, int micros) {
  return Real(vfs)->xSleep(Real(vfs), micros);
}
int CurrentTime(sqlite3_vfs* vfs, double* out) {
  return Real(vfs)->xCurrentTime(Real(vfs), out);
}
int GetLastError(sqlite3_vfs* vfs, int n, char* out) {
  return Real(vfs)->xGetLastError(Real(vfs), n, out);
}
int CurrentTimeInt64(sqlite3_vfs* vfs, sqlite3_int64* out) {
  return Real(vfs)->xCurrentTimeInt64(Real(vfs), out);
}

}  // namespace

FaultVfs& FaultVfs::Get(const std::string& name) {
  static std::mutex registry_mu;
  static std::map<std::string, std::unique_ptr<Registered>> registry;
  std::lock_guard lock(registry_mu);
  auto& slot = registry[name];
  if (slot == nullptr) {
    sqlite3_initialize();
    sqlite3_vfs* real = sqlite3_vfs_find(nullptr);
    slot = std::make_unique<Registered>();
    slot->name = name;
    slot->real = real;
    sqlite3_vfs& v = slot->vfs;
    v.iVersion = 2;
    v.szOsFile = static_cast<int>(sizeof(FaultFile)) + real->szOsFile;
    v.mxPathname = real->mxPathname;
    v.zName = slot->name.c_str();
    v.pAppData = slot.get();
    v.xOpen = Open;
    v.xDelete = Delete;
    v.xAccess = Access;
    v.xFullPathname = FullPathname;
    v.xDlOpen = nullptr;
    v.xDlError = nullptr;
    v.xDlSym = nullptr;
    v.xDlClose = nullptr;
    v.xRandomness = Randomness;
    v.xSleep = Sleep;
    v.xCurrentTime = CurrentTime;
    v.xGetLastError = GetLastError;
    v.xCurrentTimeInt64 = CurrentTimeInt64;
    sqlite3_vfs_register(&v, /*makeDflt=*/0);
  }
  return slot->fault;
}

void FaultVfs::CutAfter(int64_t n) {
  std::lock_guard lock(mu);
  ops_until_cut = n;
}

bool FaultVfs::cut() const {
  std::lock_guard lock(mu);
  return dead;
}

void FaultVfs::Revive() {
  std::lock_guard lock(mu);
  dead = false;
  ops_until_cut = 0;
}

void FaultVfs::SetSpaceLimit(int64_t bytes) {
  std::lock_guard lock(mu);
  space_limit = bytes;
}

int64_t FaultVfs::UsedBytes() const {
  std::lock_guard lock(mu);
  int64_t used = 0;
  for (const auto& [p, s] : sizes) used += s;
  return used;
}

int64_t FaultVfs::undone_writes() const {
  std::lock_guard lock(mu);
  return undone;
}

bool FaultVfs::CountOpLocked() {
  if (ops_until_cut <= 0) return false;
  if (--ops_until_cut > 0) return false;
  CutLocked();
  return true;
}

void FaultVfs::CutLocked() {
  for (auto& [path, undos] : unsynced) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) continue;
    for (auto it = undos.rbegin(); it != undos.rend(); ++it) {
      if (!it->old_bytes.empty()) {
        (void)::pwrite(fd, it->old_bytes.data(), it->old_bytes.size(),
                       it->offset);
      }
      (void)::ftruncate(fd, it->old_size);
      ++undone;
    }
    ::close(fd);
    sizes[path] = FileSize(path);
  }
  unsynced.clear();
  dead = true;
}

}  // namespace draplane::store::testing
