// Feeds arbitrary bytes through `draplane allocate`: scenario parsing,
// allocation (with explanations, under a short deadline) and the result
// document. Every allocation returned must pass CheckAllocation. Any crash,
// sanitizer report, hang or invalid allocation is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "allocator/allocation_check.h"
#include "scenario/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace draplane::allocator;
  using namespace draplane::scenario;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto scenario = ParseScenario(text, "fuzz");
  if (!scenario.ok()) return 0;
  ScenarioInputs in = BuildInputs(*scenario);
  Allocator allocator(scenario->features, in.slices, scenario->classes);
  AllocateOptions options;
  options.explain = true;
  options.deadline = absl::Now() + absl::Seconds(1);
  Outcome outcome = allocator.Allocate(in.node, in.claims, in.state, options);
  (void)ResultDocument(*scenario, outcome);
  if (outcome.kind == OutcomeKind::kAllocated) {
    AllocationInputs check{scenario->features, &in.slices, &scenario->classes,
                           &in.node,           &in.claims, &in.state};
    if (absl::Status valid = CheckAllocation(check, outcome.results);
        !valid.ok()) {
      std::fprintf(stderr, "invalid allocation: %s\n",
                   std::string(valid.message()).c_str());
      std::abort();
    }
  }
  return 0;
}
