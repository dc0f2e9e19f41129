// `einplan explain GRAPH --plan PLAN [--node N]`: the tensor-relational program of a plan;
// with --node, every candidate partition of that node with its cost. Without --plan the
// plan is computed (-p N, --algorithm A).
#include <iostream>
#include <memory>

#include "cli/common/run_command.h"
#include "cli/einplan/cmd_plan_shared.h"
#include "cli/einplan/commands.h"
#include "planner/report/explain.h"

namespace eindecomp::cli {

void addExplainCommand(CLI::App& app, int& status) {
  struct Options {
    PlanningArgs planning;
    std::string node;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("explain", "show a plan as a tensor-relational program");
  addGraphArgument(cmd, opts->planning);
  cmd->add_option("--plan", opts->planning.plan, "plan file (JSON or YAML)");
  addDeviceOption(cmd, opts->planning, false);
  cmd->add_option("--algorithm", opts->planning.algorithm, "algorithm when no --plan is given");
  cmd->add_option("--node", opts->node, "list every candidate partition of this node with its cost");
  addConstraintOptions(cmd, opts->planning);
  cmd->callback([opts, &status] {
    status = runCommand([&] {
      LoadedGraph loaded = loadGraphForPlanning(opts->planning.graph, opts->planning.inputFormat);
      Plan plan = planFromArgs(loaded.graph, opts->planning);
      std::cout << (opts->node.empty() ? explainPlan(loaded.graph, plan) : explainNodeCandidates(loaded.graph, plan, opts->node));
      return static_cast<int>(kExitOk);
    });
  });
}

}  // namespace eindecomp::cli
