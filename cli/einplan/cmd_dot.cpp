// `einplan dot GRAPH [--plan PLAN | -p N]`: Graphviz of the graph, with partitions,
// placements and edge traffic when a plan is given or computed.
#include <memory>

#include "cli/common/planning_options.h"
#include "cli/common/run_command.h"
#include "cli/einplan/commands.h"
#include "planner/cost/plan_cost.h"
#include "planner/report/explain.h"

namespace eindecomp::cli {

void addDotCommand(CLI::App& app, int& status) {
  struct Options {
    PlanningArgs planning;
    std::string output;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("dot", "Graphviz of the graph and its plan");
  cmd->footer("Examples:\n"
              "  einplan dot examples/matrix-chain.yaml | dot -Tsvg > graph.svg\n"
              "  einplan dot examples/matrix-chain.yaml -p 4 -o plan.dot");
  addPlanningOptions(cmd, opts->planning);
  cmd->add_option("-o,--output", opts->output, "output file (default: stdout)");
  cmd->callback([opts, &status] {
    status = runCommand([&] {
      checkOutputFile(opts->output.empty() ? "-" : opts->output, "-o");
      const PlanningRequest request = toRequest(opts->planning, "einplan");
      std::string dot;
      if (request.planPath || request.devices) {
        const PlannedGraph planned = planRequest(request);
        dot = graphDot(planned.loaded.graph, &planned.plan, &planned.cost);
      } else {
        dot = graphDot(loadGraphForPlanning(request.graphPath, request.inputFormat, request.paths).graph, nullptr, nullptr);
      }
      writeFileAtomically(opts->output.empty() ? "-" : opts->output, dot);
      return static_cast<int>(kExitOk);
    });
  });
}

}  // namespace eindecomp::cli
