// `einplan explain GRAPH --plan PLAN [--node N]`: the tensor-relational program of a plan;
// with --node, every candidate partition of that node with its cost. Without --plan the
// plan is computed (-p N, --algorithm A).
#include <iostream>
#include <memory>

#include "cli/common/planning_options.h"
#include "cli/common/run_command.h"
#include "cli/einplan/commands.h"
#include "planner/cost/plan_cost.h"
#include "planner/report/explain.h"

namespace eindecomp::cli {

void addExplainCommand(CLI::App& app, int& status) {
  struct Options {
    PlanningArgs planning;
    std::string node;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("explain", "show a plan as a tensor-relational program");
  cmd->footer("Examples:\n"
              "  einplan explain examples/matrix-chain.yaml -p 4\n"
              "  einplan explain examples/matrix-chain.yaml --plan plan.json --node ABC");
  addPlanningOptions(cmd, opts->planning);
  cmd->add_option("--node", opts->node, "list every candidate partition of this node with its cost");
  cmd->callback([opts, &status] {
    status = runCommand([&] {
      const PlannedGraph planned = planRequest(toRequest(opts->planning, "einplan"));
      const Graph& g = planned.loaded.graph;
      if (opts->node.empty())
        std::cout << explainPlan(g, planned.plan, planned.cost);
      else
        std::cout << explainNodeCandidates(g, planned.plan, opts->node, planned.model);
      return static_cast<int>(kExitOk);
    });
  });
}

}  // namespace eindecomp::cli
