#include "controllers/device_inventory.h"

#include "api/object_codec.h"
#include "gtest/gtest.h"

namespace draplane::controllers {
namespace {

using api::Json;
using ObjectPtr = std::shared_ptr<const api::Object>;

ObjectPtr Decode(Json json, const std::string& uid) {
  json["metadata"]["uid"] = uid;
  json["metadata"]["resourceVersion"] = "1";
  absl::StatusOr<api::DecodeResult> r = api::DecodeObject(json);
  EXPECT_TRUE(r.ok()) << r.status();
  return std::make_shared<const api::Object>(std::move(r->object));
}

Json Gpu(const std::string& name, const std::string& product) {
  return {{"name", name},
          {"attributes", {{"productName", {{"string", product}}}}}};
}

ObjectPtr Slice(const std::string& name, const std::string& driver,
                const std::string& pool, int generation, int count,
                Json devices, Json shared_counters = nullptr) {
  Json spec = {{"driver", driver},
               {"nodeName", pool},
               {"pool",
                {{"name", pool},
                 {"generation", generation},
                 {"resourceSliceCount", count}}},
               {"devices", devices}};
  if (!shared_counters.is_null()) spec["sharedCounters"] = shared_counters;
  return Decode({{"apiVersion", "resource.k8s.io/v1"},
                 {"kind", "ResourceSlice"},
                 {"metadata", {{"name", name}}},
                 {"spec", spec}},
                "slice-" + name);
}

ObjectPtr Class(const std::string& name, const std::string& selector) {
  Json spec = Json::object();
  if (!selector.empty()) {
    spec["selectors"] = Json::array({{{"cel", {{"expression", selector}}}}});
  }
  return Decode({{"apiVersion", "resource.k8s.io/v1"},
                 {"kind", "DeviceClass"},
                 {"metadata", {{"name", name}}},
                 {"spec", spec}},
                "class-" + name);
}

ObjectPtr AllocatedClaim(const std::string& name, const std::string& driver,
                         const std::string& pool, const std::string& device,
                         bool admin_access = false) {
  Json result = {
      {"request", "r"}, {"driver", driver}, {"pool", pool}, {"device", device}};
  if (admin_access) result["adminAccess"] = true;
  return Decode(
      {{"apiVersion", "resource.k8s.io/v1"},
       {"kind", "ResourceClaim"},
       {"metadata", {{"name", name}, {"namespace", "default"}}},
       {"spec",
        {{"devices",
          {{"requests",
            Json::array({{{"name", "r"},
                          {"exactly", {{"deviceClassName", "gpu"}}}}})}}}}},
       {"status",
        {{"allocation", {{"devices", {{"results", Json::array({result})}}}}}}}},
      "claim-" + name);
}

TEST(DeviceInventoryTest, CountsWhatEachClassSelectsAndWhatIsInUse) {
  std::vector<ObjectPtr> slices = {
      Slice("a", "gpu.nvidia.com", "node-a", 1, 1,
            Json::array({Gpu("gpu-0", "A100"), Gpu("gpu-1", "A100"),
                         Gpu("gpu-2", "A100"), Gpu("gpu-3", "A100")})),
      Slice("b", "gpu.nvidia.com", "node-b", 1, 1,
            Json::array({Gpu("gpu-0", "H100"), Gpu("gpu-1", "H100")})),
      // An older generation of node-b's pool: not counted.
      Slice("b-old", "gpu.nvidia.com", "node-b", 0, 1,
            Json::array({Gpu("gpu-9", "H100")})),
      // An incomplete pool (one of two slices): not counted.
      Slice("c", "gpu.nvidia.com", "node-c", 1, 2,
            Json::array({Gpu("gpu-0", "A100")})),
      Slice("n", "nic.example.com", "node-a", 1, 1,
            Json::array({{{"name", "nic-0"}}})),
  };
  std::vector<ObjectPtr> classes = {
      Class("a100",
            "device.attributes['gpu.nvidia.com'].productName == 'A100'"),
      Class("nvidia", "device.driver == 'gpu.nvidia.com'"),
      Class("b200",
            "device.attributes['gpu.nvidia.com'].productName == 'B200'"),
      // Selects everything, even devices without the attribute? No: the
      // missing key is an evaluation error, which selects nothing there.
      Class("h100-or-error",
            "device.attributes['gpu.nvidia.com'].productName == 'H100'"),
      Class("everything", ""),
  };
  std::vector<ObjectPtr> claims = {
      AllocatedClaim("c1", "gpu.nvidia.com", "node-a", "gpu-0"),
      AllocatedClaim("c2", "gpu.nvidia.com", "node-b", "gpu-1"),
      // adminAccess does not take the device.
      AllocatedClaim("c3", "gpu.nvidia.com", "node-a", "gpu-3", true),
  };
  DeviceInventory inventory;
  for (int round = 0; round < 2; ++round) {  // the second from the caches
    Inventory inv = inventory.Compute(slices, classes, claims);
    EXPECT_EQ(inv.published_devices, 7);
    auto counts = [&](const std::string& c, const std::string& d) {
      auto it = inv.by_class.find({c, d});
      return it == inv.by_class.end()
                 ? std::tuple<int64_t, int64_t, int64_t>{-1, -1, -1}
                 : std::tuple<int64_t, int64_t, int64_t>{it->second.devices,
                                                         it->second.allocated,
                                                         it->second.available};
    };
    using T = std::tuple<int64_t, int64_t, int64_t>;
    EXPECT_EQ(counts("a100", "gpu.nvidia.com"), (T{4, 1, 3}));
    EXPECT_EQ(counts("nvidia", "gpu.nvidia.com"), (T{6, 2, 4}));
    EXPECT_EQ(counts("h100-or-error", "gpu.nvidia.com"), (T{2, 1, 1}));
    EXPECT_EQ(counts("everything", "gpu.nvidia.com"), (T{6, 2, 4}));
    EXPECT_EQ(counts("everything", "nic.example.com"), (T{1, 0, 1}));
    EXPECT_EQ(inv.by_class.count({"b200", "gpu.nvidia.com"}), 0u);
    EXPECT_EQ(inv.selected.at("b200"), 0);
    EXPECT_EQ(inv.selected.at("h100-or-error"), 2);
    EXPECT_EQ(inv.selected.at("everything"), 7);
    EXPECT_TRUE(inv.class_errors.empty());
  }
}

TEST(DeviceInventoryTest, SharedCountersMakePartitionsUnavailable) {
  // One GPU as partitionable devices: the whole GPU takes all of its
  // memory counter, each half takes half.
  auto consumes = [](const std::string& amount) {
    return Json::array({{{"counterSet", "gpu-0-counters"},
                         {"counters", {{"memory", {{"value", amount}}}}}}});
  };
  Json devices = Json::array();
  devices.push_back(Gpu("gpu-0", "A100"));
  devices.back()["consumesCounters"] = consumes("80Gi");
  for (const char* half : {"gpu-0-mig-0", "gpu-0-mig-1"}) {
    devices.push_back(Gpu(half, "A100"));
    devices.back()["consumesCounters"] = consumes("40Gi");
  }
  Json counters =
      Json::array({{{"name", "gpu-0-counters"},
                    {"counters", {{"memory", {{"value", "80Gi"}}}}}}});
  std::vector<ObjectPtr> slices = {
      Slice("a", "gpu.nvidia.com", "node-a", 1, 1, devices, counters)};
  std::vector<ObjectPtr> classes = {Class("any", "")};
  DeviceInventory inventory;
  Inventory idle = inventory.Compute(slices, classes, {});
  EXPECT_EQ((idle.by_class[{"any", "gpu.nvidia.com"}].available), 3);
  // One half in use: the other half is still available, the whole GPU not.
  Inventory half = inventory.Compute(
      slices, classes,
      {AllocatedClaim("m", "gpu.nvidia.com", "node-a", "gpu-0-mig-0")});
  ClassDriverCounts c = half.by_class[{"any", "gpu.nvidia.com"}];
  EXPECT_EQ(c.devices, 3);
  EXPECT_EQ(c.allocated, 1);
  EXPECT_EQ(c.available, 1);
}

TEST(DeviceInventoryTest, ASelectorThatDoesNotCompileIsReported) {
  std::vector<ObjectPtr> slices = {Slice("a", "gpu.nvidia.com", "node-a", 1, 1,
                                         Json::array({Gpu("g", "A100")}))};
  DeviceInventory inventory;
  Inventory inv = inventory.Compute(
      slices, {Class("broken", "device.nosuchfield == 1")}, {});
  ASSERT_EQ(inv.class_errors.count("broken"), 1u);
  EXPECT_NE(inv.class_errors.at("broken").find("compilation failed"),
            std::string::npos)
      << inv.class_errors.at("broken");
  EXPECT_EQ(inv.selected.at("broken"), 0);
}

}  // namespace
}  // namespace draplane::controllers
