// The protocol as a kubelet sees it: registration, service choice, prepare
// and unprepare through real gRPC over unix sockets, claims read from a
// real (in-process) API server.
#include "kubelet_plugin/plugin_server.h"

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "api/object.h"
#include "gtest/gtest.h"
#include "kubelet_plugin/plugin_client.h"
#include "proto/dra_health_v1alpha1.grpc.pb.h"
#include "testing/in_process_cluster.h"

namespace draplane::kubelet_plugin {
namespace {

// Records calls; prepares one device per allocation result.
class RecordingDriver : public DraDriver {
 public:
  PrepareResult PrepareResourceClaim(const api::ResourceClaim& claim) override {
    absl::MutexLock lock(&mu);
    prepared.push_back(claim.metadata.name);
    PrepareResult r;
    if (claim.metadata.name == "refused") {
      r.status = absl::FailedPreconditionError("device gpu-0 is busy");
      return r;
    }
    for (const auto& result : claim.status.allocation->devices.results) {
      r.devices.push_back({{result.request},
                           result.pool,
                           result.device,
                           {"k8s.gpu.nvidia.com/claim=" + claim.metadata.uid +
                            "-" + result.device},
                           std::nullopt});
    }
    return r;
  }
  absl::Status UnprepareResourceClaim(const ClaimRef& claim) override {
    absl::MutexLock lock(&mu);
    unprepared.push_back(claim.uid);
    return absl::OkStatus();
  }
  absl::Mutex mu;
  std::vector<std::string> prepared;
  std::vector<std::string> unprepared;
};

// A health report the test changes.
class FakeHealth : public DeviceHealthSource {
 public:
  std::vector<DeviceHealth> DeviceHealthReport() override {
    absl::MutexLock lock(&mu_);
    return report_;
  }
  void Set(std::vector<DeviceHealth> report) {
    absl::MutexLock lock(&mu_);
    report_ = std::move(report);
  }

 private:
  absl::Mutex mu_;
  std::vector<DeviceHealth> report_;
};

class PluginServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/dpks-XXXXXX";
    dir_ = mkdtemp(tmpl);
    cluster_ = *testing::InProcessCluster::Start();
    api_ = cluster_->NewClient();
    PluginServerOptions options;
    options.driver_name = "gpu.nvidia.com";
    options.plugin_data_dir = dir_ + "/plugins/gpu.nvidia.com";
    options.registrar_dir = dir_ + "/plugins_registry";
    auto server = PluginServer::Start(options, api_.get(), &driver_);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove_all(dir_);
  }

