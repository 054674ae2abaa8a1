// The plugin's liveness service as the kubelet's gRPC probe sees it.
#include "kubelet_plugin/plugin_health_server.h"

#include <cstdlib>
#include <filesystem>

#include "gtest/gtest.h"
#include "kubelet_plugin/plugin_server.h"
#include "testing/in_process_cluster.h"

namespace draplane::kubelet_plugin {
namespace {

class NothingDriver : public DraDriver {
 public:
  PrepareResult PrepareResourceClaim(const api::ResourceClaim&) override {
    return {};
  }
  absl::Status UnprepareResourceClaim(const ClaimRef&) override {
    return absl::OkStatus();
  }
};

TEST(PluginHealthServerTest, ServingWhileThePluginAnswersOnBothSockets) {
  char tmpl[] = "/tmp/dpkh-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  auto cluster = *testing::InProcessCluster::Start();
  auto api = cluster->NewClient();
  NothingDriver driver;
  PluginServerOptions options;
  options.driver_name = "gpu.nvidia.com";
  options.plugin_data_dir = dir + "/plugins/gpu.nvidia.com";
  options.registrar_dir = dir + "/plugins_registry";
  auto plugin = PluginServer::Start(options, api.get(), &driver);
  ASSERT_TRUE(plugin.ok()) << plugin.status();
  auto health = PluginHealthServer::Start("127.0.0.1", 0,
                                          (*plugin)->registration_socket(),
                                          (*plugin)->dra_socket());
  ASSERT_TRUE(health.ok()) << health.status();
  const std::string target = "127.0.0.1:" + std::to_string((*health)->port());
  for (const char* service : {"", "liveness"}) {
    auto status = ProbeGrpcHealth(target, service);
    ASSERT_TRUE(status.ok()) << status.status();
    EXPECT_EQ(*status, "SERVING") << service;
  }
  auto unknown = ProbeGrpcHealth(target, "readiness");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(unknown.status().message(), "unknown service");
  // The plugin stops answering: the probe fails and the kubelet restarts
  // the Pod.
  (*plugin)->Stop();
  auto stopped = ProbeGrpcHealth(target, "liveness");
  ASSERT_TRUE(stopped.ok()) << stopped.status();
  EXPECT_EQ(*stopped, "NOT_SERVING");
  EXPECT_FALSE(PluginHealthServer::Start("127.0.0.1", 70000, "", "").ok());
  health->reset();
  plugin->reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace draplane::kubelet_plugin
