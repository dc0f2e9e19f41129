// `einplan check GRAPH`: load and validate a graph file, then print its tensors, nodes,
// FLOPs and totals (table or JSON). All logic lives in planner/graph; this only wires it.
#include <iostream>
#include <memory>
#include <string>

#include "cli/common/run_command.h"
#include "cli/einplan/commands.h"
#include "planner/graph/diagnostic.h"
#include "planner/graph/graph_summary.h"
#include "planner/graph/load.h"

namespace eindecomp::cli {

void addCheckCommand(CLI::App& app, int& status) {
  struct Options {
    std::string graph;
    std::string inputFormat = "auto";
    std::string format = "table";
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("check", "validate a graph; print tensors, nodes, FLOPs");
  cmd->add_option("GRAPH", opts->graph, "graph file (.yaml, .yml, .json; - reads stdin)")->required();
  cmd->add_option("--input-format", opts->inputFormat, "format of GRAPH")
      ->check(CLI::IsMember({"auto", "yaml", "json"}));
  cmd->add_option("--format", opts->format, "output format")->check(CLI::IsMember({"table", "json"}));
  cmd->callback([opts, &status] {
    status = runCommand([&] {
      const Graph g = loadGraphFile(opts->graph, parseGraphFormat(opts->inputFormat));
      const GraphSummary summary = summarizeGraph(g);
      std::cout << (opts->format == "json" ? renderSummaryJson(summary) : renderSummaryTable(summary));
      return kExitOk;
    });
  });
}

}  // namespace eindecomp::cli