  // An allocated claim; returns its UID.
  std::string AllocatedClaim(const std::string& name, bool allocate = true) {
    api::Object o = cluster_->MustCreate(api::Json::parse(R"({
      "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
      "metadata": {"name": ")" + name + R"(", "namespace": "default"},
      "spec": {"devices": {"requests": [{"name": "gpu",
        "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}}})"));
    if (allocate) {
      auto& claim = std::get<api::ResourceClaim>(o.value);
      api::AllocationResult a;
      api::DeviceRequestAllocationResult r;
      r.request = "gpu";
      r.driver = "gpu.nvidia.com";
      r.pool = "node1";
      r.device = "gpu-" + std::to_string(next_device_++);
      a.devices.results.push_back(r);
      claim.status.allocation = a;
      auto updated = cluster_->client().UpdateStatus(o);
      EXPECT_TRUE(updated.ok()) << updated.status();
    }
    return o.metadata()->uid;
  }

  std::string dir_;
  std::unique_ptr<testing::InProcessCluster> cluster_;
  std::unique_ptr<client::Client> api_;
  RecordingDriver driver_;
  std::unique_ptr<PluginServer> server_;
  int next_device_ = 0;
};

TEST_F(PluginServerTest, RegistersAndPreparesOverV1) {
  ASSERT_EQ(server_->registration_socket(),
            dir_ + "/plugins_registry/gpu.nvidia.com-reg.sock");
  auto client = PluginClient::Register(server_->registration_socket());
  ASSERT_TRUE(client.ok()) << client.status();
  const PluginInfo& info = (*client)->info();
  EXPECT_EQ(info.type, "DRAPlugin");
  EXPECT_EQ(info.name, "gpu.nvidia.com");
  EXPECT_EQ(info.endpoint, dir_ + "/plugins/gpu.nvidia.com/dra.sock");
  EXPECT_EQ(info.supported_versions,
            (std::vector<std::string>{"v1.DRAPlugin", "v1beta1.DRAPlugin"}));
  EXPECT_EQ((*client)->service(), "v1.DRAPlugin");
  ASSERT_TRUE(server_->registration_status().has_value());
  EXPECT_TRUE(server_->registration_status()->registered);

  const std::string a = AllocatedClaim("a");
  const std::string b = AllocatedClaim("refused");
  auto results =
      (*client)->Prepare({{"default", "a", a}, {"default", "refused", b}});
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 2u);
  const PrepareResult& ra = results->at(a);
  ASSERT_TRUE(ra.status.ok());
  ASSERT_EQ(ra.devices.size(), 1u);
  EXPECT_EQ(ra.devices[0].device, "gpu-0");
  EXPECT_EQ(ra.devices[0].pool, "node1");
  EXPECT_EQ(ra.devices[0].requests, std::vector<std::string>{"gpu"});
  EXPECT_EQ(
      ra.devices[0].cdi_device_ids,
      std::vector<std::string>{"k8s.gpu.nvidia.com/claim=" + a + "-gpu-0"});
  EXPECT_EQ(results->at(b).status.message(), "device gpu-0 is busy");

  auto un = (*client)->Unprepare({{"default", "a", a}});
  ASSERT_TRUE(un.ok());
  EXPECT_TRUE(un->at(a).ok());
  EXPECT_EQ(driver_.unprepared, std::vector<std::string>{a});
}

TEST_F(PluginServerTest, V1beta1ServesTheSameCalls) {
  auto client =
      PluginClient::Connect(server_->dra_socket(), "v1beta1.DRAPlugin");
  ASSERT_TRUE(client.ok());
  const std::string a = AllocatedClaim("a");
  auto results = (*client)->Prepare({{"default", "a", a}});
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ(results->at(a).devices.at(0).device, "gpu-0");
  // NVIDIA's health probe: an empty request answers an empty map.
  auto empty = (*client)->Prepare({});
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST_F(PluginServerTest, MissingUnallocatedOrReplacedClaimsFailTheCall) {
  auto client = PluginClient::Connect(server_->dra_socket(), "v1.DRAPlugin");
  ASSERT_TRUE(client.ok());
  auto missing = (*client)->Prepare({{"default", "nope", "uid-1"}});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("retrieve claim default/nope"),
            std::string::npos)
      << missing.status();
  const std::string pending = AllocatedClaim("pending", /*allocate=*/false);
  auto unallocated = (*client)->Prepare({{"default", "pending", pending}});
  ASSERT_FALSE(unallocated.ok());
  EXPECT_NE(unallocated.status().message().find(
                "claim default/pending not allocated"),
            std::string::npos);
  AllocatedClaim("a");
  auto replaced = (*client)->Prepare({{"default", "a", "old-uid"}});
  ASSERT_FALSE(replaced.ok());
  EXPECT_NE(replaced.status().message().find("got replaced"),
            std::string::npos);
  EXPECT_TRUE(driver_.prepared.empty());  // nothing reached the driver
}

TEST_F(PluginServerTest, StopRemovesSocketsAndRestartReplacesStaleOnes) {
  const std::string dra = server_->dra_socket();
  const std::string reg = server_->registration_socket();
  EXPECT_TRUE(std::filesystem::exists(dra));
  server_->Stop();
  EXPECT_FALSE(std::filesystem::exists(dra));
  EXPECT_FALSE(std::filesystem::exists(reg));
  // A socket file left by a crashed plugin does not stop a new one.
  std::filesystem::create_directories(std::filesystem::path(dra).parent_path());
  { std::ofstream stale(dra); }
  PluginServerOptions options{"gpu.nvidia.com",
                              dir_ + "/plugins/gpu.nvidia.com",
                              dir_ + "/plugins_registry"};
  auto again = PluginServer::Start(options, api_.get(), &driver_);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(PluginClient::Register((*again)->registration_socket()).ok());
}

TEST_F(PluginServerTest, RefusesSocketPathsThatDoNotFit) {
  PluginServerOptions options{"gpu.nvidia.com",
                              dir_ + "/" + std::string(120, 'x'), ""};
  auto s = PluginServer::Start(options, api_.get(), &driver_);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("longer than"), std::string::npos);
}

}  // namespace
}  // namespace draplane::kubelet_plugin

