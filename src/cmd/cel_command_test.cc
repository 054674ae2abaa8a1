#include <filesystem>

#include "api/meta_types.h"
#include "cmd/command_test_util.h"
#include "gtest/gtest.h"
#include "testing/shared_test_data.h"

namespace draplane::cmd {
namespace {

namespace fs = std::filesystem;
using testing_util::RunDraplane;
using testing_util::SharedDir;
using testing_util::SourceDir;
using testing_util::WriteTemp;

std::string Slices() {
  return (SourceDir() / "examples" / "cel-match" / "guide-cluster-slices.yaml")
      .string();
}

TEST(CelEvalCommandTest, PrintsValueAndType) {
  auto r = RunDraplane(
      {"cel", "eval", "quantity('80Gi').compareTo(quantity('40Gi'))"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "1 (int)\n");
}

TEST(CelEvalCommandTest, JsonOutputAndExitCodes) {
  auto r = RunDraplane({"cel", "eval", "-o", "json", "semver('1.2.3')"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "{\"value\":\"1.2.3\",\"type\":\"kubernetes.Semver\"}\n");
  r = RunDraplane({"cel", "eval", "-o", "json", "1 / 0"});
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.out, "{\"error\":\"division by zero\"}\n");
  r = RunDraplane({"cel", "eval", "-o", "json", "1 +"});
  EXPECT_EQ(r.code, 1);
  auto j = api::Json::parse(r.out);
  EXPECT_NE(j["error"].get<std::string>().find(
                "ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>'"),
            std::string::npos)
      << r.out;
}

TEST(CelEvalCommandTest, VariablesFromJson) {
  auto r = RunDraplane({"cel", "eval", "--var", "n=41", "--var",
                        R"(m={"a":[1,2.5]})", "n + size(m.a)"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "43 (int)\n");
  r = RunDraplane({"cel", "eval", "--var", "n", "n"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("want name=JSON"), std::string::npos);
}

TEST(CelEvalCommandTest, EvaluatesAgainstADeviceOfASlice) {
  auto r = RunDraplane({"cel", "eval", "--device-file", Slices(), "--device",
                        "node1/gpu-3-mig-3g40gb-9-0",
                        "device.attributes['gpu.nvidia.com'].profile"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "\"3g.40gb\" (string)\n");
  // gpu-0 exists on both nodes.
  r = RunDraplane(
      {"cel", "eval", "--device-file", Slices(), "--device", "gpu-0", "true"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is ambiguous"), std::string::npos) << r.err;
  r = RunDraplane({"cel", "eval", "--device-file", Slices(), "--device",
                   "node2/gpu-0", "-o", "json",
                   "device.attributes['gpu.nvidia.com'].migProfile"});
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.out, "{\"error\":\"no such key: migProfile\"}\n");
}

TEST(CelMatchCommandTest, ExplainsTheSeedMistakes) {
  fs::path seed = SharedDir() / "seed" / "manifests";
  DRAPLANE_REQUIRE_SHARED_DATA(seed);
  auto r = RunDraplane(
      {"cel", "match", "-f", (seed / "02-deviceclasses.yaml").string(), "-f",
       (seed / "03-resourceclaim-and-pod.yaml").string(), "-f", Slices()});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.out.find("deviceclass/gpu.nvidia.com-a100 selector #0: "
                       "matches 6 of 14 devices"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("deviceclass/gpu.nvidia.com-h100 selector #0: "
                       "matches 8 of 14 devices"),
            std::string::npos);
  EXPECT_NE(r.out.find("deviceclass/gpu.nvidia.com-a100-mig-3g20gb selector "
                       "#0: matches 0 of 14 devices"),
            std::string::npos);
  EXPECT_NE(r.out.find("hint: attribute 'gpu.nvidia.com/migProfile' is not "
                       "published by any device; closest published names: "
                       "profile\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("hint: with profile instead: profile '3g.20gb' is not "
                       "published by any 'NVIDIA A100 80GB PCIe' device; "
                       "published values: 1g.10gb, 2g.20gb, 3g.40gb\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("hint: constraint matchAttribute "
                       "'gpu.nvidia.com/nvlinkInterconnect' is not published "
                       "by any device"),
            std::string::npos);
}

TEST(CelMatchCommandTest, SuggestsPublishedValues) {
  fs::path cls = WriteTemp("mig-class.yaml", R"(apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: a100-3g20gb
spec:
  selectors:
  - cel:
      expression: >-
        device.driver == 'gpu.nvidia.com' &&
        device.attributes['gpu.nvidia.com'].productName == 'NVIDIA A100 80GB PCIe' &&
        device.attributes['gpu.nvidia.com'].?profile.orValue('') == '3g.20gb'
)");
  auto r = RunDraplane({"cel", "match", "-f", cls.string(), "-f", Slices(),
                        "--class", "a100-3g20gb", "-o", "json"});
  EXPECT_EQ(r.code, 1) << r.err;
  auto j = api::Json::parse(r.out);
  ASSERT_EQ(j["selectors"].size(), 1u);
  const api::Json& s = j["selectors"][0];
  EXPECT_EQ(s["matched"], 0);
  EXPECT_EQ(s["devices"].size(), 14u);
  EXPECT_EQ(s["devices"][0]["result"], "no match");
  ASSERT_EQ(s["hints"].size(), 1u) << s.dump();
  EXPECT_EQ(s["hints"][0],
            "profile '3g.20gb' is not published by any 'NVIDIA A100 80GB "
            "PCIe' device; published values: 1g.10gb, 2g.20gb, 3g.40gb");
}

TEST(CelMatchCommandTest, UnknownClassIsAnError) {
  auto r = RunDraplane({"cel", "match", "-f", Slices(), "--class", "nope"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "error: deviceclass.resource.k8s.io \"nope\" not found\n");
}

}  // namespace
}  // namespace draplane::cmd
