#include "devices/nvml/gpu_facts_json.h"

#include <string>

#include "devices/gpu_models.h"
#include "gtest/gtest.h"

namespace draplane::devices {
namespace {

using nlohmann::json;

NodeGpuFacts SampleFacts() {
  NodeGpuFacts facts;
  facts.driver_version = "580.95.05";
  facts.cuda_driver_version = 13000;
  GpuFacts a100 = MakeGpuFacts(*FindGpuModel("A100"), 0,
                               "GPU-7277883e-ce1e-3b6e-6cc1-6d52e80cdb86",
                               "00000000:3B:00.0");
  a100.pcie_root = "pci0000:3a";
  a100.mig_enabled = true;
  a100.mig_devices = {{.uuid = "MIG-0b5a7d3e-5d5f-5b36-9cc5-2b0c4f3d1a01",
                       .gpu_instance_id = 1,
                       .compute_instance_id = 0,
                       .profile_id = 9,
                       .placement = {0, 4}}};
  a100.xids = {79, 48};
  GpuFacts l4 = MakeGpuFacts(*FindGpuModel("L4"), 1,
                             "GPU-0c1b2a39-1111-2222-3333-444455556666",
                             "00000000:86:00.0");
  l4.memory_bytes.reset();
  l4.addressing_mode = "HMM";
  l4.vgpu_guest = true;
  l4.lost = true;
  facts.gpus = {a100, l4};
  return facts;
}

TEST(GpuFactsJsonTest, RoundTrips) {
  const NodeGpuFacts facts = SampleFacts();
  absl::StatusOr<NodeGpuFacts> back = GpuFactsFromJson(GpuFactsToJson(facts));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, facts);
  // Through text too, as the files are stored.
  back = GpuFactsFromJson(json::parse(GpuFactsToJson(facts).dump(2)));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, facts);
}

TEST(GpuFactsJsonTest, UsesCamelCaseAndOmitsUnsetOptionals) {
  const json j = GpuFactsToJson(SampleFacts());
  EXPECT_EQ(j["driverVersion"], "580.95.05");
  EXPECT_EQ(j["cudaDriverVersion"], 13000);
  const json& a100 = j["gpus"][0];
  EXPECT_EQ(a100["pciBusID"], "00000000:3B:00.0");
  EXPECT_EQ(a100["pciDeviceID"], 0x20B010DE);
  EXPECT_EQ(a100["memoryBytes"], uint64_t{40960} << 20);
  EXPECT_FALSE(a100.contains("addressingMode"));
  EXPECT_EQ(a100["migProfiles"][0]["memorySizeMiB"], 4864);
  EXPECT_EQ(a100["migProfiles"][0]["placements"][6],
            json({{"start", 6}, {"size", 1}}));
  EXPECT_EQ(a100["migDevices"][0]["gpuInstanceID"], 1);
  EXPECT_EQ(a100["migDevices"][0]["placement"],
            json({{"start", 0}, {"size", 4}}));
  const json& l4 = j["gpus"][1];
  EXPECT_FALSE(l4.contains("memoryBytes"));
  EXPECT_EQ(l4["addressingMode"], "HMM");
  EXPECT_EQ(l4["migProfiles"], json::array());
}

TEST(GpuFactsJsonTest, AbsentMembersKeepDefaults) {
  absl::StatusOr<NodeGpuFacts> facts =
      GpuFactsFromJson(json::parse(R"({"gpus": [{"uuid": "GPU-1"}]})"));
  ASSERT_TRUE(facts.ok()) << facts.status();
  ASSERT_EQ(facts->gpus.size(), 1u);
  EXPECT_EQ(facts->gpus[0].uuid, "GPU-1");
  EXPECT_EQ(facts->gpus[0].brand, kBrandNvidia);
  EXPECT_FALSE(facts->gpus[0].memory_bytes.has_value());
}

void ExpectError(const std::string& text, const std::string& message) {
  SCOPED_TRACE(text);
  absl::StatusOr<NodeGpuFacts> facts = GpuFactsFromJson(json::parse(text));
  ASSERT_FALSE(facts.ok());
  EXPECT_EQ(facts.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(facts.status().message(), message);
}

TEST(GpuFactsJsonTest, ErrorsNameTheJsonPath) {
  ExpectError("[]", "<root>: must be an object");
  ExpectError(R"({"driverVersion": 580})", "driverVersion: must be a string");
  ExpectError(R"({"gpus": {}})", "gpus: must be an array");
  ExpectError(R"({"gpus": [{"index": -1}]})",
              "gpus[0].index: must be an unsigned 32-bit integer");
  ExpectError(R"({"gpus": [{}, {"minor": 4294967296}]})",
              "gpus[1].minor: must be an unsigned 32-bit integer");
  ExpectError(R"({"gpus": [{"memoryBytes": 1.5}]})",
              "gpus[0].memoryBytes: must be an unsigned 64-bit integer");
  ExpectError(R"({"gpus": [{"migEnabled": 1}]})",
              "gpus[0].migEnabled: must be a boolean");
  ExpectError(
      R"({"gpus": [{"migProfiles": [{"placements": [{"start": "0"}]}]}]})",
      "gpus[0].migProfiles[0].placements[0].start: must be an unsigned "
      "32-bit integer");
  ExpectError(R"({"gpus": [{"migDevices": [{"placement": {"begin": 0}}]}]})",
              "gpus[0].migDevices[0].placement.begin: unknown field");
  ExpectError(R"({"gpus": [{"xids": [79, "48"]}]})",
              "gpus[0].xids[1]: must be an unsigned 32-bit integer");
  ExpectError(R"({"cudaDriverVersion": 3000000000})",
              "cudaDriverVersion: must be a 32-bit integer");
  ExpectError(R"({"gpu": []})", "gpu: unknown field");
}

}  // namespace
}  // namespace draplane::devices
