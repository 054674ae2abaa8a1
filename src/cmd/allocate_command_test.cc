#include "api/manifest.h"
#include "cmd/command_test_util.h"
#include "gtest/gtest.h"
#include "testing/shared_test_data.h"

namespace draplane::cmd {
namespace {

using testing_util::RunDraplane;
using testing_util::SharedDir;
using testing_util::SourceDir;
using testing_util::WriteTemp;

std::string Scenario(const char* name) {
  return (SourceDir() / "tests" / "scenarios" / name).string();
}

TEST(AllocateCommandTest, AllocatedPrintsTheResultDocument) {
  auto r = RunDraplane(
      {"allocate", "-f", Scenario("request-exact-count.yaml"), "-o", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
  auto doc = api::ParseJsonText(r.out);
  ASSERT_TRUE(doc.ok()) << r.out;
  EXPECT_EQ((*doc)["error"], nullptr);
  EXPECT_EQ((*doc)["claims"][0]["allocated"], true);
  EXPECT_FALSE((*doc)["claims"][0]["allocation"]["devices"]["results"].empty());
  // Member order of the result document (draref's).
  EXPECT_EQ(r.out.find("\"scenario\""), r.out.find('"'));
}

TEST(AllocateCommandTest, PendingClaimExitsThreeWithReasons) {
  auto json = RunDraplane(
      {"allocate", "-f", Scenario("limits-8-of-7-devices.yaml"), "-o", "json"});
  EXPECT_EQ(json.code, 3);
  auto doc = api::ParseJsonText(json.out);
  ASSERT_TRUE(doc.ok());
  const auto& reasons = (*doc)["claims"][0]["reasons"];
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_EQ(reasons[0]["needed"], 8);
  EXPECT_EQ(reasons[0]["available"], 7);

  auto table = RunDraplane(
      {"allocate", "-f", Scenario("limits-8-of-7-devices.yaml"), "--explain"});
  EXPECT_EQ(table.code, 3);
  EXPECT_NE(table.out.find("<not allocated>"), std::string::npos);
  EXPECT_NE(table.out.find("needs 8 devices"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("1 short"), std::string::npos);

  auto yaml = RunDraplane(
      {"allocate", "-f", Scenario("limits-8-of-7-devices.yaml"), "-o", "yaml"});
  EXPECT_EQ(yaml.code, 3);
  EXPECT_NE(yaml.out.find("reasons:"), std::string::npos);
}

TEST(AllocateCommandTest, AllocationErrorsAndBadInputExitOne) {
  auto fatal = RunDraplane(
      {"allocate", "-f", Scenario("request-unknown-class.yaml"), "-o", "json"});
  EXPECT_EQ(fatal.code, 1);
  EXPECT_NE(fatal.out.find("\"class\": \"fatal\""), std::string::npos);
  EXPECT_NE(fatal.out.find("not found"), std::string::npos);

  auto bad = RunDraplane(
      {"allocate", "-f",
       WriteTemp("no-header.yaml",
                 "apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\n")
           .string(),
       "-o", "json"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.out.find("invalid-scenario"), std::string::npos);
  EXPECT_NE(bad.out.find("no draplane.dev/v1alpha1 Scenario header"),
            std::string::npos);
}

TEST(AllocateCommandTest, ValidateReportsFieldErrors) {
  const auto path = WriteTemp("invalid-count.yaml", R"(
apiVersion: draplane.dev/v1alpha1
kind: Scenario
metadata: {name: invalid-count}
spec: {node: n1}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu, count: -2}
)");
  auto r = RunDraplane({"allocate", "-f", path.string(), "--validate"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("spec.devices.requests[0].exactly.count: Invalid value: "
                       "-2: must be greater than zero"),
            std::string::npos)
      << r.err;
}

TEST(AllocateCommandTest, FixFlagSwitchesAnUpstreamBugOff) {
  const std::string file = Scenario("admin-access-partition-counters.yaml");
  EXPECT_EQ(RunDraplane({"allocate", "-f", file}).code, 3);  // upstream
  EXPECT_EQ(
      RunDraplane({"allocate", "-f", file, "--fix", "admin-access-counters"})
          .code,
      0);
  EXPECT_EQ(RunDraplane({"allocate", "-f", file, "--fix", "nope"}).code, 2);
}

TEST(AllocateCommandTest, NodeFlagOverridesTheHeader) {
  // The rule scenario's devices are on node1; on node2 nothing fits.
  auto r = RunDraplane({"allocate", "-f", Scenario("request-exact-count.yaml"),
                        "--node", "node-elsewhere", "-o", "json"});
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.out.find("\"node\": \"node-elsewhere\""), std::string::npos);
}

TEST(AllocateCommandTest, SeedTrainingClaimIsExplained) {
  const auto classes =
      SharedDir() / "seed" / "manifests" / "02-deviceclasses.yaml";
  DRAPLANE_REQUIRE_SHARED_DATA(classes);
  auto r = RunDraplane(
      {"allocate", "-f",
       (SourceDir() / "examples/allocate/guide-training.yaml").string(), "-f",
       classes.string(), "-f",
       (SourceDir() / "examples/cel-match/guide-cluster-slices.yaml").string(),
       "--explain"});
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.out.find("gpu.nvidia.com/nvlinkInterconnect"), std::string::npos);
  EXPECT_NE(r.out.find("so no device can satisfy it"), std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace draplane::cmd
