// draplane sim fgd and draplane plan mig: exit statuses, output forms and
// errors, on small inputs (the full trace runs in scripts/check-sim).
#include "api/object.h"
#include "cmd/command_test_util.h"
#include "gtest/gtest.h"

namespace draplane::cmd {
namespace {

using testing_util::RunDraplane;
using testing_util::SourceDir;
using testing_util::WriteTemp;

TEST(SimCommandTest, RunsAndReportsOnASmallTrace) {
  auto nodes = WriteTemp("sim-nodes.csv",
                         "sn,cpu_milli,memory_mib,gpu,model\n"
                         "a,32000,65536,2,T4\nb,96000,262144,8,G2\n");
  auto pods = WriteTemp("sim-pods.csv",
                        "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
                        "p0,4000,4096,1,500\np1,8000,8192,1,1000\n"
                        "p2,2000,2048,0,0\np3,16000,16384,2,1000\n");
  auto r = RunDraplane({"sim", "fgd", "--nodes", nodes.string(), "--pods",
                        pods.string(), "--policy", "bestfit", "--seeds",
                        "1-3,7", "-o", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  api::Json j = api::Json::parse(r.out);
  EXPECT_EQ(j["policy"], "bestfit");
  EXPECT_EQ(j["seeds"], api::Json::parse("[1,2,3,7]"));
  EXPECT_EQ(j["gpus"], 10);
  const auto report =
      std::filesystem::temp_directory_path() / "draplane-sim-cmd";
  std::filesystem::remove_all(report);
  r = RunDraplane({"sim", "fgd", "--nodes", nodes.string(), "--pods",
                   pods.string(), "--seeds", "5", "--report", report.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("policy draplane"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(report / "index.html"));
  std::filesystem::remove_all(report);

  r = RunDraplane({"sim", "fgd", "--nodes", nodes.string(), "--pods",
                   pods.string(), "--policy", "nope"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown scheduling policy \"nope\""), std::string::npos)
      << r.err;
  r = RunDraplane({"sim", "fgd", "--nodes", nodes.string(), "--pods",
                   pods.string(), "--seeds", "9-3"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--seeds: \"9-3\""), std::string::npos) << r.err;
  r = RunDraplane(
      {"sim", "fgd", "--nodes", "/nonexistent.csv", "--pods", pods.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "error: /nonexistent.csv: cannot open\n");
}

TEST(PlanCommandTest, PlansTheExampleAndRefusesBadInput) {
  const auto dir = SourceDir() / "examples" / "mig-plan";
  auto r = RunDraplane({"plan", "mig", "--inventory",
                        (dir / "inventory.yaml").string(), "--demand",
                        (dir / "demand.yaml").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("instances satisfied    51/51"), std::string::npos)
      << r.out;
  r = RunDraplane({"plan", "mig", "--inventory",
                   (dir / "inventory.yaml").string(), "--demand",
                   (dir / "demand.yaml").string(), "-o", "yaml"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("kind: ResourceSlice"), std::string::npos);
  r = RunDraplane({"plan", "mig", "--inventory",
                   (dir / "inventory.yaml").string(), "--demand",
                   (dir / "demand.yaml").string(), "-o", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(api::Json::parse(r.out)["plan"]["instancesSatisfied"], 51);
  auto bad =
      WriteTemp("bad-demand.yaml", "demand:\n- profile: 9g.1tb\n  count: 1\n");
  r = RunDraplane({"plan", "mig", "--inventory",
                   (dir / "inventory.yaml").string(), "--demand",
                   bad.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("demand[0].profile: no GPU of the inventory offers"),
            std::string::npos)
      << r.err;
  r = RunDraplane({"plan", "mig", "--inventory",
                   (dir / "inventory.yaml").string(), "--demand",
                   (dir / "demand.yaml").string(), "-o", "xml"});
  EXPECT_EQ(r.code, 2);
}

}  // namespace
}  // namespace draplane::cmd
