// Private files and folders get their final modes at creation, whatever
// the umask.
#include "common/private_files.h"

#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "gtest/gtest.h"

namespace draplane {
namespace {

namespace fs = std::filesystem;

mode_t ModeOf(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
  return st.st_mode & 07777;
}

class PrivateFilesTest : public ::testing::Test {
 protected:
  PrivateFilesTest()
      : dir_(fs::path(::testing::TempDir()) /
             ("private-files-" +
              std::to_string(
                  ::testing::UnitTest::GetInstance()->random_seed()))),
        old_umask_(::umask(0)) {
    fs::remove_all(dir_);
  }
  ~PrivateFilesTest() override {
    ::umask(old_umask_);
    fs::remove_all(dir_);
  }
  const fs::path dir_;
  const mode_t old_umask_;
};

TEST_F(PrivateFilesTest, FoldersAre0700) {
  ASSERT_TRUE(CreatePrivateDirectories(dir_ / "a" / "b").ok());
  EXPECT_EQ(ModeOf(dir_), 0700u);
  EXPECT_EQ(ModeOf(dir_ / "a"), 0700u);
  EXPECT_EQ(ModeOf(dir_ / "a" / "b"), 0700u);
  // An existing folder keeps its mode.
  fs::permissions(dir_ / "a", fs::perms::owner_all | fs::perms::group_read |
                                  fs::perms::group_exec);
  ASSERT_TRUE(CreatePrivateDirectories(dir_ / "a").ok());
  EXPECT_EQ(ModeOf(dir_ / "a"), 0750u);
  ASSERT_TRUE(WritePrivateFile(dir_ / "f", "x").ok());
  EXPECT_FALSE(CreatePrivateDirectories(dir_ / "f").ok()) << "a file";
}

TEST_F(PrivateFilesTest, FilesAre0600AndReplacedWhole) {
  ASSERT_TRUE(CreatePrivateDirectories(dir_).ok());
  ASSERT_TRUE(WritePrivateFile(dir_ / "key", "first").ok());
  EXPECT_EQ(ModeOf(dir_ / "key"), 0600u);
  ASSERT_TRUE(WritePrivateFile(dir_ / "key", "second").ok());
  EXPECT_EQ(*ReadPrivateFile(dir_ / "key"), "second");
  EXPECT_FALSE(fs::exists(dir_ / "key.tmp"));
  ASSERT_TRUE(TouchPrivateFile(dir_ / "db").ok());
  EXPECT_EQ(ModeOf(dir_ / "db"), 0600u);
  EXPECT_TRUE(absl::IsNotFound(ReadPrivateFile(dir_ / "none").status()));
  EXPECT_FALSE(WritePrivateFile(dir_ / "no" / "such" / "dir", "x").ok());
}

}  // namespace
}  // namespace draplane
