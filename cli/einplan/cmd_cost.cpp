// `einplan cost GRAPH --plan PLAN`: cost a given plan (a report written by `plan -o`, or
// a minimal hand-written plan; nodes it leaves out are planned by eindecomp).
#include <memory>

#include "cli/common/run_command.h"
#include "cli/einplan/cmd_plan_shared.h"
#include "cli/einplan/commands.h"

namespace eindecomp::cli {

void addCostCommand(CLI::App& app, int& status) {
  auto args = std::make_shared<PlanningArgs>();
  CLI::App* cmd = app.add_subcommand("cost", "cost a given plan");
  addGraphArgument(cmd, *args);
  cmd->add_option("--plan", args->plan, "plan file (JSON or YAML)")->required();
  addDeviceOption(cmd, *args, false);
  cmd->add_option("-o,--output", args->output, "write the completed plan (.json or .yaml)");
  cmd->add_option("--format", args->format, "report format: table, json, yaml, markdown, csv");
  addConstraintOptions(cmd, *args);
  cmd->callback([args, &status] {
    status = runCommand([&] { return planAndReport(*args); });
  });
}

}  // namespace eindecomp::cli
