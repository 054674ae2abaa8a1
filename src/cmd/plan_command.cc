// draplane plan mig: MIG capacity planning (src/mig_planner).
#include <fstream>
#include <memory>
#include <sstream>

#include "api/manifest.h"
#include "api/object.h"
#include "cmd/command_help.h"
#include "cmd/commands.h"
#include "mig_planner/mig_planner.h"

namespace draplane::cmd {

namespace {

struct PlanFlags {
  std::string inventory;
  std::string demand;
  std::string output = "table";
};

bool ReadAll(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

int RunPlanMig(const PlanFlags& f, Streams streams) {
  if (f.output != "table" && f.output != "json" && f.output != "yaml") {
    streams.err << "error: -o must be table, json or yaml\n";
    return 2;
  }
  std::string inventory, demand;
  if (!ReadAll(f.inventory, &inventory)) {
    streams.err << "error: " << f.inventory << ": cannot open\n";
    return 1;
  }
  if (!ReadAll(f.demand, &demand)) {
    streams.err << "error: " << f.demand << ": cannot open\n";
    return 1;
  }
  auto input =
      mig_planner::ParsePlanInput(inventory, f.inventory, demand, f.demand);
  if (!input.ok()) {
    streams.err << "error: " << input.status().message() << "\n";
    return 1;
  }
  const mig_planner::Plan best = mig_planner::PlanOptimized(*input);
  const mig_planner::Plan baseline = mig_planner::PlanFirstFit(*input);
  if (f.output == "json") {
    streams.out << api::DumpJson(mig_planner::PlanJson(*input, best, baseline))
                << "\n";
  } else if (f.output == "yaml") {
    streams.out << api::ToYamlStream(mig_planner::PublishedSlices(best));
  } else {
    streams.out << mig_planner::PlanReport(*input, best, baseline);
  }
  return 0;
}

}  // namespace

void RegisterPlan(CLI::App& app, Streams streams, int* exit_code) {
  CLI::App* plan = AddCommand(app, "plan", "Capacity planning", "");
  plan->require_subcommand(1);
  auto f = std::make_shared<PlanFlags>();
  CLI::App* mig = AddCommand(
      *plan, "mig", "Choose a MIG layout per GPU for a demand of MIG instances",
      "Choose a MIG layout per GPU for a demand of MIG instances.\n\n"
      "Inventory (YAML): gpus: [{model: H100, count: 8, node: gpu-1}, ...]\n"
      "  (models: A100-40GB, A100-80GB-PCIE, A100-80GB-SXM, H100, H200, ...)\n"
      "Demand (YAML): demand: [{profile: 1g.10gb, count: 12, namespace: "
      "ml}]\n\n"
      "Layouts follow NVIDIA's placement rules (each profile only at the\n"
      "memory slices NVML allows, no slice used twice, the profile's\n"
      "instance limit, 7 compute slices). The plan satisfies the most\n"
      "demand, counted in compute slices, then uses the fewest GPUs; it is\n"
      "compared with first fit (each instance at the first legal place, in\n"
      "demand order). -o yaml prints the ResourceSlices the node driver\n"
      "would publish once the layout is created (static MIG).\n\n"
      "Example:\n"
      "  draplane plan mig --inventory examples/mig-plan/inventory.yaml \\\n"
      "      --demand examples/mig-plan/demand.yaml");
  mig->add_option("--inventory", f->inventory, "GPU inventory YAML")
      ->required();
  mig->add_option("--demand", f->demand, "MIG demand YAML")->required();
  mig->add_option("-o,--output", f->output, "table, json or yaml")
      ->capture_default_str();
  mig->callback(
      [f, streams, exit_code]() { *exit_code = RunPlanMig(*f, streams); });
}

}  // namespace draplane::cmd
