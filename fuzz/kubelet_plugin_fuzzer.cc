// Arbitrary bytes as one gRPC message to the node driver's plugin sockets,
// as the kubelet would send it: the first byte picks the method (DRA v1 or
// v1beta1 prepare or unprepare, registration GetInfo or
// NotifyRegistrationStatus, health Check), the rest is the serialized
// request, sent raw (a generic stub), to the real plugin server in front
// of the real GPU driver on a fake backend, with claims in an in-process
// API server.
//
// The claims' UIDs are assigned by the API server; an input names them by
// placeholders of the same length (kPlaceholders), replaced before it is
// sent, so that a corpus of valid requests stays valid.
//
// Checked after every input: the call ends before its deadline (with any
// status), and once every claim is unprepared again (a well-formed
// unprepare that must succeed) nothing is left: no claim in the driver's
// checkpoint, no CDI spec file, no MIG device on the fake GPUs. Any
// crash or sanitizer report is a bug.
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "api/object.h"
#include "devices/fake_backend.h"
#include "gpu_driver/gpu_driver.h"
#include "kubelet_plugin/plugin_server.h"
#include "testing/in_process_cluster.h"

namespace {

namespace fs = std::filesystem;
using draplane::api::Json;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "kubelet_plugin_fuzzer: %s\n", what.c_str());
  std::abort();
}

// What an input calls.
struct Method {
  const char* path;
  bool registration_socket;
};
constexpr Method kMethods[] = {
    {"/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodePrepareResources", false},
    {"/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodeUnprepareResources", false},
    {"/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/NodePrepareResources",
     false},
    {"/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/NodeUnprepareResources",
     false},
    {"/pluginregistration.Registration/GetInfo", true},
    {"/pluginregistration.Registration/NotifyRegistrationStatus", true},
    {"/grpc.health.v1.Health/Check", false},
};
constexpr size_t kMethodCount = sizeof(kMethods) / sizeof(kMethods[0]);

// The claims every input may name: name, allocated device, opaque config.
struct ClaimSpec {
  const char* name;
  const char* device;
  const char* config;
};
constexpr ClaimSpec kClaims[] = {
    {"whole", "gpu-0", ""},
    {"mig", "gpu-1-mig-1g10gb-19-2", ""},
    {"mig-overlap", "gpu-1-mig-2g20gb-14-2", ""},
    {"shared", "gpu-2",
     R"({"apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig",
         "sharing": {"strategy": "TimeSlicing",
                     "timeSlicingConfig": {"interval": "Long"}}})"},
};
constexpr size_t kClaimCount = sizeof(kClaims) / sizeof(kClaims[0]);
// 36 bytes each, as a UID: claim i's placeholder ends in the digit i.
std::string Placeholder(size_t i) {
  return "00000000-0000-0000-0000-00000000000" + std::to_string(i);
}

// Protobuf wire encoding of a length-delimited field.
void AppendField(std::string& out, int number, const std::string& value) {
  out.push_back(static_cast<char>((number << 3) | 2));
  size_t n = value.size();
  while (n >= 0x80) {
    out.push_back(static_cast<char>((n & 0x7f) | 0x80));
    n >>= 7;
  }
  out.push_back(static_cast<char>(n));
  out += value;
}

struct Node {
  std::string dir;
  std::unique_ptr<draplane::testing::InProcessCluster> cluster;
  std::unique_ptr<draplane::client::Client> api;
  std::unique_ptr<draplane::devices::FakeDeviceBackend> backend;
  std::unique_ptr<draplane::gpu_driver::GpuDriver> driver;
  std::unique_ptr<draplane::kubelet_plugin::PluginServer> server;
  std::vector<std::string> uids;  // of kClaims
  std::unique_ptr<grpc::GenericStub> dra;
  std::unique_ptr<grpc::GenericStub> registration;
  // A valid NodeUnprepareResourcesRequest (v1) of every claim.
  std::string unprepare_all;
};

void CreateClaim(Node& node, const ClaimSpec& spec) {
  draplane::api::Object o = node.cluster->MustCreate(
      Json::parse(std::string(R"({"apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim", "metadata": {"name": ")") +
                  spec.name + R"(", "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "gpu",
          "exactly": {"deviceClassName": "gpu"}}]}}})"));
  auto& claim = std::get<draplane::api::ResourceClaim>(o.value);
  draplane::api::AllocationResult a;
  draplane::api::DeviceRequestAllocationResult r;
  r.request = "gpu";
  r.driver = "gpu.nvidia.com";
  r.pool = "node1";
  r.device = spec.device;
  a.devices.results.push_back(r);
  if (spec.config[0] != '\0') {
    draplane::api::DeviceAllocationConfiguration c;
    c.source = "FromClaim";
    c.opaque = draplane::api::OpaqueDeviceConfiguration{
        "gpu.nvidia.com", Json::parse(spec.config)};
    a.devices.config.push_back(c);
  }
  claim.status.allocation = a;
  if (auto updated = node.cluster->client().UpdateStatus(o); !updated.ok()) {
    Fail("claim status: " + updated.status().ToString());
  }
  node.uids.push_back(o.metadata()->uid);
  if (node.uids.back().size() != Placeholder(0).size()) {
    Fail("a UID of unexpected length: " + node.uids.back());
  }
}

