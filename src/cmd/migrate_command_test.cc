// `draplane migrate` as a command: exit statuses, refusals, --keep-going,
// --output-dir, --class-map parsing. The conversion itself is tested in
// src/migrate.
#include <filesystem>

#include "cmd/command_test_util.h"
#include "gtest/gtest.h"

namespace draplane::cmd {
namespace {

using testing_util::RunDraplane;
using testing_util::WriteTemp;
namespace fs = std::filesystem;

constexpr char kGpuPod[] =
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n"
    "  containers:\n  - name: c\n    resources:\n      limits:\n"
    "        nvidia.com/gpu: 1\n";
constexpr char kHalfGpuPod[] =
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: half\nspec:\n"
    "  containers:\n  - name: c\n    resources:\n      limits:\n"
    "        nvidia.com/gpu: 0.5\n";

TEST(MigrateCommandTest, ConvertsToStandardOutput) {
  auto r = RunDraplane({"migrate", "-f", WriteTemp("one.yaml", kGpuPod)});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("name: nvidia-gpu-1"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("migrated 1 workload(s), added 1 "
                       "ResourceClaimTemplate(s)"),
            std::string::npos)
      << r.err;
}

TEST(MigrateCommandTest, RefusalsWriteNothingUnlessKeepGoing) {
  fs::path dir = fs::temp_directory_path() / "draplane_migrate_cmd";
  fs::remove_all(dir);
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "a.yaml") << kGpuPod;
  std::ofstream(dir / "sub" / "b.yaml") << kHalfGpuPod;
  auto r = RunDraplane({"migrate", "-R", "-f", dir.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("b.yaml:1: Pod half: spec.containers[0].resources."
                       "limits[nvidia.com/gpu]: Invalid value: \"0.5\""),
            std::string::npos)
      << r.err;

  // --keep-going with --output-dir: each file under the same relative path,
  // the refused one unchanged.
  fs::path out = dir.string() + "-out";
  fs::remove_all(out);
  auto k = RunDraplane({"migrate", "-R", "-f", dir.string(), "--keep-going",
                        "--output-dir", out.string(), "-q"});
  EXPECT_EQ(k.code, 1);
  EXPECT_EQ(k.out, "");
  ASSERT_TRUE(fs::exists(out / "a.yaml"));
  ASSERT_TRUE(fs::exists(out / "sub" / "b.yaml"));
  std::ifstream b(out / "sub" / "b.yaml");
  std::string text((std::istreambuf_iterator<char>(b)), {});
  EXPECT_EQ(text, kHalfGpuPod);
}

TEST(MigrateCommandTest, UsageErrors) {
  auto bad_map = RunDraplane({"migrate", "-f", WriteTemp("one.yaml", kGpuPod),
                              "--class-map", "amd.com/gpu"});
  EXPECT_EQ(bad_map.code, 2);
  EXPECT_NE(bad_map.err.find("RESOURCE=DEVICECLASS"), std::string::npos);
  auto bad_output = RunDraplane(
      {"migrate", "-f", WriteTemp("one.yaml", kGpuPod), "-o", "json"});
  EXPECT_EQ(bad_output.code, 2);
  auto missing = RunDraplane({"migrate", "-f", "/nonexistent/x.yaml"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("does not exist"), std::string::npos);
}

TEST(ClusterReportCommandsTest, UnreachableClusterIsExitOne) {
  fs::path kubeconfig = WriteTemp(
      "kubeconfig",
      "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n"
      "    server: http://127.0.0.1:1\ncontexts:\n- name: c\n  context:\n"
      "    cluster: c\n    user: u\ncurrent-context: c\nusers:\n- name: u\n"
      "  user: {}\n");
  for (std::vector<std::string> args : {std::vector<std::string>{"inventory"},
                                        {"explain", "pod", "p"},
                                        {"doctor"}}) {
    args.push_back("--kubeconfig");
    args.push_back(kubeconfig.string());
    auto r = RunDraplane(args);
    EXPECT_EQ(r.code, 1) << args[0] << ": " << r.err;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  }
  auto usage = RunDraplane(
      {"explain", "node", "n", "--kubeconfig", kubeconfig.string()});
  EXPECT_EQ(usage.code, 2);
  auto bad_duration = RunDraplane({"doctor", "--pending-threshold", "soon",
                                   "--kubeconfig", kubeconfig.string()});
  EXPECT_EQ(bad_duration.code, 2);
}

}  // namespace
}  // namespace draplane::cmd
