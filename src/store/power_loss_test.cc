// Power cuts and full disks under the SQLite store, through the fault
// injecting VFS (testing/fault_vfs.h). DRAPLANE_POWER_LOSS_CUTS sets the
// number of cuts (20 by default; the closing figures use 100),
// DRAPLANE_POWER_LOSS_SEED the random seed.
#include <sqlite3.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/str_cat.h"
#include "gtest/gtest.h"
#include "store/store.h"
#include "store/testing/fault_vfs.h"
#include "store/testing/temp_dir.h"

namespace draplane::store {
namespace {

using testing::FaultVfs;
using testing::TempDir;

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v == nullptr || *v == '\0' ? fallback : std::atoll(v);
}

// PRAGMA integrity_check of the file, through the default VFS.
std::string IntegrityCheck(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) !=
      SQLITE_OK) {
    sqlite3_close(db);
    return "cannot open";
  }
  std::string result;
  sqlite3_exec(
      db, "PRAGMA integrity_check",
      [](void* out, int, char** values, char**) {
        *static_cast<std::string*>(out) += values[0] ? values[0] : "null";
        return 0;
      },
      &result, nullptr);
  sqlite3_close(db);
  return result;
}

// What a key holds: absent, or a value written at a revision (0 when the
// revision is unknown: a write whose outcome the cut hid).
struct KeyState {
  bool exists = false;
  std::string value;
  int64_t mod_revision = 0;
  bool operator==(const KeyState&) const = default;
};

// The writes acknowledged so far, and per key the write under way when the
// power went (it may or may not have reached the disk).
struct Model {
  std::mutex mu;
  std::map<std::string, KeyState> acked;
  std::map<std::string, KeyState> in_doubt;
  int64_t max_acked_revision = 0;
  int64_t acked_writes = 0;
};

// One writer: claims created, their status rewritten, deleted, and its
// namespace's quota updated, until a write fails (the cut) or `max_ops`.
void Writer(Store& store, Model& model, int id, uint64_t seed,
            int64_t max_ops) {
  std::mt19937_64 rng(seed);
  const std::string ns = StrCat("/registry/resourceclaims/ns-", id, "/");
  const std::string quota = StrCat("/registry/resourcequotas/ns-", id, "/q");
  for (int64_t op = 0; op < max_ops; ++op) {
    const int pick = static_cast<int>(rng() % 10);
    const std::string key = pick == 0 ? quota : StrCat(ns, "claim-", rng() % 8);
    KeyState before;
    {
      std::lock_guard lock(model.mu);
      before = model.acked[key];
    }
    KeyState after;
    absl::StatusOr<Record> written;
    const std::string value =
        StrCat("{\"writer\":", id, ",\"op\":", op, ",\"pad\":\"",
               std::string(200 + rng() % 3000, 'p'), "\"}");
    if (!before.exists) {
      after = {true, value, 0};
      {
        std::lock_guard lock(model.mu);
        model.in_doubt[key] = after;
      }
      written = store.Create(key, value);
    } else if (pick != 0 && rng() % 4 == 0) {
      after = {false, "", 0};
      {
        std::lock_guard lock(model.mu);
        model.in_doubt[key] = after;
      }
      written = store.Delete(key, before.mod_revision);
    } else {
      after = {true, value, 0};
      {
        std::lock_guard lock(model.mu);
        model.in_doubt[key] = after;
      }
      written = store.Update(key, value, before.mod_revision);
    }
    if (!written.ok()) return;  // the cut: this write stays in doubt
    std::lock_guard lock(model.mu);
    model.in_doubt.erase(key);
    after.mod_revision = after.exists ? written->mod_revision : 0;
    model.acked[key] = after;
    model.max_acked_revision =
        std::max(model.max_acked_revision, written->mod_revision);
    ++model.acked_writes;
  }
}

// Checks the store at `path` against the model after a cut, and settles
// the writes in doubt by what the store holds.
void Verify(const std::string& path, Model& model, int cut) {
  ASSERT_EQ(IntegrityCheck(path), "ok") << "cut " << cut;
  auto store = OpenSqliteStore(path, {.retain_revisions = 0});
  ASSERT_TRUE(store.ok()) << "cut " << cut << ": " << store.status();
  Store& s = **store;
  EXPECT_GE(s.Revision(), model.max_acked_revision) << "cut " << cut;
  std::lock_guard lock(model.mu);
  for (auto& [key, want] : model.acked) {
    auto got = s.Get(key);
    KeyState actual;
    if (got.ok()) actual = {true, *got->value, got->mod_revision};
    auto doubt = model.in_doubt.find(key);
    if (doubt != model.in_doubt.end() &&
        actual.exists == doubt->second.exists &&
        actual.value == doubt->second.value) {
      want = actual;  // the write in doubt reached the disk
      continue;
    }
    EXPECT_EQ(actual, want)
        << "cut " << cut << ": acknowledged write of " << key << " lost";
  }
  model.in_doubt.clear();
  // Revisions are strictly increasing and the history replays in order.
  int64_t last = 0;
  bool ordered = true;
  auto w = s.WatchPrefix("/", s.CompactRevision(), [&](const Event& e) {
    ordered = ordered && e.revision > last;
    last = e.revision;
  });
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE(ordered) << "cut " << cut;
}