namespace draplane::kubelet_plugin {
namespace {

TEST_F(PluginServerTest, StreamsDeviceHealthToTheKubelet) {
  // Without a health source nothing is advertised or served.
  {
    auto plain = PluginClient::Register(server_->registration_socket());
    ASSERT_TRUE(plain.ok()) << plain.status();
    EXPECT_EQ((*plain)->health_service(), "");
    EXPECT_EQ(
        (*plain)
            ->WatchHealth([](const auto&) { return false; }, absl::Seconds(5))
            .code(),
        absl::StatusCode::kFailedPrecondition);
  }
  server_->Stop();

  using S = DeviceHealthStatus;
  FakeHealth health;
  health.Set({{"node1", "gpu-0", S::kHealthy, ""},
              {"node1", "gpu-1", S::kHealthy, ""}});
  PluginServerOptions options;
  options.driver_name = "gpu.nvidia.com";
  options.plugin_data_dir = dir_ + "/plugins/gpu.nvidia.com";
  options.registrar_dir = dir_ + "/plugins_registry";
  options.health = &health;
  options.health_poll = absl::Milliseconds(20);
  options.health_refresh = absl::Hours(1);
  auto server = PluginServer::Start(options, api_.get(), &driver_);
  ASSERT_TRUE(server.ok()) << server.status();
  auto client = PluginClient::Register((*server)->registration_socket());
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ((*client)->info().supported_versions,
            (std::vector<std::string>{"v1.DRAPlugin", "v1beta1.DRAPlugin",
                                      "v1.DRAResourceHealth",
                                      "v1alpha1.DRAResourceHealth"}));
  EXPECT_EQ((*client)->health_service(), "v1.DRAResourceHealth");

  // The first report at once; a change is sent when it happens.
  std::vector<std::vector<DeviceHealth>> reports;
  absl::Status watched = (*client)->WatchHealth(
      [&](const std::vector<DeviceHealth>& report) {
        reports.push_back(report);
        if (reports.size() == 1) {
          health.Set({{"node1", "gpu-0", S::kHealthy, ""},
                      {"node1", "gpu-1", S::kUnhealthy,
                       "NVML reported XID 79 on the GPU"}});
        }
        return reports.size() < 2;
      },
      absl::Seconds(10));
  ASSERT_TRUE(watched.ok()) << watched;
  ASSERT_EQ(reports.size(), 2u);
  ASSERT_EQ(reports[0].size(), 2u);
  EXPECT_EQ(reports[0][1].health, S::kHealthy);
  EXPECT_EQ(reports[1][1].device, "gpu-1");
  EXPECT_EQ(reports[1][1].health, S::kUnhealthy);
  EXPECT_EQ(reports[1][1].message, "NVML reported XID 79 on the GPU");

  // A long message is cut as the kubelet cuts it, never inside a UTF-8
  // sequence (a proto3 string must stay valid UTF-8).
  {
    std::string long_message(1020, 'x');
    for (int i = 0; i < 10; ++i) long_message += "\xc3\xa9";  // é
    health.Set({{"node1", "gpu-0", S::kUnhealthy, long_message}});
    std::string got;
    ASSERT_TRUE((*client)
                    ->WatchHealth(
                        [&](const std::vector<DeviceHealth>& report) {
                          got = report[0].message;
                          return false;
                        },
                        absl::Seconds(10))
                    .ok());
    EXPECT_EQ(got, std::string(1020, 'x') + "...");
    health.Set(
        {{"node1", "gpu-0", S::kHealthy, ""},
         {"node1", "gpu-1", S::kUnhealthy, "NVML reported XID 79 on the GPU"}});
  }

  // v1alpha1 (kubelets 1.34 to 1.36) gets the same report.
  {
    auto channel = grpc::CreateChannel("unix:" + (*server)->dra_socket(),
                                       grpc::InsecureChannelCredentials());
    auto stub = ::v1alpha1::DRAResourceHealth::NewStub(channel);
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::seconds(10));
    auto reader =
        stub->NodeWatchResources(&ctx, ::v1alpha1::NodeWatchResourcesRequest());
    ::v1alpha1::NodeWatchResourcesResponse response;
    ASSERT_TRUE(reader->Read(&response));
    ASSERT_EQ(response.devices_size(), 2);
    EXPECT_EQ(response.devices(1).device().pool_name(), "node1");
    EXPECT_EQ(response.devices(1).health(), ::v1alpha1::UNHEALTHY);
    EXPECT_GT(response.devices(1).last_updated_time(), 0);
    ctx.TryCancel();
  }

  // At most four streams at once; stopping the server ends them. (The
  // streams cancelled above leave within a poll period: a watcher refused
  // meanwhile tries again.)
  std::atomic<int> started{0};
  std::vector<std::thread> watchers;
  watchers.reserve(4);
  std::vector<absl::Status> ends(4);
  for (int i = 0; i < 4; ++i) {
    watchers.emplace_back([&, i] {
      bool counted = false;
      for (int attempt = 0; attempt < 100; ++attempt) {
        ends[i] = (*client)->WatchHealth(
            [&](const auto&) {
              if (!counted) ++started;
              counted = true;
              return true;
            },
            absl::Seconds(30));
        if (!absl::IsResourceExhausted(ends[i])) return;
        absl::SleepFor(absl::Milliseconds(20));
      }
    });
  }
  for (int i = 0; i < 500 && started.load() < 4; ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  ASSERT_EQ(started.load(), 4);
  absl::Status fifth = (*client)->WatchHealth([](const auto&) { return false; },
                                              absl::Seconds(10));
  EXPECT_EQ(fifth.code(), absl::StatusCode::kResourceExhausted) << fifth;
  (*server)->Stop();
  for (std::thread& t : watchers) t.join();
  for (const absl::Status& s : ends) EXPECT_TRUE(s.ok()) << s;
}

}  // namespace
}  // namespace draplane::kubelet_plugin
