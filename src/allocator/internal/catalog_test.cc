// The catalog's derived per-device data: global indices, DeviceIds that
// point into the slices, the node index and cached selector results.
#include "allocator/internal/catalog.h"

#include "api/object_codec.h"
#include "gtest/gtest.h"

namespace draplane::allocator::internal {
namespace {

using api::Json;

std::shared_ptr<const api::ResourceSlice> Slice(const std::string& name,
                                                const std::string& node,
                                                const Json& devices) {
  Json spec = {
      {"driver", "dra.example.com"},
      {"pool",
       {{"name", node.empty() ? "shared" : node}, {"resourceSliceCount", 1}}},
      {"devices", devices}};
  if (node.empty()) {
    spec["allNodes"] = true;
  } else {
    spec["nodeName"] = node;
  }
  Json json = {{"apiVersion", "resource.k8s.io/v1"},
               {"kind", "ResourceSlice"},
               {"metadata", {{"name", name}}},
               {"spec", spec}};
  absl::StatusOr<api::DecodeResult> decoded = api::DecodeObject(json);
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  return std::make_shared<const api::ResourceSlice>(
      std::get<api::ResourceSlice>(decoded->object.value));
}

Json Gpu(const std::string& name, int index, const std::string& version) {
  return {{"name", name},
          {"attributes",
           {{"index", {{"int", index}}},
            {"driverVersion", {{"version", version}}}}}};
}

Catalog MakeCatalog() {
  return Catalog(
      {Slice("b", "node-b", Json::array({Gpu("gpu-0", 0, "1.0.0")})),
       Slice("shared", "", Json::array({Gpu("any-0", 7, "1.0.0")})),
       Slice("a1", "node-a",
             Json::array({Gpu("gpu-0", 0, "1.0.0"), Gpu("gpu-1", 1, "2.0.0")})),
       Slice("a2", "node-a", Json::array({Gpu("gpu-2", 2, "not-semver")}))},
      {}, cel::DeviceFeatures{});
}

TEST(CatalogTest, NumbersDevicesSliceBySliceAndDerivesTheirIds) {
  Catalog catalog = MakeCatalog();
  ASSERT_EQ(catalog.num_devices(), 5u);
  EXPECT_EQ(catalog.slice(2).first_device, 2u);
  EXPECT_EQ(catalog.slice(3).first_device, 4u);
  EXPECT_EQ(&catalog.device(3), &catalog.slice(2).slice.spec.devices[1]);
  EXPECT_EQ(catalog.device_id(3).ToString(), "dra.example.com/node-a/gpu-1");
  EXPECT_EQ(catalog.device_id(1).ToString(), "dra.example.com/shared/any-0");
  // The view refers to the slice's own strings.
  EXPECT_EQ(catalog.device_id(4).device.data(),
            catalog.slice(3).slice.spec.devices[0].name.data());
}

TEST(CatalogTest, SlicesForNodeListsTheNodesSlicesThenNodeLessOnes) {
  Catalog catalog = MakeCatalog();
  EXPECT_EQ(catalog.SlicesForNode("node-a"), (std::vector<uint32_t>{2, 3, 1}));
  EXPECT_EQ(catalog.SlicesForNode("node-b"), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(catalog.SlicesForNode("node-c"), (std::vector<uint32_t>{1}));
}

// Results do not depend on the order devices and selectors are evaluated
// in (the catalog keeps only the last converted device), and a device whose
// conversion fails reports the conversion error for every selector.
TEST(CatalogTest, EvaluatesSelectorsInAnyOrder) {
  Catalog catalog = MakeCatalog();
  const int odd =
      catalog.SelectorId("device.attributes['dra.example.com'].index % 2 == 1");
  const int driver = catalog.SelectorId("device.driver == 'dra.example.com'");
  EXPECT_EQ(catalog.SelectorId("device.driver == 'dra.example.com'"), driver);
  ASSERT_EQ(catalog.CompileError(odd), nullptr);
  const std::vector<std::pair<int, uint32_t>> order = {
      {odd, 3},    {driver, 3}, {odd, 0},    {driver, 1}, {odd, 1},
      {driver, 0}, {odd, 4},    {driver, 4}, {odd, 2},    {driver, 2}};
  std::map<std::pair<int, uint32_t>, int> results;
  auto result = [&](int selector, uint32_t device) {
    return results[std::make_pair(selector, device)];
  };
  for (const auto& [selector, device] : order) {
    const std::string* error = nullptr;
    results[std::make_pair(selector, device)] =
        catalog.Evaluate(selector, device, &error);
    if (device == 4) {
      ASSERT_NE(error, nullptr);
      EXPECT_NE(error->find("attribute driverVersion: parse semantic version"),
                std::string::npos)
          << *error;
    }
  }
  EXPECT_EQ(result(odd, 0), 0);
  EXPECT_EQ(result(odd, 1), 1);
  EXPECT_EQ(result(odd, 2), 0);
  EXPECT_EQ(result(odd, 3), 1);
  EXPECT_EQ(result(odd, 4), -1);
  for (uint32_t d = 0; d < 4; ++d) EXPECT_EQ(result(driver, d), 1) << d;
  EXPECT_EQ(result(driver, 4), -1);
  // Cached: the same answers again, without error text for successes.
  const std::string* error = nullptr;
  EXPECT_EQ(catalog.Evaluate(odd, 3, &error), 1);
  EXPECT_EQ(error, nullptr);
  EXPECT_EQ(catalog.Evaluate(driver, 4, &error), -1);
  ASSERT_NE(error, nullptr);
}

}  // namespace
}  // namespace draplane::allocator::internal
