// The audit log file's rotation, as lumberjack does it for
// kube-apiserver: renamed with the time, at most max_backups kept.
#include "apiserver/internal/rotating_file.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "clock/simulated_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace draplane::apiserver::internal {
namespace {

namespace fs = std::filesystem;

class RotatingFileTest : public ::testing::Test {
 protected:
  RotatingFileTest() {
    std::string tmpl = ::testing::TempDir() + "/rotating_file_test.XXXXXX";
    EXPECT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  ~RotatingFileTest() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::set<std::string> Files() const {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) {
      names.insert(e.path().filename().string());
    }
    return names;
  }
  std::string Read(const std::string& name) const {
    std::ifstream in(dir_ + "/" + name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  std::string dir_;
  SimulatedClock clock_{absl::FromUnixMillis(1767225600123)};  // 2026-01-01
};

TEST_F(RotatingFileTest, BackupNamesAreLumberjacks) {
  const absl::Time t = absl::FromUnixMillis(1767225600123);
  EXPECT_EQ(BackupName("/var/log/audit.log", t),
            "/var/log/audit-2026-01-01T00-00-00.123.log");
  EXPECT_EQ(BackupName("/var/log/audit", t),
            "/var/log/audit-2026-01-01T00-00-00.123");
  EXPECT_EQ(BackupName("a.b.json", t), "a.b-2026-01-01T00-00-00.123.json");
}

TEST_F(RotatingFileTest, RotatesBeforeAWriteThatWouldNotFitAndKeepsMaxBackups) {
  RotatingFile file({dir_ + "/audit.log", 10, 2, &clock_});
  ASSERT_TRUE(file.Write("aaaa\n").ok());  // 5 bytes
  ASSERT_TRUE(file.Write("bbbb\n").ok());  // 10: still fits
  EXPECT_EQ(Files(), std::set<std::string>{"audit.log"});
  EXPECT_EQ(Read("audit.log"), "aaaa\nbbbb\n");
  // The file is never larger than max: "cccc\n" starts a new one.
  ASSERT_TRUE(file.Write("cccc\n").ok());
  EXPECT_EQ(Files(), (std::set<std::string>{
                         "audit.log", "audit-2026-01-01T00-00-00.123.log"}));
  EXPECT_EQ(Read("audit-2026-01-01T00-00-00.123.log"), "aaaa\nbbbb\n");
  EXPECT_EQ(Read("audit.log"), "cccc\n");
  for (const char* line : {"dddddddd\n", "eeeeeeee\n", "ffffffff\n"}) {
    clock_.Advance(absl::Seconds(1));
    ASSERT_TRUE(file.Write(line).ok());
  }
  // Four rotations in all; the two newest backups are kept.
  EXPECT_EQ(Files(), (std::set<std::string>{
                         "audit.log", "audit-2026-01-01T00-00-02.123.log",
                         "audit-2026-01-01T00-00-03.123.log"}));
  EXPECT_EQ(Read("audit-2026-01-01T00-00-02.123.log"), "dddddddd\n");
  EXPECT_EQ(Read("audit-2026-01-01T00-00-03.123.log"), "eeeeeeee\n");
  EXPECT_EQ(Read("audit.log"), "ffffffff\n");
}

TEST_F(RotatingFileTest, ZeroMaxBackupsKeepsEveryBackupAndLeavesOthersAlone) {
  {
    std::ofstream other(dir_ + "/audit-notatime.log");
    other << "x";
  }
  RotatingFile file({dir_ + "/audit.log", 4, 0, &clock_});
  for (int i = 0; i < 4; ++i) {
    clock_.Advance(absl::Milliseconds(1));
    ASSERT_TRUE(file.Write("abc\n").ok());
  }
  EXPECT_EQ(Files(),
            (std::set<std::string>{"audit-notatime.log", "audit.log",
                                   "audit-2026-01-01T00-00-00.125.log",
                                   "audit-2026-01-01T00-00-00.126.log",
                                   "audit-2026-01-01T00-00-00.127.log"}));
}

TEST_F(RotatingFileTest, AppendsToAnExistingFileWhenTheWriteFits) {
  {
    std::ofstream old(dir_ + "/audit.log");
    old << "old\n";
  }
  RotatingFile file({dir_ + "/audit.log", 100, 1, &clock_});
  ASSERT_TRUE(file.Write("new\n").ok());
  EXPECT_EQ(Read("audit.log"), "old\nnew\n");
  RotatingFile full({dir_ + "/audit.log", 10, 1, &clock_});
  ASSERT_TRUE(full.Write("more\n").ok());  // 8 + 5 > 10: rotated first
  EXPECT_EQ(Read("audit.log"), "more\n");
  EXPECT_EQ(Read("audit-2026-01-01T00-00-00.123.log"), "old\nnew\n");
}

TEST_F(RotatingFileTest, NewFilesAreOwnerOnlyAndRefuseOversizedWrites) {
  RotatingFile file({dir_ + "/sub/audit.log", 8, 0, &clock_});
  ASSERT_TRUE(file.Write("1234\n").ok());
  struct stat st {};
  ASSERT_EQ(::stat((dir_ + "/sub/audit.log").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  absl::Status big = file.Write("123456789\n");
  EXPECT_EQ(big.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(big.message(), "write length 10 exceeds maximum file size 8");
  EXPECT_EQ(Read("sub/audit.log"), "1234\n");
}

TEST_F(RotatingFileTest, AnIoFailureIsAStatusAndTheNextWriteTriesAgain) {
  // A regular file where the directory should be.
  { std::ofstream blocker(dir_ + "/blocked"); }
  RotatingFile file({dir_ + "/blocked/audit.log", 0, 0, &clock_});
  absl::Status s = file.Write("x\n");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
  fs::remove(dir_ + "/blocked");
  EXPECT_TRUE(file.Write("y\n").ok());
  EXPECT_EQ(Read("blocked/audit.log"), "y\n");
}

}  // namespace
}  // namespace draplane::apiserver::internal
