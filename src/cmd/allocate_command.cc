// `draplane allocate`: runs the structured allocator on a scenario file
// (docs/scenario-format.md) and prints the result document.
#include <iostream>
#include <memory>

#include "api/manifest.h"
#include "cmd/command_help.h"
#include "cmd/commands.h"
#include "cmd/manifest_inputs.h"
#include "common/str_cat.h"
#include "scenario/scenario.h"

namespace draplane::cmd {
namespace {

struct AllocateFlags {
  std::vector<std::string> files;
  std::string node;
  std::string output = "table";
  bool explain = false;
  bool compact = false;
  bool validate = false;
  std::vector<std::string> fixes;
  double timeout_seconds = 10;
};

constexpr int kExitAllocated = 0;
constexpr int kExitInvalid = 1;
constexpr int kExitNotAllocated = 3;

int RunAllocate(const AllocateFlags& flags, Streams streams) {
  if (flags.output != "json" && flags.output != "yaml" &&
      flags.output != "table") {
    streams.err << "error: --output must be json, yaml or table, not \""
                << flags.output << "\"\n";
    return 2;
  }
  auto print = [&](const api::Json& doc) {
    if (flags.output == "yaml") {
      streams.out << api::ToYaml(doc);
    } else {
      streams.out << api::DumpJson(doc, flags.compact ? -1 : 2) << "\n";
    }
  };
  auto inputs = ReadManifestInputs(flags.files, false, std::cin);
  absl::StatusOr<scenario::Scenario> scenario =
      absl::InvalidArgumentError("no input");
  if (!inputs.ok()) {
    scenario = inputs.status();
  } else {
    std::vector<scenario::ScenarioInput> parts;
    for (ManifestInput& in : *inputs) {
      parts.push_back({std::move(in.text), std::move(in.source)});
    }
    scenario::ParseOptions parse;
    parse.validate = flags.validate;
    scenario = scenario::ParseScenario(parts, parse);
  }
  if (!scenario.ok()) {
    if (flags.output == "table") {
      streams.err << "error: " << scenario.status().message() << "\n";
    } else {
      print(scenario::InvalidScenarioDocument(
          std::string(scenario.status().message())));
    }
    return kExitInvalid;
  }
  if (!flags.node.empty()) scenario->node = flags.node;

  scenario::RunOptions options;
  options.explain = true;
  for (const std::string& fix : flags.fixes) {
    if (fix == "admin-access-counters") {
      options.fixes.admin_access_skips_counters = true;
    } else {
      streams.err << "error: unknown --fix \"" << fix
                  << "\" (known: admin-access-counters)\n";
      return 2;
    }
  }
  options.timeout = flags.timeout_seconds > 0
                        ? absl::Seconds(flags.timeout_seconds)
                        : absl::ZeroDuration();
  allocator::Outcome outcome = scenario::RunScenario(*scenario, options);
  if (flags.output == "table") {
    allocator::Outcome shown = outcome;
    if (!flags.explain) shown.explanations.clear();
    streams.out << scenario::ResultTable(*scenario, shown);
    if (!flags.explain &&
        outcome.kind == allocator::OutcomeKind::kUnallocatable) {
      streams.out << "\n(run with --explain for the reasons)\n";
    }
  } else {
    print(scenario::ResultDocument(*scenario, outcome));
  }
  switch (outcome.kind) {
    case allocator::OutcomeKind::kAllocated:
      return kExitAllocated;
    case allocator::OutcomeKind::kFatal:
      if (flags.output == "table") {
        // ResultTable already printed the error line.
      }
      return kExitInvalid;
    default:
      return kExitNotAllocated;
  }
}

}  // namespace

void RegisterAllocate(CLI::App& app, Streams streams, int* exit_code) {
  auto flags = std::make_shared<AllocateFlags>();
  CLI::App* cmd = AddCommand(
      app, "allocate",
      "Allocate a scenario's claims as Kubernetes 1.37 would, or say why not",
      "Allocate devices for the claims of a scenario file exactly as\n"
      "Kubernetes 1.37's structured allocator would (same devices, same\n"
      "order, same errors), and say why when it cannot.\n\n"
      "The scenario (docs/scenario-format.md) holds ResourceSlices,\n"
      "DeviceClasses, DeviceTaintRules, Nodes, claims already allocated\n"
      "and the claims to allocate together on one node.\n\n"
      "Beyond upstream: the search prunes choices that cannot change the\n"
      "answer (so it finishes where upstream times out), and unallocated\n"
      "claims get `reasons`: per request, how many devices the node offers\n"
      "and what removed the others (selectors, other claims, taints,\n"
      "capacity, counters, constraints).\n\n"
      "Output: -o json prints the result document (identical to the\n"
      "reference oracle's, plus `reasons`); yaml the same as YAML; table a\n"
      "device list (--explain adds the reasons).\n\n"
      "Exit status: 0 every claim allocated; 3 not allocatable on this node\n"
      "(also invalid pools, timeout); 1 invalid scenario or an allocation\n"
      "error (bad CEL, unknown class...); 2 usage.\n\n"
      "Example:\n"
      "  draplane allocate -f scenario.yaml --explain\n"
      "  draplane allocate -f "
      "tests/scenarios/claims-compete-for-one-device.yaml "
      "--explain\n"
      "  draplane allocate -f scenario.yaml --node node2 -o json");
  cmd->add_option("-f,--filename", flags->files,
                  "Scenario file (YAML or JSON stream), directory, or - for "
                  "standard input; repeatable: the files are read as one "
                  "scenario (e.g. a header with claims plus the cluster's "
                  "slices and classes)")
      ->required();
  cmd->add_option("--node", flags->node,
                  "Allocate on this node instead of the scenario's spec.node");
  cmd->add_option("-o,--output", flags->output, "json, yaml or table")
      ->capture_default_str();
  cmd->add_flag("--explain", flags->explain,
                "Table output: explain unallocated claims");
  cmd->add_flag("--compact", flags->compact, "JSON on one line");
  cmd->add_flag("--validate", flags->validate,
                "First validate every object as the API server would on "
                "create (like `draplane validate`); an invalid one is an "
                "input error (exit 1) with its field errors. Off by default, "
                "like upstream's allocator, which trusts its input");
  cmd->add_option("--fix", flags->fixes,
                  "Do the right thing where upstream 1.37 has a known bug "
                  "(draplane goes beyond upstream; default: exactly "
                  "upstream). admin-access-counters: adminAccess requests do "
                  "not reserve shared counters (kubernetes#140729); "
                  "repeatable");
  cmd->add_option("--timeout", flags->timeout_seconds,
                  "Give up after this many seconds (kube-scheduler's Filter "
                  "timeout; 0 = none)")
      ->capture_default_str();
  cmd->callback([flags, streams, exit_code] {
    *exit_code = RunAllocate(*flags, streams);
  });
}

}  // namespace draplane::cmd
