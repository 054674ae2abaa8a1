// The `draplane` subcommands. Each Register* adds one subcommand to the
// application; its callback runs the command and stores the process exit
// code in `*exit_code`.
#ifndef DRAPLANE_CMD_COMMANDS_H_
#define DRAPLANE_CMD_COMMANDS_H_

#include <iosfwd>

#include "CLI/CLI.hpp"

namespace draplane::cmd {

// Where commands write: tests substitute string streams.
struct Streams {
  std::ostream& out;
  std::ostream& err;
};

void RegisterVersion(CLI::App& app, Streams streams, int* exit_code);
void RegisterValidate(CLI::App& app, Streams streams, int* exit_code);
void RegisterConvert(CLI::App& app, Streams streams, int* exit_code);
void RegisterCel(CLI::App& app, Streams streams, int* exit_code);
void RegisterAllocate(CLI::App& app, Streams streams, int* exit_code);
void RegisterServer(CLI::App& app, Streams streams, int* exit_code);
void RegisterKubeconfig(CLI::App& app, Streams streams, int* exit_code);
void RegisterCerts(CLI::App& app, Streams streams, int* exit_code);
// store backup, store restore.
void RegisterStore(CLI::App& app, Streams streams, int* exit_code);
void RegisterScheduler(CLI::App& app, Streams streams, int* exit_code);
void RegisterController(CLI::App& app, Streams streams, int* exit_code);
void RegisterNode(CLI::App& app, Streams streams, int* exit_code);
void RegisterMigrate(CLI::App& app, Streams streams, int* exit_code);
// sim fgd (and later simulations).
void RegisterSim(CLI::App& app, Streams streams, int* exit_code);
// plan mig.
void RegisterPlan(CLI::App& app, Streams streams, int* exit_code);
// inventory, explain, doctor.
void RegisterClusterReports(CLI::App& app, Streams streams, int* exit_code);
// completion bash|zsh (registered last: it describes the whole tree).
void RegisterCompletion(CLI::App& app, Streams streams, int* exit_code);

// Every subcommand above, with draplane's help layout (command_help.h).
void RegisterAll(CLI::App& app, Streams streams, int* exit_code);

// Builds the whole command tree and runs it on argv. Returns the exit code.
int RunMain(int argc, const char* const* argv, Streams streams);

}  // namespace draplane::cmd

#endif  // DRAPLANE_CMD_COMMANDS_H_
