#include "devices/fake_backend.h"

#include "gtest/gtest.h"

namespace draplane::devices {
namespace {

constexpr char kInventory[] = R"(
nodes:
- name: node1
  labels: {zone: a}
  gpus:
  - model: A100-80GB-PCIE
    count: 4
    migEnabled: true
    migDevices:
    - {profile: 3g.40gb, placement: 4}
- name: node2
  cpu: "128"
  gpus:
  - {model: H100, count: 8}
)";

TEST(InventoryTest, ParsesNodesAndGpus) {
  auto inv = ParseInventory(kInventory, "inv.yaml");
  ASSERT_TRUE(inv.ok()) << inv.status();
  ASSERT_EQ(inv->nodes.size(), 2u);
  const InventoryNode& n1 = inv->nodes[0];
  EXPECT_EQ(n1.labels.at("zone"), "a");
  ASSERT_EQ(n1.gpus.gpus.size(), 4u);
  EXPECT_EQ(n1.gpus.driver_version, "580.95.05");
  EXPECT_EQ(n1.gpus.gpus[2].index, 2u);
  EXPECT_EQ(n1.gpus.gpus[2].product_name, "NVIDIA A100 80GB PCIe");
  EXPECT_TRUE(n1.gpus.gpus[2].mig_enabled);
  ASSERT_EQ(n1.gpus.gpus[2].mig_devices.size(), 1u);
  EXPECT_EQ(n1.gpus.gpus[2].mig_devices[0].profile_id, 9u);
  EXPECT_EQ(n1.gpus.gpus[2].pci_bus_id, "00000000:3B:00.0");
  // Stable, distinct UUIDs.
  EXPECT_EQ(n1.gpus.gpus[0].uuid.rfind("GPU-", 0), 0u);
  EXPECT_NE(n1.gpus.gpus[0].uuid, n1.gpus.gpus[1].uuid);
  auto again = ParseInventory(kInventory, "inv.yaml");
  EXPECT_EQ(again->nodes[0].gpus, n1.gpus);
  EXPECT_NE(inv->nodes[1].gpus.gpus[0].uuid, n1.gpus.gpus[0].uuid);
  EXPECT_EQ(inv->nodes[1].cpu, "128");
}

TEST(InventoryTest, ErrorsNameTheField) {
  auto error = [](std::string_view text) {
    auto inv = ParseInventory(text, "inv.yaml");
    return inv.ok() ? std::string("ok") : std::string(inv.status().message());
  };
  EXPECT_EQ(error("nodes:\n- name: n\n  gpus:\n  - model: B9000\n"),
            "inv.yaml: nodes[0].gpus[0].model: Unsupported value: \"B9000\": "
            "supported values: \"A100-40GB\", \"A100-80GB-PCIE\", "
            "\"A100-80GB-SXM\", \"H100\", \"H200\", \"L4\"");
  EXPECT_EQ(error("nodes:\n- name: n\n  gpus:\n  - {model: H100, "
                  "migEnabled: true, migDevices: [{profile: 3g.20gb, "
                  "placement: 0}]}\n"),
            "inv.yaml: nodes[0].gpus[0].migDevices[0].profile: Unsupported "
            "value: \"3g.20gb\": supported values: \"1g.10gb\", \"2g.20gb\", "
            "\"3g.40gb\", \"4g.40gb\", \"7g.80gb\", \"1g.10gb+me\", "
            "\"1g.20gb\"");
  EXPECT_NE(error("nodes:\n- name: n\n  gpus:\n  - {model: H100, migEnabled: "
                  "true, migDevices: [{profile: 3g.40gb, placement: 0}, "
                  "{profile: 1g.10gb, placement: 2}]}\n")
                .find("migDevices[1].placement: Invalid value: 2: overlaps "
                      "another MIG device"),
            std::string::npos);
  EXPECT_NE(error("nodes:\n- name: n\n  gpu: []\n")
                .find("nodes[0].gpu: unknown field \"gpu\""),
            std::string::npos);
  EXPECT_NE(error("nodes:\n- name: n\n  gpus:\n  - {model: L4, migEnabled: "
                  "true}\n")
                .find("does not support MIG"),
            std::string::npos);
  EXPECT_NE(error("nodes: [").find("inv.yaml:1:"), std::string::npos);
  // Found by inventory_fuzzer's sibling: invalid UTF-8 is an error, not a
  // name, and yaml-cpp's endless-loop inputs end.
  EXPECT_NE(error("nodes:\n- name: n\xa6\n").find("invalid UTF-8"),
            std::string::npos);
  EXPECT_NE(error(",paiVersision: reso resou").find("inv.yaml:1:"),
            std::string::npos);
  EXPECT_NE(error("nodes:\n- name: a\n- name: a\n").find("Duplicate value"),
            std::string::npos);
  EXPECT_NE(error("nodes:\n- name: n\n  gpus:\n  - {model: H100, count: x}\n")
                .find("count: Invalid value"),
            std::string::npos);
}

NodeGpuFacts Facts(std::string_view model, bool mig_enabled = false) {
  auto inv = ParseInventory(
      std::string("nodes:\n- name: n\n  gpus:\n  - {model: ") +
          std::string(model) +
          ", count: 2, migEnabled: " + (mig_enabled ? "true" : "false") + "}\n",
      "t");
  return inv->nodes[0].gpus;
}

TEST(FakeDeviceBackendTest, CreatesMigDevicesWithNvmlRules) {
  FakeDeviceBackend backend(Facts("H100"));
  const std::string uuid = backend.Discover()->gpus[0].uuid;
  // Hopper: MIG mode goes on by itself.
  auto mig = backend.CreateMigDevice(uuid, 9, 4);
  ASSERT_TRUE(mig.ok()) << mig.status();
  EXPECT_EQ(mig->placement, (MigPlacement{4, 4}));
  EXPECT_EQ(mig->uuid.rfind("MIG-", 0), 0u);
  EXPECT_TRUE(backend.Discover()->gpus[0].mig_enabled);
  // Overlap, bad placement, instance limit, unknown GPU and profile.
  EXPECT_EQ(backend.CreateMigDevice(uuid, 19, 5).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(backend.CreateMigDevice(uuid, 9, 2).status().code(),
            absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(backend.CreateMigDevice(uuid, 20, 0).ok());
  EXPECT_EQ(backend.CreateMigDevice(uuid, 20, 1).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(backend.CreateMigDevice("GPU-x", 9, 0).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(backend.CreateMigDevice(uuid, 77, 0).status().code(),
            absl::StatusCode::kNotFound);
  // Destroy is idempotent; MIG mode goes off with the last device.
  auto facts = backend.Discover();
  ASSERT_EQ(facts->gpus[0].mig_devices.size(), 2u);
  for (const MigDeviceFacts& m : facts->gpus[0].mig_devices) {
    ASSERT_TRUE(
        backend.DestroyMigDevice(uuid, m.gpu_instance_id, m.compute_instance_id)
            .ok());
    ASSERT_TRUE(
        backend.DestroyMigDevice(uuid, m.gpu_instance_id, m.compute_instance_id)
            .ok());
  }
  EXPECT_FALSE(backend.Discover()->gpus[0].mig_enabled);
  EXPECT_EQ(backend.mig_creations(), 2);
  EXPECT_EQ(backend.mig_destructions(), 2);
}

// A backend started from facts that already hold created MIG devices (a
// simulated machine that outlived its driver) never hands out their UUIDs.
TEST(FakeDeviceBackendTest, CreatedUuidsAreUniqueAfterARestart) {
  FakeDeviceBackend first(Facts("H100"));
  const std::string uuid = first.Discover()->gpus[0].uuid;
  auto kept = first.CreateMigDevice(uuid, 9, 0);
  ASSERT_TRUE(kept.ok()) << kept.status();
  FakeDeviceBackend second(*first.Discover());
  auto created = second.CreateMigDevice(uuid, 9, 4);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_NE(created->uuid, kept->uuid);
  EXPECT_EQ(second.Discover()->gpus[0].mig_devices.size(), 2u);
}

TEST(FakeDeviceBackendTest, AmpereNeedsMigModeAlreadyOn) {
  FakeDeviceBackend off(Facts("A100-80GB-PCIE"));
  EXPECT_EQ(
      off.CreateMigDevice(off.Discover()->gpus[0].uuid, 9, 0).status().code(),
      absl::StatusCode::kFailedPrecondition);
  FakeDeviceBackend on(Facts("A100-80GB-PCIE", true));
  const std::string uuid = on.Discover()->gpus[0].uuid;
  auto mig = on.CreateMigDevice(uuid, 9, 0);
  ASSERT_TRUE(mig.ok());
  ASSERT_TRUE(on.DestroyMigDevice(uuid, mig->gpu_instance_id, 0).ok());
  EXPECT_TRUE(on.Discover()->gpus[0].mig_enabled);  // never turned off
}

TEST(FakeDeviceBackendTest, HealthHooks) {
  FakeDeviceBackend backend(Facts("H200"));
  backend.InjectXid(1, 79);
  backend.SetLost(0, true);
  auto facts = backend.Discover();
  EXPECT_EQ(facts->gpus[1].xids, std::vector<uint32_t>{79});
  EXPECT_TRUE(facts->gpus[0].lost);
  backend.SetDiscoverError(absl::UnavailableError("driver unloaded"));
  EXPECT_EQ(backend.Discover().status().code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace draplane::devices
