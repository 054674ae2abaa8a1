#include "kubelet_plugin/plugin_client.h"

#include <grpcpp/grpcpp.h>

#include <chrono>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_join.h"
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

// The services this kubelet side supports (kubelet 1.36: both).
constexpr const char* kSupportedServices[] = {"v1.DRAPlugin",
                                              "v1beta1.DRAPlugin"};
absl::Status FromGrpc(const grpc::Status& s, std::string_view what) {
  if (s.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                      StrCat(what, ": ", s.error_message()));
}

void SetDeadline(grpc::ClientContext& ctx, absl::Duration timeout) {
  ctx.set_deadline(std::chrono::system_clock::now() +
                   absl::ToChronoMilliseconds(timeout));
}

// The health services, in the kubelet's (1.37) order of preference.
constexpr const char* kHealthServices[] = {"v1.DRAResourceHealth",
                                           "v1alpha1.DRAResourceHealth"};

template <typename Response, typename Status>
std::vector<DeviceHealth> HealthReport(const Response& response) {
  std::vector<DeviceHealth> report;
  for (const auto& d : response.devices()) {
    DeviceHealth h;
    h.pool = d.device().pool_name();
    h.device = d.device().device_name();
    h.health = d.health() == Status::HEALTHY ? DeviceHealthStatus::kHealthy
               : d.health() == Status::UNHEALTHY
                   ? DeviceHealthStatus::kUnhealthy
                   : DeviceHealthStatus::kUnknown;
    // Kept as the kubelet keeps it, whatever the plugin sent.
    h.message = HealthMessage(d.message());
    report.push_back(std::move(h));
  }
  return report;
}

}  // namespace

// The canceller's hook into one running watch (PluginClient is its friend).
class WatchCancellerAccess {
 public:
  // False: already cancelled (the watch does not start).
  static bool Attach(WatchCanceller* c, std::function<void()> cancel) {
    if (c == nullptr) return true;
    absl::MutexLock lock(&c->mu_);
    if (c->cancelled_) return false;
    c->cancel_ = std::move(cancel);
    return true;
  }
  static void Detach(WatchCanceller* c) {
    if (c == nullptr) return;
    absl::MutexLock lock(&c->mu_);
    c->cancel_ = nullptr;
  }
  static bool Cancelled(WatchCanceller* c) {
    if (c == nullptr) return false;
    absl::MutexLock lock(&c->mu_);
    return c->cancelled_;
  }
};

namespace {

template <typename Stub, typename Request, typename Response, typename Status>
absl::Status Watch(
    const std::shared_ptr<grpc::Channel>& channel,
    const std::function<bool(const std::vector<DeviceHealth>&)>& on_report,
    absl::Duration timeout, WatchCanceller* canceller) {
  auto stub = Stub::NewStub(channel);
  grpc::ClientContext ctx;
  SetDeadline(ctx, timeout);
  if (!WatchCancellerAccess::Attach(canceller, [&ctx] { ctx.TryCancel(); })) {
    return absl::OkStatus();
  }
  absl::Cleanup detach = [canceller] {
    WatchCancellerAccess::Detach(canceller);
  };
  auto reader = stub->NodeWatchResources(&ctx, Request());
  Response response;
  bool stopped = false;
  while (reader->Read(&response)) {
    if (!on_report(HealthReport<Response, Status>(response))) {
      stopped = true;
      ctx.TryCancel();
      break;
    }
  }
  grpc::Status s = reader->Finish();
  if (stopped || WatchCancellerAccess::Cancelled(canceller)) {
    return absl::OkStatus();
  }
  return FromGrpc(s, "NodeWatchResources");
}

template <typename Request>
Request ClaimsRequest(const std::vector<ClaimRef>& claims) {
  Request request;
  for (const ClaimRef& c : claims) {
    auto* out = request.add_claims();
    out->set_namespace_(c.namespace_);
    out->set_name(c.name);
    out->set_uid(c.uid);
  }
  return request;
}

template <typename Response>
std::map<std::string, PrepareResult> PrepareResults(const Response& response) {
  std::map<std::string, PrepareResult> out;
  for (const auto& [uid, claim] : response.claims()) {
    PrepareResult r;
    if (!claim.error().empty()) {
      r.status = absl::InternalError(claim.error());
    }
    for (const auto& d : claim.devices()) {
      PreparedDevice device;
      device.requests.assign(d.request_names().begin(),
                             d.request_names().end());
      device.pool = d.pool_name();
      device.device = d.device_name();
      device.cdi_device_ids.assign(d.cdi_device_ids().begin(),
                                   d.cdi_device_ids().end());
      if constexpr (std::is_same_v<Response,
                                   v1::NodePrepareResourcesResponse>) {
        if (d.has_share_id()) device.share_id = d.share_id();
      }
      r.devices.push_back(std::move(device));
    }
    out[uid] = std::move(r);
  }
  return out;
}

template <typename Response>
std::map<std::string, absl::Status> UnprepareResults(const Response& response) {
  std::map<std::string, absl::Status> out;
  for (const auto& [uid, claim] : response.claims()) {
    out[uid] = claim.error().empty() ? absl::OkStatus()
                                     : absl::InternalError(claim.error());
  }
  return out;
}

}  // namespace

