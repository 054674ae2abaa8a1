#include "kubelet_plugin/plugin_server.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <variant>

#include "absl/cleanup/cleanup.h"
#include "absl/synchronization/mutex.h"
#include "api/object.h"
#include "clock/stop_signal.h"
#include "common/str_cat.h"
#include "proto/dra_health_v1.grpc.pb.h"
#include "proto/dra_health_v1alpha1.grpc.pb.h"
#include "proto/dra_v1.grpc.pb.h"
#include "proto/dra_v1beta1.grpc.pb.h"
#include "proto/pluginregistration.grpc.pb.h"

namespace draplane::kubelet_plugin {
namespace {

namespace v1 = ::k8s::io::kubelet::pkg::apis::dra::v1;
namespace v1beta1 = ::k8s::io::kubelet::pkg::apis::dra::v1beta1;
namespace fs = std::filesystem;

const api::KindInfo& ClaimKind() {
  static const api::KindInfo* kind =
      api::FindKind("resource.k8s.io", "ResourceClaim");
  return *kind;
}

// "req/sub" -> "req": the kubelet knows requests, not subrequests.
std::string RequestName(const std::string& request) {
  return request.substr(0, request.find('/'));
}

template <typename Device>
void FillDevice(const PreparedDevice& d, Device* out) {
  for (const std::string& r : d.requests)
    out->add_request_names(RequestName(r));
  out->set_pool_name(d.pool);
  out->set_device_name(d.device);
  for (const std::string& id : d.cdi_device_ids) out->add_cdi_device_ids(id);
}

// The DRAPlugin service of one API version (v1 and v1beta1 only differ in
// Device.share_id).
template <typename Service, typename PrepareRequest, typename PrepareResponse,
          typename UnprepareRequest, typename UnprepareResponse,
          bool kHasShareId>
class DraService final : public Service {
 public:
  DraService(client::Client* api, DraDriver* driver)
      : api_(api), driver_(driver) {}

  grpc::Status NodePrepareResources(grpc::ServerContext*,
                                    const PrepareRequest* request,
                                    PrepareResponse* response) override {
    std::vector<api::ResourceClaim> claims;
    claims.reserve(request->claims_size());
    for (const auto& ref : request->claims()) {
      const std::string display = StrCat(ref.namespace_(), "/", ref.name());
      auto object = api_->Get(ClaimKind(), ref.namespace_(), ref.name());
      if (!object.ok()) {
        return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                            StrCat("retrieve claim ", display, ": ",
                                   std::string(object.status().message())));
      }
      const auto* claim = std::get_if<api::ResourceClaim>(&object->value);
      if (claim == nullptr) {
        return grpc::Status(
            grpc::StatusCode::INTERNAL,
            StrCat("retrieve claim ", display, ": not a ResourceClaim"));
      }
      if (claim->metadata.uid != ref.uid()) {
        return grpc::Status(
            grpc::StatusCode::FAILED_PRECONDITION,
            StrCat("claim ", display, " got replaced: UID ",
                   claim->metadata.uid, " instead of ", ref.uid()));
      }
      if (!claim->status.allocation) {
        return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                            StrCat("claim ", display, " not allocated"));
      }
      claims.push_back(*claim);
    }
    for (const api::ResourceClaim& claim : claims) {
      PrepareResult result = driver_->PrepareResourceClaim(claim);
      auto& out = (*response->mutable_claims())[claim.metadata.uid];
      if (!result.status.ok()) {
        out.set_error(std::string(result.status.message()));
        continue;
      }
      for (const PreparedDevice& d : result.devices) {
        auto* device = out.add_devices();
        FillDevice(d, device);
        if constexpr (kHasShareId) {
          if (d.share_id) device->set_share_id(*d.share_id);
        }
      }
    }
    return grpc::Status::OK;
  }

