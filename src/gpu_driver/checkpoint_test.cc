#include "gpu_driver/checkpoint.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"

namespace draplane::gpu_driver {
namespace {

std::string TempDir() {
  char tmpl[] = "/tmp/dpcp-XXXXXX";
  return mkdtemp(tmpl);
}

Checkpoint Sample() {
  Checkpoint cp;
  cp.boot_id = "boot-1";
  ClaimRecord r;
  r.namespace_ = "ml";
  r.name = "train";
  r.state = ClaimState::kPrepareCompleted;
  r.allocated_devices = {"gpu-0-mig-3g40gb-9-4"};
  r.cdi_spec_file = "k8s.gpu.nvidia.com-claim_uid-1.json";
  PreparedDeviceRecord d;
  d.request = "gpu";
  d.pool = "node1";
  d.device = "gpu-0-mig-3g40gb-9-4";
  d.cdi_device_ids = {"k8s.gpu.nvidia.com/claim=uid-1-gpu-0-mig-3g40gb-9-4"};
  d.created_mig = CreatedMigDevice{"GPU-0", 2, 0, "MIG-1", 9, 4};
  r.prepared = {d};
  cp.claims["uid-1"] = r;
  ClaimRecord started;
  started.namespace_ = "ml";
  started.name = "infer";
  started.allocated_devices = {"gpu-1"};
  cp.claims["uid-2"] = started;
  ClaimRecord unpreparing = r;
  unpreparing.name = "done";
  unpreparing.state = ClaimState::kUnprepareStarted;
  cp.claims["uid-3"] = unpreparing;
  return cp;
}

TEST(CheckpointTest, RoundTripsAndMissingFileIsEmpty) {
  const std::string dir = TempDir();
  CheckpointFile file(dir + "/sub/checkpoint.json");
  auto empty = file.Read();
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->claims.empty());
  ASSERT_TRUE(file.Write(Sample()).ok());
  auto read = file.Read();
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, Sample());
  EXPECT_FALSE(std::filesystem::exists(file.path() + ".tmp"));
  std::filesystem::remove_all(dir);
}

TEST(CheckpointTest, TornOrEditedFilesAreDataLoss) {
  const std::string dir = TempDir();
  CheckpointFile file(dir + "/checkpoint.json");
  ASSERT_TRUE(file.Write(Sample()).ok());
  std::string text;
  {
    std::ifstream in(file.path());
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  // An edited value breaks the checksum.
  std::string edited = text;
  edited.replace(edited.find("train"), 5, "trainX");
  std::ofstream(file.path(), std::ios::trunc) << edited;
  EXPECT_EQ(file.Read().status().code(), absl::StatusCode::kDataLoss);
  // A torn write is not JSON.
  std::ofstream(file.path(), std::ios::trunc)
      << text.substr(0, text.size() / 2);
  auto torn = file.Read();
  EXPECT_EQ(torn.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(torn.status().message().find(file.path()), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(CheckpointTest, ANewerFormatIsRefusedAndLeftAlone) {
  const std::string dir = TempDir();
  CheckpointFile file(dir + "/checkpoint.json");
  ASSERT_TRUE(file.Write(Sample()).ok());
  std::string text;
  {
    std::ifstream in(file.path());
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string current = "\"version\": 2";
  ASSERT_NE(text.rfind(current), std::string::npos) << text;
  text.replace(text.rfind(current), current.size(), "\"version\": 3");
  std::ofstream(file.path(), std::ios::trunc) << text;
  auto newer = file.Read();
  EXPECT_EQ(newer.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(newer.status().message().find(
                "checkpoint format 3 is newer than this driver reads "
                "(format 2)"),
            std::string::npos)
      << newer.status();
  std::ifstream in(file.path());
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), text);
  std::filesystem::remove_all(dir);
}

// A checkpoint written by the previous release (the data-directory fixture's
// node1, with the guide's four-GPU training claim prepared) reads back
// whole: a driver upgrade keeps what was prepared.
TEST(CheckpointTest, ThePreviousReleasesCheckpointReads) {
  CheckpointFile file(
      std::string(DRAPLANE_SOURCE_DIR) +
      "/tests/fixtures/data-dir-format-0/nodes/node1/plugins/gpu.nvidia.com/"
      "checkpoint.json");
  auto read = file.Read();
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->boot_id, "23aa6c52802de11c");
  ASSERT_EQ(read->claims.size(), 1u);
  const ClaimRecord& claim = read->claims.begin()->second;
  EXPECT_EQ(read->claims.begin()->first,
            "a47b17d6-400a-4f26-bd67-3e35aa5201b3");
  EXPECT_EQ(claim.name, "training-gpu-claim-corrected");
  EXPECT_EQ(claim.state, ClaimState::kPrepareCompleted);
  ASSERT_EQ(claim.prepared.size(), 4u);
  EXPECT_EQ(claim.prepared[3].device, "gpu-3");
  EXPECT_EQ(claim.prepared[3].cdi_device_ids,
            std::vector<std::string>{"k8s.gpu.nvidia.com/claim=a47b17d6-400a-"
                                     "4f26-bd67-3e35aa5201b3-gpu-3"});
  EXPECT_EQ(claim.cdi_spec_file,
            "k8s.gpu.nvidia.com-claim_a47b17d6-400a-4f26-bd67-3e35aa5201b3."
            "json");
}

TEST(CheckpointTest, BootId) {
  const std::string dir = TempDir();
  std::ofstream(dir + "/boot_id") << "abc-123\n";
  EXPECT_EQ(ReadBootId(dir + "/boot_id"), "abc-123");
  EXPECT_EQ(ReadBootId(dir + "/missing"), "");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace draplane::gpu_driver
