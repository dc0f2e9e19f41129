// The einplan subcommands. Each add*Command registers one subcommand on the app; its
// callback runs the command through runCommand and stores the exit status in `status`.
#pragma once

#include <CLI/CLI.hpp>

namespace eindecomp::cli {

void addCheckCommand(CLI::App& app, int& status);
void addEvalCommand(CLI::App& app, int& status);
void addPlanCommands(CLI::App& app, int& status);   // plan, cost, compare, explain, dot
void addGenCommand(CLI::App& app, int& status);
void addImportCommand(CLI::App& app, int& status);
void addGradCommand(CLI::App& app, int& status);

}  // namespace eindecomp::cli
