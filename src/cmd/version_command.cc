#include <iostream>
#include <memory>
#include <string>

#include "api/meta_types.h"
#include "cmd/command_help.h"
#include "cmd/commands.h"
#include "common/version.h"

namespace draplane::cmd {

void RegisterVersion(CLI::App& app, Streams streams, int* exit_code) {
  CLI::App* cmd = AddCommand(
      app, "version",
      "Print the draplane version and the Kubernetes API it implements",
      "Print the draplane version and the Kubernetes release whose API it "
      "serves and implements (what the API server's /version reports: "
      "v1.37.2+draplane.<version>, as k3s reports v1.30.2+k3s1).\n\n"
      "Examples:\n  draplane version\n  draplane version -o json");
  auto output = std::make_shared<std::string>("text");
  cmd->add_option("-o,--output", *output, "text or json")
      ->capture_default_str();
  cmd->callback([streams, exit_code, output] {
    if (*output == "json") {
      api::Json v = {{"version", std::string(DraplaneVersion())},
                     {"kubernetesVersion", std::string(kKubernetesVersion)},
                     {"gitVersion", KubernetesGitVersion()},
                     {"resourceAPIVersions", {"v1", "v1beta2", "v1beta1"}}};
      streams.out << api::DumpJson(v, 2) << "\n";
      *exit_code = 0;
      return;
    }
    if (*output != "text") {
      streams.err << "error: --output must be text or json, not \"" << *output
                  << "\"\n";
      *exit_code = 2;
      return;
    }
    streams.out << "draplane " << DraplaneVersion() << "\n"
                << "Kubernetes " << KubernetesGitVersion()
                << ": resource.k8s.io v1 (also serves v1beta2, v1beta1), as "
                   "of Kubernetes "
                << kKubernetesVersion << "\n";
    *exit_code = 0;
  });
}

void RegisterAll(CLI::App& app, Streams streams, int* exit_code) {
  app.formatter(HelpFormatter());
  app.footer(
      "\nRun 'draplane COMMAND --help' for a command's details and examples."
      "\n\nExamples:\n"
      "  draplane server --nodes examples/standalone/inventory.yaml\n"
      "  draplane validate -f examples/standalone/guide-corrected/\n"
      "  draplane explain pod my-pod -n my-namespace");
  app.require_subcommand(0, 1);
  RegisterVersion(app, streams, exit_code);
  RegisterValidate(app, streams, exit_code);
  RegisterConvert(app, streams, exit_code);
  RegisterCel(app, streams, exit_code);
  RegisterAllocate(app, streams, exit_code);
  RegisterServer(app, streams, exit_code);
  RegisterKubeconfig(app, streams, exit_code);
  RegisterCerts(app, streams, exit_code);
  RegisterStore(app, streams, exit_code);
  RegisterScheduler(app, streams, exit_code);
  RegisterController(app, streams, exit_code);
  RegisterNode(app, streams, exit_code);
  RegisterMigrate(app, streams, exit_code);
  RegisterSim(app, streams, exit_code);
  RegisterPlan(app, streams, exit_code);
  RegisterClusterReports(app, streams, exit_code);
  RegisterCompletion(app, streams, exit_code);
}

int RunMain(int argc, const char* const* argv, Streams streams) {
  CLI::App app(
      "draplane: Kubernetes Dynamic Resource Allocation (DRA) for GPU "
      "clusters",
      "draplane");
  int exit_code = 0;
  RegisterAll(app, streams, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 reports --help as a "success" parse error.
    int code = app.exit(e, streams.out, streams.err);
    return code == 0 ? 0 : 2;  // usage errors exit like unreadable input
  }
  if (app.get_subcommands().empty()) {
    streams.out << app.help();
    return 0;
  }
  return exit_code;
}

}  // namespace draplane::cmd
