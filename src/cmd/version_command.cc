#include <iostream>

#include "cmd/command_help.h"
#include "cmd/commands.h"

namespace draplane::cmd {

void RegisterVersion(CLI::App& app, Streams streams, int* exit_code) {
  CLI::App* cmd = AddCommand(
      app, "version",
      "Print the draplane version and the Kubernetes API it implements",
      "Print the draplane version and the Kubernetes API it implements.\n\n"
      "Example:\n  draplane version");
  cmd->callback([streams, exit_code] {
    streams.out << "draplane " << DRAPLANE_VERSION << "\n"
                << "Kubernetes resource.k8s.io: v1 (also serves v1beta2, "
                   "v1beta1), as of Kubernetes 1.37\n";
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
