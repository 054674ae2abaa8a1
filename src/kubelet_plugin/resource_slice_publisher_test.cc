#include "kubelet_plugin/resource_slice_publisher.h"

#include "api/object.h"
#include "common/str_cat.h"
#include "gtest/gtest.h"
#include "testing/in_process_cluster.h"

namespace draplane::kubelet_plugin {
namespace {

api::ResourceSliceSpec Slice(std::vector<std::string> devices) {
  api::ResourceSliceSpec spec;
  for (const std::string& name : devices) {
    api::Device d;
    d.name = name;
    spec.devices.push_back(d);
  }
  return spec;
}

std::vector<api::ResourceSlice> Published(client::Client& c) {
  auto list = c.List(*api::FindKind("resource.k8s.io", "ResourceSlice"), "");
  std::vector<api::ResourceSlice> out;
  for (const api::Object& o : list->items) {
    out.push_back(std::get<api::ResourceSlice>(o.value));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.metadata.name < b.metadata.name;
  });
  return out;
}

TEST(ResourceSlicePublisherTest, PublishesPoolsAsUpstream) {
  auto cluster = *testing::InProcessCluster::Start();
  cluster->MustCreate(api::Json::parse(
      R"({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node1"}})"));
  ResourceSlicePublisher publisher(&cluster->client(), "gpu.nvidia.com",
                                   "node1");
  auto gen = publisher.Publish({Slice({"gpu-0"}), Slice({"gpu-1"})});
  ASSERT_TRUE(gen.ok()) << gen.status();
  EXPECT_EQ(*gen, 1);
  auto slices = Published(cluster->client());
  ASSERT_EQ(slices.size(), 2u);
  EXPECT_EQ(slices[0].metadata.name.rfind("00000-gpu.nvidia.com-node1-", 0),
            0u);
  EXPECT_EQ(slices[1].metadata.name.rfind("00001-gpu.nvidia.com-node1-", 0),
            0u);
  EXPECT_EQ(slices[0].spec.devices[0].name, "gpu-0");
  EXPECT_EQ(slices[1].spec.pool.name, "node1");
  EXPECT_EQ(slices[1].spec.pool.resource_slice_count, 2);
  EXPECT_EQ(*slices[1].spec.node_name, "node1");
  ASSERT_EQ(slices[0].metadata.owner_references.size(), 1u);
  EXPECT_EQ(slices[0].metadata.owner_references[0].kind, "Node");

  // The same again writes nothing.
  const int writes = publisher.writes();
  EXPECT_EQ(*publisher.Publish({Slice({"gpu-0"}), Slice({"gpu-1"})}), 1);
  EXPECT_EQ(publisher.writes(), writes);

  // A change bumps the generation of every slice; a smaller pool deletes
  // the slices left over.
  EXPECT_EQ(*publisher.Publish({Slice({"gpu-0", "gpu-1"})}), 2);
  slices = Published(cluster->client());
  ASSERT_EQ(slices.size(), 1u);
  EXPECT_EQ(slices[0].spec.pool.generation, 2);
  EXPECT_EQ(slices[0].spec.pool.resource_slice_count, 1);
  EXPECT_EQ(slices[0].spec.devices.size(), 2u);

  // A restarted plugin (new publisher) finds and keeps what is there.
  ResourceSlicePublisher restarted(&cluster->client(), "gpu.nvidia.com",
                                   "node1");
  EXPECT_EQ(*restarted.Publish({Slice({"gpu-0", "gpu-1"})}), 2);
  EXPECT_EQ(restarted.writes(), 0);

  // Other drivers' and nodes' slices are not touched.
  ResourceSlicePublisher other(&cluster->client(), "example.com", "node1");
  ASSERT_TRUE(other.Publish({Slice({"dev-0"})}).ok());
  ASSERT_TRUE(publisher.DeleteAll().ok());
  slices = Published(cluster->client());
  ASSERT_EQ(slices.size(), 1u);
  EXPECT_EQ(slices[0].spec.driver, "example.com");
}

TEST(ResourceSlicePublisherTest, ValidationErrorsComeBack) {
  auto cluster = *testing::InProcessCluster::Start();
  ResourceSlicePublisher publisher(&cluster->client(), "gpu.nvidia.com", "n");
  auto gen = publisher.Publish({Slice({"Not_A_DNS_Label"})});
  ASSERT_FALSE(gen.ok());
  EXPECT_NE(gen.status().message().find("spec.devices[0].name"),
            std::string::npos)
      << gen.status();
}

}  // namespace
}  // namespace draplane::kubelet_plugin
