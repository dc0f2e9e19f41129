// Scaffolding: replaced by the foundation issue's implementation.
#include "cli/einplan/commands.h"
namespace eindecomp::cli {
void addPlanCommands(CLI::App& app, int& status) {
  app.add_subcommand("plan", "compute a plan")->callback([&status] { status = 2; });
}
}  // namespace eindecomp::cli
