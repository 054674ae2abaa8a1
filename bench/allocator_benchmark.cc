// Allocator scenario runner: times draplane's allocator on the benchmark
// classes of the reference oracle (`draref bench --write-scenarios DIR`
// writes the very same inputs) and prints JSON in `draref bench --json`'s
// shape, so bench/allocator_side_by_side.py can put both side by side.
//
// One allocation is one Allocate call on one node, like upstream's
// NewAllocator + Allocate per pod and node. Two timings per class:
//   median_ns / p99_ns            warm: the Allocator (converted devices,
//                                 cached selector results) is built once
//                                 per class and reused, as the scheduler
//                                 reuses it until slices change;
//   allocs_median                 heap allocations per warm allocation;
//   cold_median_ns / cold_p99_ns  cold: a new Allocator per allocation
//                                 (devices converted, selectors compiled
//                                 and evaluated from scratch).
// For "500-nodes-x-10" each allocation is on the next node (node-0 ...
// node-499, 10 rounds) and its result is added to the allocated state, as
// draref does.
//
// Usage: allocator_benchmark --scenarios DIR [--budget-ms 8000]
//                            [--only NAME,...] [--mode warm|cold|both]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "allocation_counter.h"
#include "allocator/allocator.h"
#include "api/meta_types.h"
#include "common/str_cat.h"
#include "scenario/scenario.h"