  grpc::Status NodeUnprepareResources(grpc::ServerContext*,
                                      const UnprepareRequest* request,
                                      UnprepareResponse* response) override {
    for (const auto& ref : request->claims()) {
      absl::Status s = driver_->UnprepareResourceClaim(
          ClaimRef{ref.namespace_(), ref.name(), ref.uid()});
      auto& out = (*response->mutable_claims())[ref.uid()];
      if (!s.ok()) out.set_error(std::string(s.message()));
    }
    return grpc::Status::OK;
  }

 private:
  client::Client* const api_;
  DraDriver* const driver_;
};

using DraServiceV1 =
    DraService<v1::DRAPlugin::Service, v1::NodePrepareResourcesRequest,
               v1::NodePrepareResourcesResponse,
               v1::NodeUnprepareResourcesRequest,
               v1::NodeUnprepareResourcesResponse, true>;
using DraServiceV1beta1 =
    DraService<v1beta1::DRAPlugin::Service,
               v1beta1::NodePrepareResourcesRequest,
               v1beta1::NodePrepareResourcesResponse,
               v1beta1::NodeUnprepareResourcesRequest,
               v1beta1::NodeUnprepareResourcesResponse, false>;

constexpr int kMaxHealthStreams = 4;
// The watch loop behind every NodeWatchResources stream, whatever its API
// version: the stream cap, change detection, periodic refresh and the end
// of all streams when the server stops.
class HealthWatch {
 public:
  HealthWatch(const PluginServerOptions& options)
      : source_(options.health),
        poll_(options.health_poll),
        refresh_(options.health_refresh),
        clock_(options.clock != nullptr ? *options.clock : RealClock()) {}

  // Sends reports through `send` (false: the kubelet went away) until the
  // call is cancelled or Stop().
  grpc::Status Serve(grpc::ServerContext* context,
                     const std::function<bool(const std::vector<DeviceHealth>&,
                                              int64_t)>& send) {
    if (stop_.stopped()) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          "the plugin is stopping");
    }
    {
      absl::MutexLock lock(&mu_);
      if (streams_ >= kMaxHealthStreams) {
        return grpc::Status(
            grpc::StatusCode::RESOURCE_EXHAUSTED,
            StrCat("at most ", kMaxHealthStreams, " health streams at once"));
      }
      ++streams_;
    }
    absl::Cleanup done = [this] {
      absl::MutexLock lock(&mu_);
      --streams_;
    };
    std::vector<DeviceHealth> last;
    std::optional<absl::Time> last_sent;
    while (!context->IsCancelled()) {
      std::vector<DeviceHealth> report = source_->DeviceHealthReport();
      const absl::Time now = clock_.Now();
      if (!last_sent || report != last || now - *last_sent >= refresh_) {
        if (!send(report, absl::ToUnixSeconds(now))) {
          return grpc::Status(grpc::StatusCode::CANCELLED,
                              "the kubelet closed the stream");
        }
        last = std::move(report);
        last_sent = now;
      }
      if (!stop_.Sleep(poll_)) return grpc::Status::OK;
    }
    return grpc::Status(grpc::StatusCode::CANCELLED, "cancelled");
  }

  // Ends every stream (before the gRPC server's Shutdown, which waits for
  // them) and refuses new ones.
  void Stop() { stop_.Stop(); }

 private:
  DeviceHealthSource* const source_;
  const absl::Duration poll_;
  const absl::Duration refresh_;
  Clock& clock_;
  StopSignal stop_{clock_};
  absl::Mutex mu_;
  int streams_ ABSL_GUARDED_BY(mu_) = 0;
};

// The DRAResourceHealth service of one API version (v1 and v1alpha1 are
// the same messages in another package).
template <typename Service, typename Request, typename Response,
          typename Status>
class HealthService final : public Service {
 public:
  explicit HealthService(HealthWatch* watch) : watch_(watch) {}