class PluginClient::Impl {
 public:
  PluginInfo info;
  std::string service;
  std::string health_service;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<v1::DRAPlugin::Stub> v1;
  std::unique_ptr<v1beta1::DRAPlugin::Stub> v1beta1;

  absl::Status Connect(const std::string& socket, const std::string& svc) {
    service = svc;
    channel = grpc::CreateChannel(StrCat("unix:", socket),
                                  grpc::InsecureChannelCredentials());
    if (svc == "v1.DRAPlugin") {
      v1 = v1::DRAPlugin::NewStub(channel);
    } else if (svc == "v1beta1.DRAPlugin") {
      v1beta1 = v1beta1::DRAPlugin::NewStub(channel);
    } else {
      return absl::InvalidArgumentError(
          StrCat("unsupported DRA service ", svc));
    }
    return absl::OkStatus();
  }
};

absl::StatusOr<std::unique_ptr<PluginClient>> PluginClient::Register(
    const std::string& registration_socket) {
  auto channel = grpc::CreateChannel(StrCat("unix:", registration_socket),
                                     grpc::InsecureChannelCredentials());
  auto registration = pluginregistration::Registration::NewStub(channel);
  pluginregistration::PluginInfo info;
  {
    grpc::ClientContext ctx;
    SetDeadline(ctx, absl::Seconds(10));
    pluginregistration::InfoRequest request;
    if (absl::Status s = FromGrpc(registration->GetInfo(&ctx, request, &info),
                                  StrCat("GetInfo on ", registration_socket));
        !s.ok()) {
      return s;
    }
  }
  auto impl = std::make_unique<Impl>();
  impl->info.type = info.type();
  impl->info.name = info.name();
  impl->info.endpoint = info.endpoint();
  impl->info.supported_versions.assign(info.supported_versions().begin(),
                                       info.supported_versions().end());
  // The kubelet's validation: a DRA plugin with a name, an endpoint and a
  // service it supports, taken in the plugin's order of preference.
  std::string error;
  if (info.type() != "DRAPlugin") {
    error = StrCat("plugin type ", info.type(), " is not DRAPlugin");
  } else if (info.name().empty() || info.endpoint().empty()) {
    error = "plugin did not report its name and endpoint";
  } else {
    for (const std::string& v : impl->info.supported_versions) {
      for (const char* supported : kSupportedServices) {
        if (v == supported && impl->service.empty()) impl->service = v;
      }
    }
    for (const char* supported : kHealthServices) {
      for (const std::string& v : impl->info.supported_versions) {
        if (v == supported && impl->health_service.empty()) {
          impl->health_service = v;
        }
      }
    }
    if (impl->service.empty()) {
      error = StrCat("none of the plugin's services is supported: [",
                     absl::StrJoin(impl->info.supported_versions, ", "), "]");
    }
  }
  if (error.empty()) {
    if (absl::Status s = impl->Connect(info.endpoint(), impl->service);
        !s.ok()) {
      error = std::string(s.message());
    }
  }
  {
    grpc::ClientContext ctx;
    SetDeadline(ctx, absl::Seconds(10));
    pluginregistration::RegistrationStatus status;
    status.set_plugin_registered(error.empty());
    status.set_error(error);
    pluginregistration::RegistrationStatusResponse response;
    // The plugin's answer to a failed registration is an error too; the
    // registration outcome is ours.
    (void)registration->NotifyRegistrationStatus(&ctx, status, &response);
  }
  if (!error.empty()) {
    return absl::FailedPreconditionError(
        StrCat("registering ", registration_socket, ": ", error));
  }
  return std::unique_ptr<PluginClient>(new PluginClient(std::move(impl)));
}

