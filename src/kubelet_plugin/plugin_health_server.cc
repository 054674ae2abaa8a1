#include "kubelet_plugin/plugin_health_server.h"

#include <grpcpp/ext/health_check_service_server_builder_option.h>
#include <grpcpp/grpcpp.h>

#include <chrono>

#include "common/str_cat.h"
#include "logging/log.h"
#include "proto/dra_v1.grpc.pb.h"
#include "proto/health.grpc.pb.h"
#include "proto/pluginregistration.grpc.pb.h"

namespace draplane::kubelet_plugin {
namespace {

using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

// Each call of a check is bounded: a probe's own timeout is 1 s by default.
constexpr auto kCallTimeout = std::chrono::seconds(5);

}  // namespace

class PluginHealthServer::Impl final
    : public grpc::health::v1::Health::Service {
 public:
  Impl(const std::string& registration_socket, const std::string& dra_socket)
      : has_registration_(!registration_socket.empty()) {
    if (has_registration_) {
      registration_ = pluginregistration::Registration::NewStub(
          grpc::CreateChannel(StrCat("unix:", registration_socket),
                              grpc::InsecureChannelCredentials()));
    }
    dra_ = k8s::io::kubelet::pkg::apis::dra::v1::DRAPlugin::NewStub(
        grpc::CreateChannel(StrCat("unix:", dra_socket),
                            grpc::InsecureChannelCredentials()));
  }

  grpc::Status Check(grpc::ServerContext* /*context*/,
                     const HealthCheckRequest* request,
                     HealthCheckResponse* response) override {
    if (!request->service().empty() && request->service() != "liveness") {
      return grpc::Status(grpc::StatusCode::NOT_FOUND, "unknown service");
    }
    response->set_status(HealthCheckResponse::NOT_SERVING);
    if (has_registration_) {
      grpc::ClientContext ctx;
      ctx.set_deadline(std::chrono::system_clock::now() + kCallTimeout);
      pluginregistration::InfoRequest req;
      pluginregistration::PluginInfo info;
      grpc::Status st = registration_->GetInfo(&ctx, req, &info);
      if (!st.ok()) {
        logging::Error("failed to call GetInfo", {{"err", st.error_message()}});
        return grpc::Status::OK;
      }
    }
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + kCallTimeout);
    k8s::io::kubelet::pkg::apis::dra::v1::NodePrepareResourcesRequest req;
    k8s::io::kubelet::pkg::apis::dra::v1::NodePrepareResourcesResponse resp;
    grpc::Status st = dra_->NodePrepareResources(&ctx, req, &resp);
    if (!st.ok()) {
      logging::Error("failed to call NodePrepareResources",
                     {{"err", st.error_message()}});
      return grpc::Status::OK;
    }
    response->set_status(HealthCheckResponse::SERVING);
    return grpc::Status::OK;
  }

  grpc::Status Watch(
      grpc::ServerContext* /*context*/, const HealthCheckRequest* /*request*/,
      grpc::ServerWriter<HealthCheckResponse>* /*writer*/) override {
    return grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "not implemented");
  }

  std::unique_ptr<grpc::Server> server;
  int port = 0;

 private:
  const bool has_registration_;
  std::unique_ptr<pluginregistration::Registration::Stub> registration_;
  std::unique_ptr<k8s::io::kubelet::pkg::apis::dra::v1::DRAPlugin::Stub> dra_;
};

PluginHealthServer::PluginHealthServer(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}

PluginHealthServer::~PluginHealthServer() {
  if (impl_->server != nullptr) impl_->server->Shutdown();
}

int PluginHealthServer::port() const { return impl_->port; }

absl::StatusOr<std::unique_ptr<PluginHealthServer>> PluginHealthServer::Start(
    const std::string& address, int port,
    const std::string& registration_socket, const std::string& dra_socket) {
  if (port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        StrCat("healthcheck port ", port, " is not a port"));
  }
  auto impl = std::make_unique<Impl>(registration_socket, dra_socket);
  grpc::ServerBuilder builder;
  const bool v6 = address.find(':') != std::string::npos;
  builder.AddListeningPort(
      StrCat(v6 ? "[" : "", address, v6 ? "]" : "", ":", port),
      grpc::InsecureServerCredentials(), &impl->port);
  // This service is the process's health service on this port: no default
  // one beside it.
  builder.SetOption(
      std::make_unique<grpc::HealthCheckServiceServerBuilderOption>(nullptr));
  builder.RegisterService(impl.get());
  // The port is reachable from the network without credentials: a few
  // threads and small messages bound what a flood of probes costs.
  grpc::ResourceQuota quota("draplane-plugin-health");
  quota.SetMaxThreads(4);
  builder.SetResourceQuota(quota);
  builder.SetMaxReceiveMessageSize(4096);
  impl->server = builder.BuildAndStart();
  if (impl->server == nullptr || impl->port == 0) {
    return absl::UnavailableError(
        StrCat("cannot serve gRPC health on ", address, ":", port));
  }
  return std::unique_ptr<PluginHealthServer>(
      new PluginHealthServer(std::move(impl)));
}

absl::StatusOr<std::string> ProbeGrpcHealth(const std::string& target,
                                            const std::string& service) {
  auto stub = grpc::health::v1::Health::NewStub(
      grpc::CreateChannel(target, grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + kCallTimeout * 2);
  HealthCheckRequest req;
  req.set_service(service);
  HealthCheckResponse resp;
  grpc::Status st = stub->Check(&ctx, req, &resp);
  if (!st.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(st.error_code()),
                        st.error_message());
  }
  return HealthCheckResponse::ServingStatus_Name(resp.status());
}

}  // namespace draplane::kubelet_plugin