  grpc::Status NodeWatchResources(
      grpc::ServerContext* context, const Request*,
      grpc::ServerWriter<Response>* writer) override {
    return watch_->Serve(
        context,
        [writer](const std::vector<DeviceHealth>& report, int64_t now) {
          Response response;
          for (const DeviceHealth& d : report) {
            auto* out = response.add_devices();
            out->mutable_device()->set_pool_name(d.pool);
            out->mutable_device()->set_device_name(d.device);
            switch (d.health) {
              case DeviceHealthStatus::kHealthy:
                out->set_health(Status::HEALTHY);
                break;
              case DeviceHealthStatus::kUnhealthy:
                out->set_health(Status::UNHEALTHY);
                break;
              case DeviceHealthStatus::kUnknown:
                out->set_health(Status::UNKNOWN);
                break;
            }
            out->set_last_updated_time(now);
            out->set_message(HealthMessage(d.message));
          }
          return writer->Write(response);
        });
  }

 private:
  HealthWatch* const watch_;
};

using HealthServiceV1 =
    HealthService<::v1::DRAResourceHealth::Service,
                  ::v1::NodeWatchResourcesRequest,
                  ::v1::NodeWatchResourcesResponse, ::v1::HealthStatus>;
using HealthServiceV1alpha1 =
    HealthService<::v1alpha1::DRAResourceHealth::Service,
                  ::v1alpha1::NodeWatchResourcesRequest,
                  ::v1alpha1::NodeWatchResourcesResponse,
                  ::v1alpha1::HealthStatus>;

absl::Status PrepareSocketPath(const std::string& path) {
  if (path.size() >= sizeof(sockaddr_un{}.sun_path)) {
    return absl::InvalidArgumentError(
        StrCat("socket path ", path, " is longer than ",
               sizeof(sockaddr_un{}.sun_path) - 1, " bytes"));
  }
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (ec) {
    return absl::FailedPreconditionError(
        StrCat("cannot create ", fs::path(path).parent_path().string(), ": ",
               ec.message()));
  }
  fs::remove(path, ec);  // a stale socket from an earlier run
  if (ec) {
    return absl::FailedPreconditionError(
        StrCat("cannot remove stale socket ", path, ": ", ec.message()));
  }
  return absl::OkStatus();
}

}  // namespace

class PluginServer::Impl : public pluginregistration::Registration::Service {
 public:
  Impl(const PluginServerOptions& options, client::Client* api,
       DraDriver* driver)
      : options_(options),
        v1_(api, driver),
        v1beta1_(api, driver),
        health_watch_(options),
        health_v1_(&health_watch_),
        health_v1alpha1_(&health_watch_) {
    dra_socket_ = StrCat(options.plugin_data_dir, "/dra.sock");
    if (!options.registrar_dir.empty()) {
      registration_socket_ =
          StrCat(options.registrar_dir, "/", options.driver_name, "-reg.sock");
    }
  }

  absl::Status Start() {
    if (absl::Status s = PrepareSocketPath(dra_socket_); !s.ok()) return s;
    grpc::EnableDefaultHealthCheckService(true);
    {
      grpc::ServerBuilder builder;
      builder.AddListeningPort(StrCat("unix:", dra_socket_),
                               grpc::InsecureServerCredentials());
      builder.RegisterService(&v1_);
      builder.RegisterService(&v1beta1_);
      if (options_.health != nullptr) {
        builder.RegisterService(&health_v1_);
        builder.RegisterService(&health_v1alpha1_);
      }
      dra_server_ = builder.BuildAndStart();
      if (!dra_server_) {
        return absl::UnavailableError(
            StrCat("cannot serve the DRA service on ", dra_socket_));
      }
    }
    if (!registration_socket_.empty()) {
      if (absl::Status s = PrepareSocketPath(registration_socket_); !s.ok()) {
        return s;
      }
      grpc::ServerBuilder builder;
      builder.AddListeningPort(StrCat("unix:", registration_socket_),
                               grpc::InsecureServerCredentials());
      builder.RegisterService(this);
      registration_server_ = builder.BuildAndStart();
      if (!registration_server_) {
        return absl::UnavailableError(StrCat(
            "cannot serve plugin registration on ", registration_socket_));
      }
    }
    return absl::OkStatus();
  }

