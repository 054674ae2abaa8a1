#include "controllers/dra_monitor.h"

#include <map>

#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "api/object_codec.h"
#include "gtest/gtest.h"
#include "testing/eventually.h"
#include "testing/in_process_cluster.h"

namespace draplane::controllers {
namespace {

using api::Json;
using draplane::testing::Consistently;
using draplane::testing::Eventually;

Json Slice(const std::string& node, const std::string& product, int count) {
  Json devices = Json::array();
  for (int i = 0; i < count; ++i) {
    devices.push_back(
        {{"name", "gpu-" + std::to_string(i)},
         {"attributes", {{"productName", {{"string", product}}}}}});
  }
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceSlice"},
          {"metadata", {{"name", node + "-gpu.nvidia.com"}}},
          {"spec",
           {{"driver", "gpu.nvidia.com"},
            {"nodeName", node},
            {"pool",
             {{"name", node}, {"generation", 1}, {"resourceSliceCount", 1}}},
            {"devices", devices}}}};
}

Json Class(const std::string& name, const std::string& product) {
  return {
      {"apiVersion", "resource.k8s.io/v1"},
      {"kind", "DeviceClass"},
      {"metadata", {{"name", name}}},
      {"spec",
       {{"selectors", Json::array({{{"cel",
                                     {{"expression",
                                       "device.attributes['gpu.nvidia.com']."
                                       "productName == '" +
                                           product + "'"}}}}})}}}};
}

Json Claim(const std::string& ns, const std::string& name) {
  return {
      {"apiVersion", "resource.k8s.io/v1"},
      {"kind", "ResourceClaim"},
      {"metadata", {{"name", name}, {"namespace", ns}}},
      {"spec",
       {{"devices",
         {{"requests",
           Json::array({{{"name", "gpu"},
                         {"exactly", {{"deviceClassName", "a100"}}}}})}}}}}};
}

void Allocate(client::Client& c, const std::string& ns, const std::string& name,
              const std::string& node, const std::string& device) {
  Json status = {{"status",
                  {{"allocation",
                    {{"devices",
                      {{"results", Json::array({{{"request", "gpu"},
                                                 {"driver", "gpu.nvidia.com"},
                                                 {"pool", node},
                                                 {"device", device}}})}}}}}}}};
  client::PatchOptions o;
  o.subresource = "status";
  auto patched = c.Patch(client::Kind("ResourceClaim"), ns, name,
                         client::PatchType::kMerge, api::DumpJson(status), o);
  ASSERT_TRUE(patched.ok()) << patched.status();
}

// The samples of a text exposition: "name{labels}" -> value.
std::map<std::string, double> Samples(const std::string& text) {
  std::map<std::string, double> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string line = text.substr(pos, end - pos);
    pos = end == std::string::npos ? text.size() : end + 1;
    if (line.empty() || line[0] == '#') continue;
    size_t space = line.rfind(' ');
    double v = 0;
    EXPECT_TRUE(absl::SimpleAtod(line.substr(space + 1), &v)) << line;
    out[line.substr(0, space)] = v;
  }
  return out;
}

