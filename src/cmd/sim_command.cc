// draplane sim: the trace-driven scheduling simulator (src/sim).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "absl/strings/numbers.h"
#include "api/object.h"
#include "cmd/command_help.h"
#include "cmd/commands.h"
#include "common/str_cat.h"
#include "scheduler/scoring_policy.h"
#include "sim/fgd_report.h"
#include "sim/fgd_simulator.h"
#include "sim/trace.h"

namespace draplane::cmd {

namespace {

struct FgdFlags {
  std::string nodes;
  std::string pods;
  std::string policy = "draplane";
  std::string seeds = "42-51";
  double target = 1.3;
  std::string output = "table";
  std::string report;
  std::string published;
  int jobs = 0;
  bool no_progress = false;
};

// "42-51", "42,44,50-51".
absl::StatusOr<std::vector<uint64_t>> ParseSeeds(const std::string& text) {
  std::vector<uint64_t> seeds;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    size_t dash = part.find('-');
    uint64_t a = 0, b = 0;
    bool ok = dash == std::string::npos
                  ? absl::SimpleAtoi(part, &a) && (b = a, true)
                  : absl::SimpleAtoi(part.substr(0, dash), &a) &&
                        absl::SimpleAtoi(part.substr(dash + 1), &b);
    if (!ok || b < a || b - a > 10000) {
      return absl::InvalidArgumentError(StrCat(
          "--seeds: \"", part, "\" is not a seed or a range like 42-51"));
    }
    for (uint64_t s = a; s <= b; ++s) seeds.push_back(s);
  }
  if (seeds.empty()) return absl::InvalidArgumentError("--seeds: no seeds");
  return seeds;
}

int RunFgdCommand(const FgdFlags& f, Streams streams) {
  if (f.output != "table" && f.output != "json") {
    streams.err << "error: -o must be table or json\n";
    return 2;
  }
  if (!(f.target > 0 && f.target <= 3)) {
    streams.err << "error: --target must be in (0, 3]\n";
    return 2;
  }
  absl::StatusOr<std::vector<uint64_t>> seeds = ParseSeeds(f.seeds);
  if (!seeds.ok()) {
    streams.err << "error: " << seeds.status().message() << "\n";
    return 2;
  }
  auto nodes = sim::LoadNodeList(f.nodes);
  if (!nodes.ok()) {
    streams.err << "error: " << nodes.status().message() << "\n";
    return 1;
  }
  auto pods = sim::LoadPodList(f.pods);
  if (!pods.ok()) {
    streams.err << "error: " << pods.status().message() << "\n";
    return 1;
  }
  sim::FgdOptions options;
  options.policy = f.policy;
  options.seeds = *seeds;
  options.target = f.target;
  options.jobs = f.jobs;
  const bool tty = isatty(STDERR_FILENO) != 0;
  if (!f.no_progress && tty) {
    options.progress = [&streams](int64_t done, int64_t total) {
      const int width = 30;
      const int filled =
          static_cast<int>(width * done / std::max<int64_t>(1, total));
      streams.err << "\r[" << std::string(filled, '#')
                  << std::string(width - filled, ' ') << "] " << done << "/"
                  << total << " pods" << std::flush;
      if (done == total) streams.err << "\n";
    };
  }
  absl::StatusOr<sim::FgdResult> result = sim::RunFgd(*nodes, *pods, options);
  if (!result.ok()) {
    streams.err << "error: " << result.status().message() << "\n";
    return absl::IsInvalidArgument(result.status()) ? 2 : 1;
  }
  if (f.output == "json") {
    streams.out << api::DumpJson(sim::FgdResultJson(*result)) << "\n";
  } else {
    streams.out << sim::FgdResultTable(*result);
  }
  if (!f.report.empty()) {
    sim::ReportInput input;
    input.results.push_back(&*result);
    input.workload_name = f.pods;
    input.published_path = f.published;
    absl::Status written = sim::WriteFgdReport(f.report, input);
    if (!written.ok()) {
      streams.err << "error: " << written.message() << "\n";
      return 1;
    }
    streams.err << "report: " << f.report << "/index.html\n";
  }
  return 0;
}

}  // namespace

void RegisterSim(CLI::App& app, Streams streams, int* exit_code) {
  CLI::App* sim = AddCommand(
      app, "sim", "Trace-driven scheduling simulations",
      "Trace-driven scheduling simulations (draplane's own scheduler, "
      "in process)");
  sim->require_subcommand(1);
  auto f = std::make_shared<FgdFlags>();
  std::string policies;
  for (std::string_view n : scheduler::PolicyNames()) {
    StrAppend(&policies, policies.empty() ? "" : ", ", n);
  }
  CLI::App* fgd = AddCommand(
      *sim, "fgd", "Replay the FGD paper's experiment on the Alibaba GPU trace",
      "The experiment of \"Beware of Fragmentation\" (Weng et al., USENIX\n"
      "ATC 2023) on the Alibaba GPU trace 2023 (openb CSV files): per seed,\n"
      "shuffle the pods, resample them with replacement up to --target x\n"
      "the cluster's GPUs, let every pod arrive once and schedule it with\n"
      "draplane's scheduler (filters, DRA allocator with consumable GPU\n"
      "shares, the chosen scoring policy); nothing leaves, nothing retries.\n"
      "Prints the unallocated GPU share at 90/95/100/110/130 % arrived\n"
      "demand per seed and mean, the fragmentation rate, failed pods by\n"
      "type and wall time. Seeds run in parallel (--jobs).\n\n"
      "Beyond the paper: the random numbers are not Go's, so a seed gives\n"
      "another (equivalent) sample than the paper's runs; the policy\n"
      "`draplane` is draplane's own (docs/scheduling-policies.md).\n\n"
      "Example:\n"
      "  draplane sim fgd --nodes openb_node_list_gpu_node.csv \\\n"
      "      --pods openb_pod_list_default.csv --policy fgd --seeds 42-51");
  fgd->add_option("--nodes", f->nodes, "Node list CSV (openb format)")
      ->required();
  fgd->add_option("--pods", f->pods, "Pod list CSV (openb format)")->required();
  fgd->add_option("--policy", f->policy, StrCat("Scoring policy: ", policies))
      ->capture_default_str();
  fgd->add_option("--seeds", f->seeds, "Seeds: N, A-B or a comma list")
      ->capture_default_str();
  fgd->add_option("--target", f->target,
                  "Resample the pods up to this multiple of the cluster's "
                  "GPUs")
      ->capture_default_str();
  fgd->add_option("-o,--output", f->output, "table or json")
      ->capture_default_str();
  fgd->add_option("--report", f->report,
                  "Write an HTML report with SVG charts into DIR");
  fgd->add_option("--published", f->published,
                  "The FGD paper's analysis_allo_discrete.csv, drawn in the "
                  "report (default: under $DRAPLANE_SHARED_DIR)");
  fgd->add_option("--jobs", f->jobs, "Seeds run at once (0 = CPUs)")
      ->capture_default_str();
  fgd->add_flag("--no-progress", f->no_progress,
                "No progress bar (it is drawn only on a terminal anyway)");
  fgd->callback(
      [f, streams, exit_code]() { *exit_code = RunFgdCommand(*f, streams); });
}

}  // namespace draplane::cmd
