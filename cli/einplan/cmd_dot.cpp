// `einplan dot GRAPH [--plan PLAN]`: Graphviz of the graph, with partitions and edge
// costs when a plan is given (--plan, or -p N to compute one).
#include <memory>

#include "cli/common/run_command.h"
#include "cli/einplan/cmd_plan_shared.h"
#include "cli/einplan/commands.h"
#include "planner/report/explain.h"

namespace eindecomp::cli {

void addDotCommand(CLI::App& app, int& status) {
  auto args = std::make_shared<PlanningArgs>();
  CLI::App* cmd = app.add_subcommand("dot", "Graphviz of the graph and its plan");
  addGraphArgument(cmd, *args);
  cmd->add_option("--plan", args->plan, "plan file (JSON or YAML)");
  addDeviceOption(cmd, *args, false);
  cmd->add_option("--algorithm", args->algorithm, "algorithm when -p is given without --plan");
  cmd->add_option("-o,--output", args->output, "output file (default: stdout)");
  cmd->callback([args, &status] {
    status = runCommand([&] {
      LoadedGraph loaded = loadGraphForPlanning(args->graph, args->inputFormat);
      std::optional<Plan> plan;
      if (!args->plan.empty() || !args->devices.empty()) plan = planFromArgs(loaded.graph, *args);
      writeFileAtomically(args->output.empty() ? "-" : args->output, graphDot(loaded.graph, plan ? &*plan : nullptr));
      return static_cast<int>(kExitOk);
    });
  });
}

}  // namespace eindecomp::cli