Node& TheNode() {
  static Node* node = [] {
    auto* n = new Node;
    char tmpl[] = "/tmp/draplane-plugin-fuzz-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) Fail("mkdtemp");
    n->dir = tmpl;
    // The node is never destroyed: its folder goes at exit.
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(TheNode().dir, ec);
    });
    std::ofstream(n->dir + "/boot_id") << "boot-1\n";
    auto cluster = draplane::testing::InProcessCluster::Start();
    if (!cluster.ok()) Fail("the API server did not start");
    n->cluster = *std::move(cluster);
    n->api = n->cluster->NewClient();
    auto inv = draplane::devices::ParseInventory(
        "nodes:\n- name: node1\n  gpus:\n  - {model: H100, count: 3}\n",
        "fuzz");
    if (!inv.ok()) Fail("inventory");
    n->backend = std::make_unique<draplane::devices::FakeDeviceBackend>(
        inv->nodes[0].gpus);
    draplane::gpu_driver::GpuDriverOptions o;
    o.node_name = "node1";
    o.plugin_data_dir = n->dir + "/plugins/gpu.nvidia.com";
    o.cdi_root = n->dir + "/cdi";
    o.boot_id_path = n->dir + "/boot_id";
    auto driver = draplane::gpu_driver::GpuDriver::Start(o, n->backend.get());
    if (!driver.ok()) Fail("driver: " + driver.status().ToString());
    n->driver = *std::move(driver);
    auto server = draplane::kubelet_plugin::PluginServer::Start(
        {"gpu.nvidia.com", o.plugin_data_dir, n->dir + "/plugins_registry"},
        n->api.get(), n->driver.get());
    if (!server.ok()) Fail("server: " + server.status().ToString());
    n->server = *std::move(server);
    for (const ClaimSpec& spec : kClaims) CreateClaim(*n, spec);
    n->dra = std::make_unique<grpc::GenericStub>(
        grpc::CreateChannel("unix://" + n->server->dra_socket(),
                            grpc::InsecureChannelCredentials()));
    n->registration = std::make_unique<grpc::GenericStub>(
        grpc::CreateChannel("unix://" + n->server->registration_socket(),
                            grpc::InsecureChannelCredentials()));
    for (size_t i = 0; i < kClaimCount; ++i) {
      std::string claim;
      AppendField(claim, 1, "default");
      AppendField(claim, 2, n->uids[i]);
      AppendField(claim, 3, kClaims[i].name);
      AppendField(n->unprepare_all, 1, claim);
    }
    return n;
  }();
  return *node;
}

// One unary call with raw bytes; returns its status.
grpc::Status Call(grpc::GenericStub& stub, const char* method,
                  const std::string& request) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(20));
  grpc::Slice slice(request);
  grpc::ByteBuffer in(&slice, 1);
  grpc::ByteBuffer out;
  grpc::CompletionQueue cq;
  auto call = stub.PrepareUnaryCall(&context, method, in, &cq);
  call->StartCall();
  grpc::Status status;
  call->Finish(&out, &status, reinterpret_cast<void*>(1));
  void* tag = nullptr;
  bool ok = false;
  if (!cq.Next(&tag, &ok)) Fail("the completion queue shut down");
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }
  return status;
}

void ExpectNothingLeft(Node& node) {
  for (auto state : {draplane::gpu_driver::ClaimState::kPrepareStarted,
                     draplane::gpu_driver::ClaimState::kPrepareCompleted,
                     draplane::gpu_driver::ClaimState::kUnprepareStarted}) {
    if (!node.driver->Claims(state).empty()) {
      Fail("a claim stays in the checkpoint after it was unprepared");
    }
  }
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(node.dir + "/cdi", ec)) {
    Fail("a CDI spec stays after every claim was unprepared: " +
         entry.path().string());
  }
  auto facts = node.backend->Discover();
  if (!facts.ok()) Fail("discover");
  for (const auto& gpu : facts->gpus) {
    if (!gpu.mig_devices.empty()) {
      Fail("a MIG device stays after every claim was unprepared");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  Node& node = TheNode();
  const Method& method = kMethods[data[0] % kMethodCount];
  std::string request(reinterpret_cast<const char*>(data + 1), size - 1);
  for (size_t i = 0; i < kClaimCount; ++i) {
    const std::string placeholder = Placeholder(i);
    for (size_t at = request.find(placeholder); at != std::string::npos;
         at = request.find(placeholder, at + placeholder.size())) {
      request.replace(at, placeholder.size(), node.uids[i]);
    }
  }
  const grpc::Status status =
      Call(method.registration_socket ? *node.registration : *node.dra,
           method.path, request);
  if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    Fail(std::string("no answer before the deadline from ") + method.path);
  }
  const grpc::Status undone =
      Call(*node.dra, kMethods[1].path, node.unprepare_all);
  if (!undone.ok()) Fail("unprepare of every claim: " + undone.error_message());
  ExpectNothingLeft(node);
  return 0;
}