  void Stop() {
    // Deregistration first: the kubelet stops using the plugin when the
    // registration socket disappears.
    if (registration_server_) {
      registration_server_->Shutdown();
      registration_server_->Wait();
      registration_server_.reset();
      std::error_code ec;
      fs::remove(registration_socket_, ec);
    }
    health_watch_.Stop();
    if (dra_server_) {
      dra_server_->Shutdown();
      dra_server_->Wait();
      dra_server_.reset();
      std::error_code ec;
      fs::remove(dra_socket_, ec);
    }
  }

  grpc::Status GetInfo(grpc::ServerContext*,
                       const pluginregistration::InfoRequest*,
                       pluginregistration::PluginInfo* info) override {
    info->set_type("DRAPlugin");
    info->set_name(options_.driver_name);
    info->set_endpoint(fs::absolute(dra_socket_).string());
    info->add_supported_versions("v1.DRAPlugin");
    info->add_supported_versions("v1beta1.DRAPlugin");
    if (options_.health != nullptr) {
      info->add_supported_versions("v1.DRAResourceHealth");
      info->add_supported_versions("v1alpha1.DRAResourceHealth");
    }
    return grpc::Status::OK;
  }

  grpc::Status NotifyRegistrationStatus(
      grpc::ServerContext*, const pluginregistration::RegistrationStatus* s,
      pluginregistration::RegistrationStatusResponse*) override {
    absl::MutexLock lock(&mu_);
    status_ = RegistrationStatus{s->plugin_registered(), s->error()};
    if (!s->plugin_registered()) {
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                          StrCat("plugin registration failed: ", s->error()));
    }
    return grpc::Status::OK;
  }

  const std::string& dra_socket() const { return dra_socket_; }
  const std::string& registration_socket() const {
    return registration_socket_;
  }
  std::optional<RegistrationStatus> status() const {
    absl::MutexLock lock(&mu_);
    return status_;
  }

 private:
  const PluginServerOptions options_;
  std::string dra_socket_;
  std::string registration_socket_;
  DraServiceV1 v1_;
  DraServiceV1beta1 v1beta1_;
  HealthWatch health_watch_;
  HealthServiceV1 health_v1_;
  HealthServiceV1alpha1 health_v1alpha1_;
  std::unique_ptr<grpc::Server> dra_server_;
  std::unique_ptr<grpc::Server> registration_server_;
  mutable absl::Mutex mu_;
  std::optional<RegistrationStatus> status_ ABSL_GUARDED_BY(mu_);
};

absl::StatusOr<std::unique_ptr<PluginServer>> PluginServer::Start(
    const PluginServerOptions& options, client::Client* api,
    DraDriver* driver) {
  if (options.driver_name.empty() || options.plugin_data_dir.empty()) {
    return absl::InvalidArgumentError(
        "the plugin server needs a driver name and a plugin data directory");
  }
  auto impl = std::make_unique<Impl>(options, api, driver);
  if (absl::Status s = impl->Start(); !s.ok()) {
    impl->Stop();
    return s;
  }
  return std::unique_ptr<PluginServer>(new PluginServer(std::move(impl)));
}

PluginServer::PluginServer(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
PluginServer::~PluginServer() { Stop(); }
void PluginServer::Stop() { impl_->Stop(); }
const std::string& PluginServer::dra_socket() const {
  return impl_->dra_socket();
}
const std::string& PluginServer::registration_socket() const {
  return impl_->registration_socket();
}
std::optional<RegistrationStatus> PluginServer::registration_status() const {
  return impl_->status();
}

}  // namespace draplane::kubelet_plugin
