// Objects for scheduler tests, benchmarks and simulations: nodes, GPU
// ResourceSlices, classes, claims and pods, built as API JSON and decoded
// with the real codec (so they are exactly what the API would hold).
#ifndef DRAPLANE_SCHEDULER_TESTING_CLUSTER_BUILDER_H_
#define DRAPLANE_SCHEDULER_TESTING_CLUSTER_BUILDER_H_

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/meta_types.h"
#include "api/object.h"

namespace draplane::scheduler::testing {

// Decodes one object (JSON or YAML text, or JSON) and applies the API
// server's defaults; dies on bad input (a bug in the test).
api::Object Decode(const api::Json& json);
api::Object DecodeText(std::string_view text);
// Every object of a YAML/JSON stream.
std::vector<api::Object> DecodeStream(std::string_view text);

// The guide's manifests folder in the shared test data
// (testing/shared_test_data.h) and a file's text ("" when unreadable).
std::string SeedManifestsDir();
std::string ReadFile(const std::string& path);

// A Ready node with room for 110 pods.
api::Json NodeJson(std::string_view name,
                   const std::map<std::string, std::string>& labels = {});

// One device of a GPU slice: its attributes (qualified or driver-local
// names; values are strings, ints or bools) and memory capacity.
struct GpuDevice {
  std::string name;
  api::Json attributes = api::Json::object();  // name -> {"string": ...}
};
// A ResourceSlice named "<node>-<driver>" publishing `devices` for `node`
// in pool `node` (generation 1, one slice).
api::Json SliceJson(std::string_view node, std::string_view driver,
                    const std::vector<GpuDevice>& devices);
// `count` NVIDIA GPUs named gpu-0.. with productName `product` and
// nvlinkInterconnect = nvlink(i) (driver gpu.nvidia.com qualifies them)
// (skipped when it returns
// "").
std::vector<GpuDevice> NvidiaGpus(
    int count, std::string_view product,
    const std::function<std::string(int)>& nvlink = nullptr);

// kube-scheduler's scheduler_perf DRA setup (test/integration/
// scheduler_perf/dra): driver test-driver.cdi.k8s.io, devices
// instance-0..N-1 (model A100, family GPU, driverVersion 1.2.3,
// dra.example.com/numa = index, memory 1Gi), class test-class, template
// test-claim-template with one request for one device.
api::Json PerfSliceJson(std::string_view node, int devices);
api::Json PerfClassJson();
api::Json PerfTemplateJson(std::string_view ns);
// A pod with one claim from `template_name` (resourceClaimTemplateName).
api::Json TemplatePodJson(std::string_view ns, std::string_view name,
                          std::string_view template_name,
                          std::string_view scheduler_name = "draplane");
// A pod with one claim by name.
api::Json ClaimPodJson(std::string_view ns, std::string_view name,
                       std::string_view claim_name,
                       std::string_view scheduler_name = "draplane");
// DeviceClass "gpu": every device of driver gpu.nvidia.com.
api::Json GpuClassJson();
// A claim asking for `count` devices of `device_class`.
api::Json ClaimJson(std::string_view ns, std::string_view name,
                    std::string_view device_class, int count);

}  // namespace draplane::scheduler::testing

#endif  // DRAPLANE_SCHEDULER_TESTING_CLUSTER_BUILDER_H_
