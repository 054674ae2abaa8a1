// `draplane inventory`, `draplane explain pod|claim` and `draplane doctor`:
// reports on a live cluster (draplane standalone or any Kubernetes API
// server, by kubeconfig). src/operator_tools has what each one checks.
#include <memory>

#include "absl/time/time.h"
#include "cmd/command_help.h"
#include "cmd/commands.h"
#include "cmd/component_support.h"
#include "common/str_cat.h"
#include "operator_tools/cluster_snapshot.h"
#include "operator_tools/doctor.h"
#include "operator_tools/inventory_report.h"
#include "operator_tools/pending_explainer.h"

namespace draplane::cmd {
namespace {

namespace ot = operator_tools;

constexpr int kExitProblems = 3;

struct ConnectionFlags {
  std::string kubeconfig;
  std::string context;
};

void AddConnectionFlags(CLI::App* cmd, ConnectionFlags* flags) {
  cmd->add_option("--kubeconfig", flags->kubeconfig,
                  "kubeconfig file (default $KUBECONFIG, else ~/.kube/config, "
                  "else the in-cluster configuration; `draplane server` "
                  "writes one)");
  cmd->add_option("--context", flags->context,
                  "kubeconfig context (default: the current one)");
}

absl::StatusOr<ot::ClusterSnapshot> Snapshot(const ConnectionFlags& flags,
                                             const std::string& command,
                                             ot::SnapshotOptions options) {
  RemoteApiFlags remote;
  remote.kubeconfig = flags.kubeconfig;
  remote.context = flags.context;
  remote.qps = kKubectlRateLimit.qps;
  remote.burst = kKubectlRateLimit.burst;
  client::RestConfig config;
  auto client = ConnectRemote(remote, StrCat("draplane-", command), &config);
  if (!client.ok()) return client.status();
  return ot::TakeSnapshot(**client, options);
}

bool CheckOutput(const std::string& output, Streams streams) {
  if (output == "table" || output == "json") return true;
  streams.err << "error: --output must be table or json, not \"" << output
              << "\"\n";
  return false;
}

// ---- inventory

struct InventoryFlags {
  ConnectionFlags connection;
  std::string output = "table";
};

int RunInventory(const InventoryFlags& flags, Streams streams) {
  if (!CheckOutput(flags.output, streams)) return 2;
  auto snapshot = Snapshot(flags.connection, "inventory", {});
  if (!snapshot.ok()) {
    streams.err << "error: " << snapshot.status().message() << "\n";
    return 1;
  }
  ot::InventoryReport report = ot::BuildInventory(*snapshot);
  if (flags.output == "json") {
    streams.out << api::DumpJson(ot::InventoryJson(report), 2) << "\n";
  } else {
    streams.out << ot::InventoryTable(report);
  }
  return 0;
}

// ---- explain

struct ExplainFlags {
  ConnectionFlags connection;
  std::string kind;
  std::string name;
  std::string ns = "default";
  std::string node;
  std::string output = "table";
};

int RunExplain(const ExplainFlags& flags, Streams streams) {
  std::string output = flags.output == "text" ? "table" : flags.output;
  if (!CheckOutput(output, streams)) return 2;
  std::string kind = flags.kind;
  if (kind == "pods" || kind == "po") kind = "pod";
  if (kind == "resourceclaim" || kind == "resourceclaims") kind = "claim";
  if (kind != "pod" && kind != "claim") {
    streams.err << "error: explain takes pod or claim, not \"" << flags.kind
                << "\"\n";
    return 2;
  }
  ot::SnapshotOptions options;
  options.quotas = false;
  auto snapshot = Snapshot(flags.connection, "explain", options);
  if (!snapshot.ok()) {
    streams.err << "error: " << snapshot.status().message() << "\n";
    return 1;
  }
  ot::ExplainOptions explain;
  explain.node = flags.node;
  absl::StatusOr<ot::Explanation> e =
      kind == "pod"
          ? ot::ExplainPod(*snapshot, flags.ns, flags.name, explain)
          : ot::ExplainClaim(*snapshot, flags.ns, flags.name, explain);
  if (!e.ok()) {
    streams.err << "error: " << e.status().message() << "\n";
    return 1;
  }
  if (output == "json") {
    streams.out << api::DumpJson(ot::ExplanationJson(*e), 2) << "\n";
  } else {
    streams.out << ot::ExplanationText(*e);
  }
  return 0;
}

// ---- doctor

struct DoctorFlags {
  ConnectionFlags connection;
  std::string output = "table";
  std::string pending_threshold = "5m";
  std::string event_window = "1h";
  double quota_fraction = 0.9;
  std::string driver_namespace = "nvidia-dra-driver";
  std::string driver_selector = "app=nvidia-dra-driver-kubelet-plugin";
};

int RunDoctorCommand(const DoctorFlags& flags, Streams streams) {
  if (!CheckOutput(flags.output, streams)) return 2;
  ot::DoctorOptions options;
  for (auto [text, out, name] :
       {std::tuple<const std::string&, absl::Duration*, const char*>{
            flags.pending_threshold, &options.pending_threshold,
            "--pending-threshold"},
        {flags.event_window, &options.event_window, "--event-window"}}) {
    if (!absl::ParseDuration(text, out) || *out < absl::ZeroDuration()) {
      streams.err << "error: " << name << " wants a duration like 5m or 1h30m, "
                  << "not \"" << text << "\"\n";
      return 2;
    }
  }
  if (flags.quota_fraction <= 0 || flags.quota_fraction > 1) {
    streams.err << "error: --quota-fraction must be in (0, 1]\n";
    return 2;
  }
  options.quota_fraction = flags.quota_fraction;
  options.driver_namespace = flags.driver_namespace;
  options.driver_selector = flags.driver_selector;
  auto snapshot = Snapshot(flags.connection, "doctor", {});
  if (!snapshot.ok()) {
    streams.err << "error: " << snapshot.status().message() << "\n";
    return 1;
  }
  std::vector<ot::CheckResult> results = ot::RunDoctor(*snapshot, options);
  if (flags.output == "json") {
    streams.out << api::DumpJson(ot::DoctorJson(results), 2) << "\n";
  } else {
    streams.out << ot::DoctorText(results);
  }
  return ot::HasProblems(results) ? kExitProblems : 0;
}

}  // namespace

void RegisterClusterReports(CLI::App& app, Streams streams, int* exit_code) {
  {
    auto flags = std::make_shared<InventoryFlags>();
    CLI::App* cmd = AddCommand(
        app, "inventory",
        "Report GPU use: extended resources, DRA devices, claims",
        "The guide's migration phase 1 in one command, on a live\n"
        "cluster: pods that use GPUs as extended resources (nvidia.com/gpu,\n"
        "nvidia.com/mig-*, other GPU resources) with totals per namespace,\n"
        "nodes with GPU capacity and allocatable and their DRA devices,\n"
        "ResourceSlice devices by driver and model (allocated, on how many\n"
        "nodes), DeviceClasses and how many devices each selects, and claims\n"
        "by state per namespace.\n\n"
        "Examples:\n"
        "  draplane inventory --kubeconfig /tmp/draplane/kubeconfig\n"
        "  draplane inventory -o json | jq '.extendedResourcePods'");
    AddConnectionFlags(cmd, &flags->connection);
    cmd->add_option("-o,--output", flags->output, "table or json")
        ->capture_default_str();
    cmd->callback([flags, streams, exit_code]() {
      *exit_code = RunInventory(*flags, streams);
    });
  }
  {
    auto flags = std::make_shared<ExplainFlags>();
    CLI::App* cmd = AddCommand(
        app, "explain", "Explain, node by node, why a pod or claim is pending",
        "Why a pod or claim is pending, node by node, from the live cluster:\n"
        "the scheduler's node filters (upstream's texts) and the allocator's\n"
        "explanation per claim and request (how many devices the node\n"
        "offers, what each selector, other claims, taints, capacity, counters\n"
        "and constraints removed), or the devices a node would give. Beyond\n"
        "upstream: kube-scheduler only says \"cannot allocate all claims\".\n\n"
        "Examples:\n"
        "  draplane explain pod distributed-training -n ml-workloads\n"
        "  draplane explain claim training-gpu-claim -n ml-workloads "
        "--node node2\n"
        "  draplane explain pod trainer -o json");
    AddConnectionFlags(cmd, &flags->connection);
    cmd->add_option("kind", flags->kind, "pod or claim")->required();
    cmd->add_option("name", flags->name, "its name")->required();
    cmd->add_option("-n,--namespace", flags->ns, "its namespace")
        ->capture_default_str();
    cmd->add_option("--node", flags->node, "only this node");
    cmd->add_option("-o,--output", flags->output, "table (text) or json")
        ->capture_default_str();
    cmd->callback([flags, streams, exit_code]() {
      *exit_code = RunExplain(*flags, streams);
    });
  }
  {
    auto flags = std::make_shared<DoctorFlags>();
    CLI::App* cmd = AddCommand(
        app, "doctor",
        "Check a live cluster against the guide's checklist and failure cases",
        "The guide's checklist and failure cases, checked on a live\n"
        "cluster. Each finding names the object and the command that fixes\n"
        "it (or finds out more). Checks: dra-api (resource.k8s.io/v1\n"
        "served), drivers (slices published; GPU nodes without slices),\n"
        "pools (incomplete, stale generations, nodes gone or not Ready),\n"
        "device-classes (selectors that do not compile or select nothing,\n"
        "with the closest attribute names), pending-claims (older than\n"
        "--pending-threshold), leaks (devices held for deleted or finished\n"
        "pods, for nothing, or on failed nodes; claims stuck deleting),\n"
        "quota (claim quotas near their limit), plugin-errors (failed\n"
        "NodePrepareResources/NodeUnprepareResources events per node),\n"
        "device-taints (devices tainted unhealthy by their driver).\n\n"
        "Exit status: 0 no problem, 3 warnings or errors found, 1 the cluster\n"
        "could not be read, 2 usage.\n\n"
        "Examples:\n"
        "  draplane doctor --kubeconfig /tmp/draplane/kubeconfig\n"
        "  draplane doctor --pending-threshold 10m -o json");
    AddConnectionFlags(cmd, &flags->connection);
    cmd->add_option("-o,--output", flags->output, "table or json")
        ->capture_default_str();
    cmd->add_option("--pending-threshold", flags->pending_threshold,
                    "Claims pending longer than this are reported ("
                    "the guide's alert threshold)")
        ->capture_default_str();
    cmd->add_option("--event-window", flags->event_window,
                    "Plugin error events younger than this are reported")
        ->capture_default_str();
    cmd->add_option("--quota-fraction", flags->quota_fraction,
                    "Quotas used to at least this fraction are reported")
        ->capture_default_str();
    cmd->add_option("--driver-namespace", flags->driver_namespace,
                    "Namespace of the DRA driver, for the fix commands")
        ->capture_default_str();
    cmd->add_option("--driver-selector", flags->driver_selector,
                    "Label selector of the driver's kubelet plugin pods, for "
                    "the fix commands")
        ->capture_default_str();
    cmd->callback([flags, streams, exit_code]() {
      *exit_code = RunDoctorCommand(*flags, streams);
    });
  }
}

}  // namespace draplane::cmd
