// Scaffolding: replaced by the foundation issue's implementation.
#include "cli/einplan/commands.h"
namespace eindecomp::cli {
void addCheckCommand(CLI::App& app, int& status) {
  app.add_subcommand("check", "validate a graph; print tensors, nodes, FLOPs")->callback([&status] { status = 2; });
}
}  // namespace eindecomp::cli