absl::StatusOr<std::unique_ptr<PluginClient>> PluginClient::Connect(
    const std::string& dra_socket, const std::string& service) {
  auto impl = std::make_unique<Impl>();
  impl->info.type = "DRAPlugin";
  impl->info.endpoint = dra_socket;
  impl->info.supported_versions = {service};
  if (absl::Status s = impl->Connect(dra_socket, service); !s.ok()) return s;
  return std::unique_ptr<PluginClient>(new PluginClient(std::move(impl)));
}

PluginClient::PluginClient(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
PluginClient::~PluginClient() = default;
const PluginInfo& PluginClient::info() const { return impl_->info; }
const std::string& PluginClient::service() const { return impl_->service; }
const std::string& PluginClient::health_service() const {
  return impl_->health_service;
}

void WatchCanceller::Cancel() {
  absl::MutexLock lock(&mu_);
  cancelled_ = true;
  if (cancel_) cancel_();
}

absl::Status PluginClient::WatchHealth(
    const std::function<bool(const std::vector<DeviceHealth>&)>& on_report,
    absl::Duration timeout, WatchCanceller* canceller) {
  if (impl_->health_service == "v1.DRAResourceHealth") {
    return Watch<::v1::DRAResourceHealth, ::v1::NodeWatchResourcesRequest,
                 ::v1::NodeWatchResourcesResponse, ::v1::HealthStatus>(
        impl_->channel, on_report, timeout, canceller);
  }
  if (impl_->health_service == "v1alpha1.DRAResourceHealth") {
    return Watch<
        ::v1alpha1::DRAResourceHealth, ::v1alpha1::NodeWatchResourcesRequest,
        ::v1alpha1::NodeWatchResourcesResponse, ::v1alpha1::HealthStatus>(
        impl_->channel, on_report, timeout, canceller);
  }
  return absl::FailedPreconditionError(
      StrCat("the plugin ", impl_->info.name,
             " advertises no DRAResourceHealth service"));
}

absl::StatusOr<std::map<std::string, PrepareResult>> PluginClient::Prepare(
    const std::vector<ClaimRef>& claims, absl::Duration timeout) {
  grpc::ClientContext ctx;
  SetDeadline(ctx, timeout);
  if (impl_->v1) {
    auto request = ClaimsRequest<v1::NodePrepareResourcesRequest>(claims);
    v1::NodePrepareResourcesResponse response;
    if (absl::Status s =
            FromGrpc(impl_->v1->NodePrepareResources(&ctx, request, &response),
                     "NodePrepareResources");
        !s.ok()) {
      return s;
    }
    return PrepareResults(response);
  }
  auto request = ClaimsRequest<v1beta1::NodePrepareResourcesRequest>(claims);
  v1beta1::NodePrepareResourcesResponse response;
  if (absl::Status s = FromGrpc(
          impl_->v1beta1->NodePrepareResources(&ctx, request, &response),
          "NodePrepareResources");
      !s.ok()) {
    return s;
  }
  return PrepareResults(response);
}

absl::StatusOr<std::map<std::string, absl::Status>> PluginClient::Unprepare(
    const std::vector<ClaimRef>& claims, absl::Duration timeout) {
  grpc::ClientContext ctx;
  SetDeadline(ctx, timeout);
  if (impl_->v1) {
    auto request = ClaimsRequest<v1::NodeUnprepareResourcesRequest>(claims);
    v1::NodeUnprepareResourcesResponse response;
    if (absl::Status s = FromGrpc(
            impl_->v1->NodeUnprepareResources(&ctx, request, &response),
            "NodeUnprepareResources");
        !s.ok()) {
      return s;
    }
    return UnprepareResults(response);
  }
  auto request = ClaimsRequest<v1beta1::NodeUnprepareResourcesRequest>(claims);
  v1beta1::NodeUnprepareResourcesResponse response;
  if (absl::Status s = FromGrpc(
          impl_->v1beta1->NodeUnprepareResources(&ctx, request, &response),
          "NodeUnprepareResources");
      !s.ok()) {
    return s;
  }
  return UnprepareResults(response);
}

}  // namespace draplane::kubelet_plugin
