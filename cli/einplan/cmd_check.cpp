// `einplan check GRAPH`: load and validate a graph file, then print its tensors, nodes,
// FLOPs and totals (table or JSON), and the contraction path of every n-ary node, found
// under the --path-* options. All logic lives in planner/graph and planner/paths; this
// only wires it.
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/common/planning_options.h"
#include "cli/common/run_command.h"
#include "cli/einplan/commands.h"
#include "planner/graph/diagnostic.h"
#include "planner/graph/graph_summary.h"
#include "planner/graph/load.h"
#include "planner/paths/split_nary.h"

namespace eindecomp::cli {

void addCheckCommand(CLI::App& app, int& status) {
  struct Options {
    std::string graph;
    std::string inputFormat = "auto";
    std::string format = "table";
    PathArgs paths;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("check", "validate a graph; print tensors, nodes, FLOPs");
  cmd->footer("Exit status 0 when the graph is valid, 2 with FILE:LINE:COL: error: ... when it is not.\n\n"
              "Examples:\n"
              "  einplan check examples/matrix-chain.yaml\n"
              "  einplan check graph.json --format json\n"
              "  einplan gen llama --layers 2 | einplan check -");
  cmd->add_option("GRAPH", opts->graph, "graph file (.yaml, .yml, .json; - reads stdin)")->required();
  cmd->add_option("--input-format", opts->inputFormat, "format of GRAPH")
      ->check(CLI::IsMember({"auto", "yaml", "json"}));
  cmd->add_option("--format", opts->format, "output format")->check(CLI::IsMember({"table", "json"}));
  addPathOptions(cmd, opts->paths);
  cmd->callback([opts, &status] {
    status = runCommand([&] {
      const PathOptions pathOptions = toPathOptions(opts->paths);
      const Graph g = loadGraphFile(opts->graph, parseGraphFormat(opts->inputFormat));
      // n-ary contractions are reported with the FLOPs of their contraction path (what
      // runs), followed by the path report itself.
      const std::vector<ContractionPathInfo> paths = contractionPathInfos(g, pathOptions);
      std::map<std::string, int64_t> pathFlops;
      for (const auto& info : paths)
        if (info.optimizedFlops <= static_cast<FlopCount>(INT64_MAX))
          pathFlops[info.node] = static_cast<int64_t>(info.optimizedFlops);
      const GraphSummary summary = summarizeGraph(g, pathFlops);
      if (opts->format == "json") {
        nlohmann::ordered_json j = nlohmann::ordered_json::parse(renderSummaryJson(summary));
        j["paths"] = nlohmann::ordered_json::parse(renderPathReportJson(paths));
        std::cout << j.dump(2) << "\n";
      } else {
        std::cout << renderSummaryTable(summary);
        if (!paths.empty()) std::cout << "\n" << formatPathReport(paths);
      }
      return kExitOk;
    });
  });
}

}  // namespace eindecomp::cli