namespace {

using draplane::StrCat;
using namespace draplane::allocator;
using namespace draplane::scenario;
using Clock = std::chrono::steady_clock;

struct BenchClass {
  const char* name;
  const char* title;
  int per_node;  // > 0: one claim per node in turn, `rounds` rounds
  int rounds;
};

// Same names and titles as tests/reference/gen/bench.go.
const BenchClass kClasses[] = {
    {"gpu-1-of-8", "1 GPU from 8 on a node", 0, 0},
    {"gpu-4-matchattr-of-8", "4 GPUs with matchAttribute on an 8-GPU node", 0,
     0},
    {"mig-h100x8", "MIG profile from partitionable H100s", 0, 0},
    {"32-of-31", "32 devices asked, 31 present", 0, 0},
    {"500-nodes-x-10", "500 nodes x 10 devices, one claim per node in turn",
     500, 10},
};

struct Samples {
  std::vector<int64_t> ns;
  std::vector<int64_t> allocs;
  std::vector<int64_t> steps;
  int timeouts = 0;
};

int64_t Median(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int64_t P99(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = (v.size() * 99 + 99) / 100;
  return v[std::min(v.size() - 1, i == 0 ? 0 : i - 1)];
}

std::string OutcomeName(const Outcome& o) {
  if (o.kind == OutcomeKind::kFatal || o.kind == OutcomeKind::kInvalidPools) {
    return StrCat("error: ", o.message);
  }
  return OutcomeKindName(o.kind);
}

struct Run {
  Samples warm, cold;
  std::string outcome;
  int scenarios = 1;
};

// Runs one class: `warm` reuses one Allocator, otherwise each allocation
// builds its own.
void RunClass(const BenchClass& bc, const Scenario& sc, bool warm,
              std::chrono::milliseconds budget, Run& run) {
  Samples& samples = warm ? run.warm : run.cold;
  const size_t max_samples = 20000;
  const auto deadline = Clock::now() + budget;
  ScenarioInputs in = BuildInputs(sc);
  std::unique_ptr<Allocator> shared;
  if (warm) {
    shared = std::make_unique<Allocator>(sc.features, in.slices, sc.classes);
  }
  AllocateOptions options;
  auto once =
      [&](const draplane::api::Node& node,
          const std::vector<const draplane::api::ResourceClaim*>& claims,
          const AllocatedState& state) {
        options.deadline = absl::Now() + absl::Seconds(3);
        const uint64_t allocs_before = draplane::bench::AllocationCount();
        const auto start = Clock::now();
        std::unique_ptr<Allocator> own;
        Allocator* a = shared.get();
        if (!warm) {
          own = std::make_unique<Allocator>(sc.features, in.slices, sc.classes);
          a = own.get();
        }
        Outcome o = a->Allocate(node, claims, state, options);
        samples.ns.push_back(
            std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() -
                                                                 start)
                .count());
        samples.allocs.push_back(static_cast<int64_t>(
            draplane::bench::AllocationCount() - allocs_before));
        samples.steps.push_back(o.steps);
        if (o.kind == OutcomeKind::kTimeout) ++samples.timeouts;
        return o;
      };
  if (bc.per_node == 0) {
    while (samples.ns.size() < max_samples &&
           (samples.ns.size() < 3 || Clock::now() < deadline)) {
      Outcome o = once(in.node, in.claims, in.state);
      if (samples.ns.size() == 1 && warm) run.outcome = OutcomeName(o);
    }
    return;
  }
  AllocatedState state = in.state;
  const draplane::api::ResourceClaim& tmpl = *in.claims.at(0);
  // Nodes and claim copies are made up front (draref copies them outside
  // its timed section too).
  std::vector<draplane::api::Node> nodes(bc.per_node, in.node);
  for (int n = 0; n < bc.per_node; ++n) {
    nodes[n].metadata.name = StrCat("node-", n);
    for (const auto& candidate : sc.nodes) {
      if (candidate.metadata.name == nodes[n].metadata.name)
        nodes[n] = candidate;
    }
  }
  std::vector<draplane::api::ResourceClaim> claims(
      static_cast<size_t>(bc.rounds) * bc.per_node, tmpl);
  int used = 0;
  for (int round = 0; round < bc.rounds; ++round) {
    for (int n = 0; n < bc.per_node; ++n) {
      if (samples.ns.size() >= max_samples ||
          (samples.ns.size() >= 3 && Clock::now() > deadline)) {
        run.scenarios = std::max(run.scenarios, used);
        return;
      }
      draplane::api::ResourceClaim& claim = claims[round * bc.per_node + n];
      claim.metadata.name = StrCat("claim-", round, "-", n);
      Outcome o = once(nodes[n], {&claim}, state);
      if (samples.ns.size() == 1 && warm) run.outcome = OutcomeName(o);
      used = std::max(used, n + 1);
      if (o.kind == OutcomeKind::kAllocated) {
        state.AddAllocation(o.results[0], sc.features.consumable_capacity);
      }
    }
  }
  run.scenarios = std::max(run.scenarios, used);
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  int64_t budget_ms = 8000;
  std::vector<std::string> only;
  std::string mode = "both";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--scenarios") {
      dir = value();
    } else if (a == "--budget-ms") {
      budget_ms = std::stoll(value());
    } else if (a == "--mode") {
      mode = value();
    } else if (a == "--only") {
      std::stringstream ss(value());
      for (std::string s; std::getline(ss, s, ',');) only.push_back(s);
    } else {
      std::cerr << "usage: allocator_benchmark --scenarios DIR [--budget-ms N] "
                   "[--only NAME,...] [--mode warm|cold|both]\n";
      return 2;
    }
  }
  if (dir.empty()) {
    std::cerr
        << "--scenarios DIR is required (draref bench --write-scenarios DIR)\n";
    return 2;
  }
  draplane::api::Json report = draplane::api::Json::object();
  report["implementation"] = "draplane allocator";
  report["classes"] = draplane::api::Json::array();
  for (const BenchClass& bc : kClasses) {
    if (!only.empty() &&
        std::find(only.begin(), only.end(), bc.name) == only.end()) {
      continue;
    }
    const std::string path = StrCat(dir, "/bench-", bc.name, ".yaml");
    std::ifstream f(path);
    if (!f) {
      std::cerr << "cannot read " << path << "\n";
      return 1;
    }
    std::stringstream text;
    text << f.rdbuf();
    auto sc = ParseScenario(text.str(), path);
    if (!sc.ok()) {
      std::cerr << sc.status().message() << "\n";
      return 1;
    }
    Run run;
    // Half the budget each; the cold run of a class never exceeds 2000
    // samples (it converts every device each time).
    if (mode != "cold") {
      RunClass(bc, *sc, true, std::chrono::milliseconds(budget_ms / 2), run);
    }
    if (mode != "warm") {
      RunClass(bc, *sc, false, std::chrono::milliseconds(budget_ms / 2), run);
    }
    draplane::api::Json c = draplane::api::Json::object();
    c["name"] = bc.name;
    c["title"] = bc.title;
    c["scenarios"] = run.scenarios;
    c["allocations"] = run.warm.ns.size();
    c["median_ns"] = Median(run.warm.ns);
    c["p99_ns"] = P99(run.warm.ns);
    c["cold_median_ns"] = Median(run.cold.ns);
    c["cold_p99_ns"] = P99(run.cold.ns);
    c["timeouts"] = run.warm.timeouts + run.cold.timeouts;
    c["steps_median"] = Median(run.warm.steps);
    c["allocs_median"] = Median(run.warm.allocs);
    c["outcome"] = run.outcome;
    report["classes"].push_back(std::move(c));
  }
  std::cout << draplane::api::DumpJson(report, 2) << "\n";
  return 0;
}
