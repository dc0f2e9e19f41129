// Scaffolding: replaced by the foundation issue's implementation.
#include "cli/einplan/commands.h"
namespace eindecomp::cli {
void addGenCommand(CLI::App& app, int& status) {
  app.add_subcommand("gen", "write example graphs")->callback([&status] { status = 2; });
}
}  // namespace eindecomp::cli