TEST(PowerLossTest, NoAcknowledgedWriteIsLostAndTheStoreStaysConsistent) {
  const int64_t cuts = EnvInt("DRAPLANE_POWER_LOSS_CUTS", 20);
  const uint64_t seed =
      static_cast<uint64_t>(EnvInt("DRAPLANE_POWER_LOSS_SEED", 20261206));
  std::mt19937_64 rng(seed);
  FaultVfs& vfs = FaultVfs::Get("draplane-power-loss");
  TempDir dir;
  const std::string path = dir.File("state.db");
  Model model;
  int64_t cuts_that_hit = 0;
  for (int cut = 0; cut < cuts; ++cut) {
    // Somewhere among the next few hundred writes, syncs and truncates:
    // in a commit, a checkpoint, a journal compaction or the opening.
    vfs.CutAfter(1 + static_cast<int64_t>(rng() % 600));
    {
      // A small retained window: journal compactions run under the cuts.
      auto store = OpenSqliteStore(
          path, {.retain_revisions = 40, .sqlite_vfs = "draplane-power-loss"});
      if (store.ok()) {
        std::vector<std::thread> writers;
        writers.reserve(4);
        for (int id = 0; id < 4; ++id) {
          writers.emplace_back(Writer, std::ref(**store), std::ref(model), id,
                               rng(), 5000);
        }
        for (auto& t : writers) t.join();
      }
      // The store is dropped with its file as the cut left it.
    }
    if (vfs.cut()) ++cuts_that_hit;
    vfs.Revive();
    Verify(path, model, cut);
    if (HasFatalFailure()) return;
  }
  std::printf(
      "power loss: %lld cuts (%lld during writes), %lld acknowledged "
      "writes, %lld unsynced changes undone, seed %llu\n",
      static_cast<long long>(cuts), static_cast<long long>(cuts_that_hit),
      static_cast<long long>(model.acked_writes),
      static_cast<long long>(vfs.undone_writes()),
      static_cast<unsigned long long>(seed));
  EXPECT_EQ(cuts_that_hit, cuts);
  EXPECT_GT(vfs.undone_writes(), 0);
}

TEST(DiskFullTest, WritesFailReadsGoOnNothingIsCorruptWritesResume) {
  FaultVfs& vfs = FaultVfs::Get("draplane-disk-full");
  TempDir dir;
  const std::string path = dir.File("state.db");
  std::map<std::string, std::string> acked;
  {
    auto store = OpenSqliteStore(path, {.sqlite_vfs = "draplane-disk-full"});
    ASSERT_TRUE(store.ok()) << store.status();
    Store& s = **store;
    for (int i = 0; i < 20; ++i) {
      const std::string key = StrCat("/k/", i);
      ASSERT_TRUE(s.Create(key, std::string(1000, 'a')).ok());
      acked[key] = std::string(1000, 'a');
    }
    vfs.SetSpaceLimit(vfs.UsedBytes() + 256 * 1024);
    absl::Status failure;
    for (int i = 20; i < 1000 && failure.ok(); ++i) {
      const std::string key = StrCat("/k/", i);
      const std::string value(8192, 'b');
      auto w = s.Create(key, value);
      if (w.ok()) {
        acked[key] = value;
      } else {
        failure = w.status();
        EXPECT_TRUE(absl::IsNotFound(s.Get(key).status()));
      }
    }
    ASSERT_FALSE(failure.ok()) << "the disk never filled";
    // A server error (the API answers 500), saying why.
    EXPECT_EQ(failure.code(), absl::StatusCode::kInternal);
    EXPECT_NE(std::string(failure.message()).find("full"), std::string::npos)
        << failure;
    const int64_t revision = s.Revision();
    EXPECT_FALSE(s.Update("/k/0", std::string(8192, 'c'), 0).ok());
    EXPECT_EQ(s.Revision(), revision);
    // Reads go on.
    for (const auto& [key, value] : acked) {
      auto got = s.Get(key);
      ASSERT_TRUE(got.ok()) << key;
      EXPECT_EQ(*got->value, value);
    }
    ListOptions keys;
    keys.prefix = "/k/";
    EXPECT_EQ(s.List(keys)->records.size(), acked.size());
    // Space freed: writes work again, at the next revision.
    vfs.SetSpaceLimit(-1);
    auto again = s.Update("/k/0", "after", 0);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(again->mod_revision, revision + 1);
    acked["/k/0"] = "after";
  }
  ASSERT_EQ(IntegrityCheck(path), "ok");
  auto reopened = OpenSqliteStore(path);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  for (const auto& [key, value] : acked) {
    auto got = (*reopened)->Get(key);
    ASSERT_TRUE(got.ok()) << key;
    EXPECT_EQ(*got->value, value);
  }
}

}  // namespace
}  // namespace draplane::store
