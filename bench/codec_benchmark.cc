// Decode/encode throughput of the object model on a realistic ResourceSlice
// (one node's worth of GPUs with attributes and capacity), parameterised by
// device count.
#include <benchmark/benchmark.h>

#include "api/manifest.h"
#include "api/object_codec.h"

namespace draplane::api {
namespace {

Json MakeSlice(int devices) {
  Json slice = {
      {"apiVersion", "resource.k8s.io/v1"},
      {"kind", "ResourceSlice"},
      {"metadata", {{"name", "node1-gpu.nvidia.com"}}},
      {"spec",
       {{"driver", "gpu.nvidia.com"},
        {"nodeName", "node1"},
        {"pool",
         {{"name", "node1"}, {"generation", 1}, {"resourceSliceCount", 1}}}}}};
  Json list = Json::array();
  for (int i = 0; i < devices; ++i) {
    list.push_back(
        {{"name", "gpu-" + std::to_string(i)},
         {"attributes",
          {{"productName", {{"string", "NVIDIA H100 80GB HBM3"}}},
           {"architecture", {{"string", "Hopper"}}},
           {"uuid", {{"string", "GPU-" + std::to_string(100000 + i)}}},
           {"cudaComputeCapability", {{"version", "9.0.0"}}},
           {"driverVersion", {{"version", "550.54.15"}}},
           {"index", {{"int", i}}}}},
         {"capacity", {{"memory", {{"value", "80Gi"}}}}}});
  }
  slice["spec"]["devices"] = list;
  return slice;
}

void BM_DecodeResourceSlice(benchmark::State& state) {
  Json slice = MakeSlice(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto decoded = DecodeObject(slice);
    benchmark::DoNotOptimize(decoded);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_DecodeResourceSlice)->Arg(8)->Arg(128);

void BM_EncodeResourceSlice(benchmark::State& state) {
  auto decoded = DecodeObject(MakeSlice(static_cast<int>(state.range(0))));
  for (auto _ : state) {
    auto encoded = EncodeObject(decoded->object, "resource.k8s.io/v1beta1");
    benchmark::DoNotOptimize(encoded);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_EncodeResourceSlice)->Arg(8)->Arg(128);

void BM_ParseYamlResourceSlice(benchmark::State& state) {
  std::string yaml = ToYaml(MakeSlice(static_cast<int>(state.range(0))));
  for (auto _ : state) {
    auto docs = ParseManifests(yaml);
    benchmark::DoNotOptimize(docs);
  }
  state.SetBytesProcessed(state.iterations() * yaml.size());
}
BENCHMARK(BM_ParseYamlResourceSlice)->Arg(8)->Arg(128);

}  // namespace
}  // namespace draplane::api

BENCHMARK_MAIN();
