// The scenario format (docs/scenario-format.md): allocation problems as
// YAML/JSON streams, shared by `draplane allocate`, the tests, the
// benchmarks and the fuzzers, and read by the upstream oracle (draref) too.
#ifndef DRAPLANE_SCENARIO_SCENARIO_H_
#define DRAPLANE_SCENARIO_SCENARIO_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "allocator/allocated_state.h"
#include "allocator/allocator.h"
#include "allocator/features.h"
#include "api/core_types.h"
#include "api/resource_types.h"

namespace draplane::scenario {

// An allocation problem in the scenario format (docs/scenario-format.md):
// a cluster state plus the claims to allocate together on one node.
struct Scenario {
  std::string name;
  std::map<std::string, std::string> annotations;  // of the header
  std::string node;
  std::vector<std::string> feature_names;  // sorted
  allocator::Features features;

  std::vector<api::ResourceSlice> slices;
  std::vector<api::DeviceClass> classes;
  std::vector<api::DeviceTaintRule> taint_rules;
  std::vector<api::ResourceClaim> claims;  // defaulted, stream order
  std::vector<api::Node> nodes;
  std::vector<api::Namespace> namespaces;
};

// Parses a YAML or JSON stream. Errors (InvalidArgument) name the source
// and the object: "FILE: object #3 (resource.k8s.io/v1 ResourceClaim): ...".
absl::StatusOr<Scenario> ParseScenario(std::string_view text,
                                       std::string_view source);
// The same for a scenario split over several streams, read in order as one
// (e.g. a header file plus the cluster's slices and classes).
struct ScenarioInput {
  std::string text;
  std::string source;
};
struct ParseOptions {
  // Also validate every object as the API server would on create
  // (api::ValidateObject, CEL selectors compiled); the first invalid object
  // fails the parse with its field errors.
  bool validate = false;
};
absl::StatusOr<Scenario> ParseScenario(const std::vector<ScenarioInput>& inputs,
                                       const ParseOptions& options = {});

// The allocator's inputs, prepared as kube-scheduler's PreFilter does.
struct ScenarioInputs {
  std::vector<api::ResourceSlice> slices;  // DeviceTaintRule taints applied
  allocator::AllocatedState state;
  api::Node node;
  std::vector<const api::ResourceClaim*> claims;  // without status.allocation
};
ScenarioInputs BuildInputs(const Scenario& scenario);

struct RunOptions {
  bool explain = false;
  allocator::UpstreamFixes fixes;              // default: exactly upstream
  absl::Duration timeout = absl::Seconds(10);  // kube-scheduler's default
};

// Allocates the scenario and returns the outcome.
allocator::Outcome RunScenario(const Scenario& scenario,
                               const RunOptions& options);

// The result document (identical to draref's; shareIDs replaced by
// "<share-id>"), plus "reasons" per claim when explanations were built.
api::Json ResultDocument(const Scenario& scenario,
                         const allocator::Outcome& outcome);

// The document for a file that is not a valid scenario.
api::Json InvalidScenarioDocument(std::string_view message);

// The result as a table: one row per allocated device, or per claim with
// its reasons.
std::string ResultTable(const Scenario& scenario,
                        const allocator::Outcome& outcome);

}  // namespace draplane::scenario

#endif  // DRAPLANE_SCENARIO_SCENARIO_H_
