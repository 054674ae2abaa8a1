#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/meta_types.h"
#include "cmd/command_test_util.h"
#include "gtest/gtest.h"
#include "testing/shared_test_data.h"

namespace draplane::cmd {
namespace {

using testing_util::Result;
using testing_util::RunDraplane;
using testing_util::SharedDir;
using testing_util::WriteTemp;
namespace fs = std::filesystem;

TEST(ValidateCommandTest, ReportsTheSeedManifestsTruthfully) {
  fs::path seed = SharedDir() / "seed" / "manifests";
  DRAPLANE_REQUIRE_SHARED_DATA(seed);
  Result r = RunDraplane({"validate", "-f", seed.string()});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  // Valid as printed.
  EXPECT_NE(r.out.find("OK      Pod/default/gpu-training-legacy"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("OK      DeviceClass/gpu.nvidia.com-a100 "),
            std::string::npos);
  EXPECT_NE(r.out.find("OK      DeviceClass/gpu.nvidia.com-h100 "),
            std::string::npos);
  EXPECT_NE(r.out.find("OK      DeviceClass/gpu.nvidia.com-a100-mig-3g20gb "),
            std::string::npos);
  EXPECT_NE(r.out.find("OK      ResourceClaim/ml-workloads/training-gpu-claim"),
            std::string::npos);
  EXPECT_NE(r.out.find("OK      Deployment/ml-workloads/llm-inference-service"),
            std::string::npos);
  EXPECT_NE(
      r.out.find(
          "OK      ResourceClaimTemplate/ml-workloads/mig-inference-template"),
      std::string::npos);
  // The inline `source:` claim of the guide is not upstream API.
  EXPECT_NE(r.out.find("INVALID Pod/ml-workloads/quick-gpu-job"),
            std::string::npos);
  EXPECT_NE(r.out.find("strict decoding error: unknown field "
                       "\"spec.resourceClaims[0].source\""),
            std::string::npos);
  EXPECT_NE(r.out.find("spec.resourceClaims[0].resourceClaimTemplateName: "
                       "Invalid value: \"\""),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("9 objects: 8 valid, 1 invalid"), std::string::npos)
      << r.out;
}

TEST(ValidateCommandTest, ExitCodes) {
  fs::path good =
      WriteTemp("good.yaml",
                "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
                "metadata: {name: gpu}\n");
  Result r = RunDraplane({"validate", "-f", good.string()});
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("OK      DeviceClass/gpu"), std::string::npos);

  fs::path bad = WriteTemp(
      "bad.yaml",
      "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
      "metadata: {name: c, namespace: ns}\nspec:\n  devices:\n    requests:\n"
      "    - name: gpu\n      exactly: {deviceClassName: gpu, count: -2}\n");
  r = RunDraplane({"validate", "-f", bad.string()});
  EXPECT_EQ(r.code, 1) << r.out;
  // (count: 0 would be defaulted to 1, as upstream defaults it.)
  EXPECT_NE(r.out.find("spec.devices.requests[0].exactly.count: Invalid value: "
                       "-2: must be greater than zero"),
            std::string::npos)
      << r.out;

  fs::path broken = WriteTemp("broken.yaml", "a: [1, 2\n");
  r = RunDraplane({"validate", "-f", broken.string()});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("broken.yaml:"), std::string::npos) << r.out;

  r = RunDraplane({"validate", "-f", "/nonexistent/file.yaml"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
}

TEST(ValidateCommandTest, ReportsV1beta1ErrorsInV1beta1Paths) {
  fs::path bad = WriteTemp(
      "beta.yaml",
      "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\n"
      "metadata: {name: c, namespace: ns}\nspec:\n  devices:\n    requests:\n"
      "    - name: gpu\n      deviceClassName: gpu\n      count: -1\n");
  Result r = RunDraplane({"validate", "-f", bad.string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("spec.devices.requests[0].count: Invalid value: -1: "
                       "must be greater than zero"),
            std::string::npos)
      << r.out;
}

TEST(ConvertCommandTest, ConvertsSeedClassesToV1) {
  fs::path in = WriteTemp(
      "claim.yaml",
      "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\n"
      "metadata: {name: c, namespace: ns}\nspec:\n  devices:\n    requests:\n"
      "    - name: gpu\n      deviceClassName: gpu\n      count: 4\n");
  Result r = RunDraplane({"convert", "--to", "v1", "-f", in.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("apiVersion: resource.k8s.io/v1\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("exactly:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("count: 4"), std::string::npos) << r.out;
}

TEST(MainTest, HelpAndVersion) {
  Result r = RunDraplane({"version"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("draplane "), std::string::npos);
  EXPECT_NE(r.out.find("Kubernetes v1.37.2+draplane."), std::string::npos)
      << r.out;
  r = RunDraplane({"version", "-o", "json"});
  EXPECT_EQ(r.code, 0);
  const api::Json v = api::Json::parse(r.out);
  EXPECT_EQ(v["kubernetesVersion"], "v1.37.2");
  EXPECT_EQ(v["gitVersion"].get<std::string>(),
            "v1.37.2+draplane." + v["version"].get<std::string>());
  EXPECT_EQ(RunDraplane({"version", "-o", "yaml"}).code, 2);
  r = RunDraplane({"validate", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("Example:"), std::string::npos);
  r = RunDraplane({"convert", "--help"});
  EXPECT_NE(r.out.find("Example:"), std::string::npos);
  r = RunDraplane({"no-such-command"});
  EXPECT_EQ(r.code, 2);
}

}  // namespace
}  // namespace draplane::cmd
