// DRA selector evaluation: draplane's cel::Program::Matches on the
// expressions and devices of bench/cel_inputs.json, the same inputs
// `draref cel bench` times cel-go on (bench/cel_side_by_side.py runs both).
//
// Benchmarks, one per (expression, device) and one per device:
//   BM_Matches/<expression>/<device>  Program::Matches on a Device converted
//                                     once (what draplane's allocator does:
//                                     convert each device once, then run
//                                     every selector against it);
//   BM_DeviceCreate/<device>          Device::Create, the per-device
//                                     conversion.
// Counters: allocs = heap allocations per iteration, counted by the
// replacement operator new below; the label is the outcome (true, false or
// error).
//
// The input is DRAPLANE_CEL_BENCH_INPUT, else bench/cel_inputs.json in the
// source tree.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "allocation_counter.h"
#include "api/object_codec.h"
#include "cel/cel.h"

void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}

namespace draplane::cel {
namespace {

struct BenchDevice {
  std::string name;
  std::string driver;
  api::Device device;
};

struct BenchExpression {
  std::string name;
  std::string expression;
};

// Decodes one v1 Device through the API codec (wrapped in a slice).
api::Device DecodeDevice(const api::Json& device, const std::string& driver) {
  api::Json slice = {{"apiVersion", "resource.k8s.io/v1"},
                     {"kind", "ResourceSlice"},
                     {"metadata", {{"name", "bench"}}},
                     {"spec",
                      {{"driver", driver},
                       {"nodeName", "node"},
                       {"pool", {{"name", "pool"}, {"resourceSliceCount", 1}}},
                       {"devices", api::Json::array({device})}}}};
  absl::StatusOr<api::DecodeResult> decoded = api::DecodeObject(slice);
  if (!decoded.ok()) {
    std::cerr << "cel_benchmark: bad device: " << decoded.status() << "\n";
    std::exit(2);
  }
  return std::get<api::ResourceSlice>(decoded->object.value).spec.devices[0];
}

std::string InputPath() {
  if (const char* p = std::getenv("DRAPLANE_CEL_BENCH_INPUT")) return p;
  return std::string(DRAPLANE_SOURCE_DIR) + "/bench/cel_inputs.json";
}

void BM_Matches(benchmark::State& state, std::shared_ptr<const Program> program,
                Device device) {
  absl::StatusOr<bool> first = program->Matches(device);
  state.SetLabel(!first.ok() ? "error" : (*first ? "true" : "false"));
  uint64_t before = draplane::bench::AllocationCount();
  for (auto _ : state) {
    absl::StatusOr<bool> r = program->Matches(device);
    benchmark::DoNotOptimize(r);
  }
  uint64_t allocations = draplane::bench::AllocationCount() - before;
  state.counters["allocs"] = benchmark::Counter(
      static_cast<double>(allocations), benchmark::Counter::kAvgIterations);
}

void BM_DeviceCreate(benchmark::State& state, std::string driver,
                     api::Device device) {
  uint64_t before = draplane::bench::AllocationCount();
  for (auto _ : state) {
    absl::StatusOr<Device> d = Device::Create(driver, device);
    benchmark::DoNotOptimize(d);
  }
  uint64_t allocations = draplane::bench::AllocationCount() - before;
  state.counters["allocs"] = benchmark::Counter(
      static_cast<double>(allocations), benchmark::Counter::kAvgIterations);
}

// Registers the benchmarks of the input file; exits on a bad input (a
// benchmark of nothing would hide the problem).
void RegisterFromInput() {
  const std::string path = InputPath();
  std::ifstream in(path);
  if (!in) {
    std::cerr << "cel_benchmark: cannot read " << path
              << " (set DRAPLANE_CEL_BENCH_INPUT)\n";
    std::exit(2);
  }
  std::stringstream text;
  text << in.rdbuf();
  api::Json input = api::Json::parse(text.str(), nullptr, false);
  if (!input.is_object() || !input.contains("devices") ||
      !input.contains("expressions")) {
    std::cerr << "cel_benchmark: " << path
              << ": want {\"devices\": [...], \"expressions\": [...]}\n";
    std::exit(2);
  }
  std::vector<BenchDevice> devices;
  for (const api::Json& d : input["devices"]) {
    const std::string driver = d.at("driver").get<std::string>();
    devices.push_back({d.at("name").get<std::string>(), driver,
                       DecodeDevice(d.at("device"), driver)});
  }
  for (const BenchDevice& d : devices) {
    benchmark::RegisterBenchmark(("BM_DeviceCreate/" + d.name).c_str(),
                                 BM_DeviceCreate, d.driver, d.device);
  }
  for (const api::Json& e : input["expressions"]) {
    BenchExpression expr{e.at("name").get<std::string>(),
                         e.at("expression").get<std::string>()};
    absl::StatusOr<std::shared_ptr<const Program>> program =
        Compiler::Default().CompileSelector(expr.expression);
    if (!program.ok()) {
      std::cerr << "cel_benchmark: " << expr.name << ": " << program.status()
                << "\n";
      std::exit(2);
    }
    for (const BenchDevice& d : devices) {
      absl::StatusOr<Device> device = Device::Create(d.driver, d.device);
      if (!device.ok()) {
        std::cerr << "cel_benchmark: device " << d.name << ": "
                  << device.status() << "\n";
        std::exit(2);
      }
      benchmark::RegisterBenchmark(
          ("BM_Matches/" + expr.name + "/" + d.name).c_str(), BM_Matches,
          *program, *device);
    }
  }
}

}  // namespace
}  // namespace draplane::cel

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  draplane::cel::RegisterFromInput();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