TEST(DraMonitorTest, ServesTheSeedsClaimAndDeviceMetrics) {
  auto cluster = *testing::InProcessCluster::Start();
  client::Client& c = cluster->client();
  cluster->MustCreate(Class("a100", "A100 80GB"));
  cluster->MustCreate(Class("h100", "H100"));
  cluster->MustCreate(Slice("node1", "A100 80GB", 4));
  cluster->MustCreate(Slice("node2", "H100", 8));
  cluster->MustCreate({{"apiVersion", "v1"},
                       {"kind", "Namespace"},
                       {"metadata", {{"name", "ml"}}}});
  for (const char* n : {"a", "b", "c"}) cluster->MustCreate(Claim("ml", n));
  cluster->MustCreate(Claim("default", "d"));
  Allocate(c, "ml", "a", "node1", "gpu-0");
  Allocate(c, "ml", "b", "node1", "gpu-1");

  metrics::Registry registry;
  DraMonitorOptions options;
  options.metrics = &registry;
  options.warn_classes = false;
  DraMonitor monitor(&c, options);
  ASSERT_TRUE(monitor.Start().ok());
  std::map<std::string, double> want = {
      {R"(dra_resource_claims_total{namespace="ml"})", 3},
      {R"(dra_resource_claims_total{namespace="default"})", 1},
      {R"(dra_resource_claims_pending{namespace="ml"})", 1},
      {R"(dra_resource_claims_pending{namespace="default"})", 1},
      {R"(dra_resource_claims_allocated{namespace="ml"})", 2},
      {R"(dra_resource_claims_allocated{namespace="default"})", 0},
      {R"(dra_devices_available{deviceclass="a100",driver="gpu.nvidia.com"})",
       2},
      {R"(dra_devices_allocated{deviceclass="a100",driver="gpu.nvidia.com"})",
       2},
      {R"(dra_devices_available{deviceclass="h100",driver="gpu.nvidia.com"})",
       8},
      {R"(dra_devices_allocated{deviceclass="h100",driver="gpu.nvidia.com"})",
       0},
  };
  std::map<std::string, double> got;
  ASSERT_TRUE(Eventually([&] {
    got = Samples(registry.Text());
    for (const auto& [k, v] : want) {
      if (got.count(k) == 0 || got[k] != v) return false;
    }
    return true;
  })) << registry.Text();
  // Pending claims were created just now.
  double oldest =
      got[R"(dra_resource_claims_oldest_pending_seconds{namespace="ml"})"];
  EXPECT_GE(oldest, 0);
  EXPECT_LT(oldest, 60);

  // Deallocating gives the device back; deleting a claim drops it.
  Json clear = {{"status", {{"allocation", nullptr}}}};
  client::PatchOptions o;
  o.subresource = "status";
  ASSERT_TRUE(c.Patch(client::Kind("ResourceClaim"), "ml", "b",
                      client::PatchType::kMerge, api::DumpJson(clear), o)
                  .ok());
  ASSERT_TRUE(c.Delete(client::Kind("ResourceClaim"), "ml", "c").ok());
  ASSERT_TRUE(Eventually([&] {
    got = Samples(registry.Text());
    return got[R"(dra_devices_available{deviceclass="a100",driver="gpu.nvidia.com"})"] ==
               3 &&
           got[R"(dra_resource_claims_total{namespace="ml"})"] == 2 &&
           got[R"(dra_resource_claims_pending{namespace="ml"})"] == 1;
  })) << registry.Text();
  monitor.Stop();
  EXPECT_EQ(registry.Text(), "") << "a stopped monitor is not scraped";
}

std::vector<api::Event> ClassWarnings(client::Client& c,
                                      const std::string& name) {
  std::vector<api::Event> out;
  auto list = c.List(client::Kind("Event"), "default");
  if (!list.ok()) return out;
  for (auto& o : list->items) {
    auto& e = std::get<api::Event>(o.value);
    if (e.reason == "NoMatchingDevices" && e.involved_object.name == name) {
      out.push_back(std::move(e));
    }
  }
  return out;
}

TEST(DraMonitorTest, WarnsOnceAboutAClassThatSelectsNothing) {
  auto cluster = *testing::InProcessCluster::Start();
  client::Client& c = cluster->client();
  // No device published yet: nothing to say.
  cluster->MustCreate(Class("b200", "B200"));
  DraMonitorOptions options;
  options.settle = absl::Milliseconds(20);
  DraMonitor monitor(&c, options);
  ASSERT_TRUE(monitor.Start().ok());
  ASSERT_TRUE(Eventually([&] { return monitor.ClassOutcome("b200") == "ok"; }));
  EXPECT_TRUE(ClassWarnings(c, "b200").empty());

  cluster->MustCreate(Slice("node1", "A100 80GB", 4));
  ASSERT_TRUE(Eventually([&] { return ClassWarnings(c, "b200").size() == 1; }));
  api::Event e = ClassWarnings(c, "b200")[0];
  EXPECT_EQ(e.type, "Warning");
  EXPECT_EQ(e.involved_object.kind, "DeviceClass");
  EXPECT_EQ(e.involved_object.api_version, "resource.k8s.io/v1");
  EXPECT_EQ(e.message,
            "the selectors of DeviceClass b200 select none of the 4 published "
            "devices (drivers: gpu.nvidia.com); claims using it stay pending. "
            "See which selector excludes them with: draplane cel match "
            "--class b200 -f <the class and the slices as YAML>");
  // More devices that do not match either: no second warning.
  cluster->MustCreate(Slice("node2", "H100", 8));
  EXPECT_TRUE(
      Consistently([&] { return ClassWarnings(c, "b200").size() == 1; }));
  // A matching device arrives, then goes: a new warning.
  cluster->MustCreate(Slice("node3", "B200", 1));
  ASSERT_TRUE(Eventually([&] { return monitor.ClassOutcome("b200") == "ok"; }));
  ASSERT_TRUE(
      c.Delete(client::Kind("ResourceSlice"), "", "node3-gpu.nvidia.com").ok());
  ASSERT_TRUE(Eventually([&] { return ClassWarnings(c, "b200").size() == 2; }));
  EXPECT_EQ(monitor.CurrentInventory().selected.at("b200"), 0);
}

}  // namespace
}  // namespace draplane::controllers
