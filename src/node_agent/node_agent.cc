#include "node_agent/node_agent.h"

#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "clock/stop_signal.h"
#include "common/str_cat.h"
#include "kubelet_plugin/plugin_health_server.h"
#include "kubelet_plugin/plugin_server.h"
#include "kubelet_plugin/resource_slice_publisher.h"
#include "logging/log.h"
#include "node_agent/simulated_kubelet.h"

namespace draplane::node_agent {

class NodeAgent::Impl {
 public:
  Impl(const NodeAgentOptions& options, client::Client* api,
       devices::DeviceBackend* backend)
      : options_(options),
        clock_(options.clock != nullptr ? *options.clock : RealClock()),
        api_(api),
        backend_(backend),
        publisher_(api, devices::kNvidiaGpuDriver, options.node_name) {}

  absl::Status Start() {
    const std::string root = options_.root_dir;
    const std::string plugins = options_.plugins_dir.empty()
                                    ? StrCat(root, "/plugins")
                                    : options_.plugins_dir;
    const std::string registrar = options_.registrar_dir.empty()
                                      ? StrCat(root, "/plugins_registry")
                                      : options_.registrar_dir;
    gpu_driver::GpuDriverOptions d;
    d.node_name = options_.node_name;
    d.plugin_data_dir = StrCat(plugins, "/", devices::kNvidiaGpuDriver);
    d.cdi_root =
        options_.cdi_root.empty() ? StrCat(root, "/cdi") : options_.cdi_root;
    d.boot_id_path = options_.boot_id_path;
    d.gates = options_.gates;
    d.additional_ignored_xids = options_.additional_ignored_xids;
    d.metrics = options_.metrics;
    auto driver = gpu_driver::GpuDriver::Start(d, backend_);
    if (!driver.ok()) return driver.status();
    driver_ = *std::move(driver);

    kubelet_plugin::PluginServerOptions so;
    so.driver_name = devices::kNvidiaGpuDriver;
    so.plugin_data_dir = d.plugin_data_dir;
    so.registrar_dir = registrar;
    so.health = driver_.get();
    so.clock = &clock_;
    auto server = kubelet_plugin::PluginServer::Start(so, api_, driver_.get());
    if (!server.ok()) return server.status();
    server_ = *std::move(server);
    if (options_.healthcheck_port >= 0) {
      auto health = kubelet_plugin::PluginHealthServer::Start(
          "0.0.0.0", options_.healthcheck_port, server_->registration_socket(),
          server_->dra_socket());
      if (!health.ok()) return health.status();
      health_ = *std::move(health);
    }
    if (options_.simulate_kubelet) {
      // The Node first: the slices published next are owned by it.
      SimulatedKubeletOptions k;
      k.node_name = options_.node_name;
      k.registration_socket = server_->registration_socket();
      k.driver_name = devices::kNvidiaGpuDriver;
      k.labels = options_.labels;
      k.cpu = options_.cpu;
      k.memory = options_.memory;
      k.pods = options_.pods;
      k.heartbeat_period = options_.heartbeat_period;
      k.poll_period = options_.device_poll_period;
      k.prepared_claims = [driver = driver_.get()] {
        return driver->CheckpointedClaims();
      };
      k.clock = &clock_;
      auto kubelet = SimulatedKubelet::Start(k, api_);
      if (!kubelet.ok()) return kubelet.status();
      kubelet_ = *std::move(kubelet);
    }
    // A failure here is retried by the device loop.
    if (auto published = PublishNow(); !published.ok()) {
      logging::Error(
          "Publishing ResourceSlices failed",
          {{"node", options_.node_name}, {"err", published.status()}});
    }
    threads_.emplace_back([this] { DeviceLoop(); });
    return absl::OkStatus();
  }

  void Stop() {
    if (!stop_.Stop()) return;
    for (std::thread& t : threads_) t.join();
    threads_.clear();
    kubelet_.reset();
    health_.reset();
    if (server_) server_->Stop();
  }

  absl::StatusOr<int64_t> PublishNow() {
    absl::MutexLock lock(&publish_mu_);
    auto slices = driver_->DesiredSlices();
    if (!slices.ok()) return slices.status();
    return publisher_.Publish(*std::move(slices));
  }

  gpu_driver::GpuDriver& driver() { return *driver_; }
  const std::string& dra_socket() const { return server_->dra_socket(); }
  const std::string& registration_socket() const {
    return server_->registration_socket();
  }
  int healthcheck_port() const { return health_ ? health_->port() : 0; }

 private:
  void DeviceLoop() {
    absl::Time next_cleanup = clock_.Now() + options_.stale_claim_period;
    while (stop_.Sleep(options_.device_poll_period)) {
      if (auto s = PublishNow(); !s.ok()) {
        logging::Error("Publishing ResourceSlices failed",
                       {{"node", options_.node_name}, {"err", s.status()}});
      }
      if (clock_.Now() >= next_cleanup) {
        next_cleanup = clock_.Now() + options_.stale_claim_period;
        (void)driver_->CleanupStaleClaims(*api_);
      }
    }
  }

  const NodeAgentOptions options_;
  Clock& clock_;
  client::Client* const api_;
  devices::DeviceBackend* const backend_;
  std::unique_ptr<gpu_driver::GpuDriver> driver_;
  std::unique_ptr<kubelet_plugin::PluginServer> server_;
  std::unique_ptr<kubelet_plugin::PluginHealthServer> health_;
  std::unique_ptr<SimulatedKubelet> kubelet_;
  absl::Mutex publish_mu_;
  kubelet_plugin::ResourceSlicePublisher publisher_
      ABSL_GUARDED_BY(publish_mu_);
  std::vector<std::thread> threads_;

  StopSignal stop_{clock_};
};

absl::StatusOr<std::unique_ptr<NodeAgent>> NodeAgent::Start(
    const NodeAgentOptions& options, client::Client* api,
    devices::DeviceBackend* backend) {
  if (options.node_name.empty() || options.root_dir.empty()) {
    return absl::InvalidArgumentError(
        "a node agent needs a node name and a root directory");
  }
  auto impl = std::make_unique<Impl>(options, api, backend);
  if (absl::Status s = impl->Start(); !s.ok()) {
    impl->Stop();
    return s;
  }
  return std::unique_ptr<NodeAgent>(new NodeAgent(std::move(impl)));
}

NodeAgent::NodeAgent(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
NodeAgent::~NodeAgent() { Stop(); }
void NodeAgent::Stop() { impl_->Stop(); }
absl::StatusOr<int64_t> NodeAgent::PublishNow() { return impl_->PublishNow(); }
gpu_driver::GpuDriver& NodeAgent::driver() { return impl_->driver(); }
const std::string& NodeAgent::dra_socket() const { return impl_->dra_socket(); }
const std::string& NodeAgent::registration_socket() const {
  return impl_->registration_socket();
}
int NodeAgent::healthcheck_port() const { return impl_->healthcheck_port(); }

}  // namespace draplane::node_agent
