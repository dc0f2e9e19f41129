// `einplan grad GRAPH --loss NODE [--wrt A,B,...] [--update sgd --lr X] -o TRAIN.yaml`
// (SPEC 5): the forward graph extended with the reverse-mode gradient of sum(NODE)
// (frontends/autodiff/grad.h), written whole or not at all.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/common/run_command.h"
#include "cli/einplan/commands.h"
#include "frontends/autodiff/grad.h"
#include "planner/graph/diagnostic.h"
#include "planner/graph/excerpt.h"
#include "planner/graph/load.h"
#include "planner/graph/units.h"
#include "planner/graph/write_graph.h"
#include "planner/version.h"

namespace eindecomp::cli {

namespace {

double parseLearningRate(const std::string& text) {
  const std::optional<double> v = parseNumber(text);
  if (!v || !(*v > 0) || *v > 1e30)
    throw InputError({{}, "--lr " + eindecomp::quoted(text) + ": expected a positive number such as 0.01"});
  return *v;
}

std::vector<std::string> splitList(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    std::size_t start = 0;
    for (;;) {
      const std::size_t comma = item.find(',', start);
      const std::string name = item.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (name.empty()) throw InputError({{}, "--wrt " + eindecomp::quoted(item) + ": an empty name in the list"});
      out.push_back(name);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
}

}  // namespace

void addGradCommand(CLI::App& app, int& status) {
  struct Options {
    std::string graph, loss, output, update, lr, inputFormat = "auto";
    std::vector<std::string> wrt;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("grad", "write the graph extended with the reverse-mode gradient of a loss node");
  cmd->footer(
      "The gradient of sum(LOSS) with respect to each --wrt input X is the output grad_X (X's shape); with --update sgd "
      "--lr R the output X_next = X - R * grad_X too. Every join and aggregation has its rule (docs/grad.md); the result is "
      "an ordinary graph for plan, eval and eincodegen.\n\n"
      "Examples:\n"
      "  einplan grad mlp.yaml --loss loss -o train.yaml\n"
      "  einplan grad llama.yaml --loss loss --wrt L0_wq,L0_wk --update sgd --lr 0.01 -o step.yaml");
  cmd->add_option("GRAPH", opts->graph, "the forward graph (.yaml, .yml, .json; - reads stdin)")->required();
  cmd->add_option("--loss", opts->loss, "the node whose sum is differentiated")->required()->type_name("NODE");
  cmd->add_option("--wrt", opts->wrt, "graph inputs to differentiate by, comma-separated (default: every input)")
      ->type_name("A,B,...");
  CLI::Option* update = cmd->add_option("--update", opts->update, "also write the updated inputs X_next: sgd")->type_name("RULE");
  CLI::Option* lr = cmd->add_option("--lr", opts->lr, "the learning rate of --update")->type_name("X");
  update->needs(lr);
  lr->needs(update);
  cmd->add_option("-o,--output", opts->output, "the graph to write (.yaml, .yml, .json; - for YAML on stdout)")
      ->required()
      ->type_name("TRAIN");
  cmd->add_option("--input-format", opts->inputFormat, "format of GRAPH: auto (default), yaml, json");
  cmd->callback([opts, &status] {
    status = runCommand([&] {
      checkOutputFile(opts->output, "-o");
      autodiff::GradRequest request;
      request.loss = opts->loss;
      request.wrt = splitList(opts->wrt);
      if (!opts->update.empty()) {
        if (opts->update != "sgd") throw InputError({{}, "--update " + eindecomp::quoted(opts->update) + ": the one rule is sgd"});
        request.learningRate = parseLearningRate(opts->lr);
      }
      Graph forward = loadGraphFile(opts->graph, parseGraphFormat(opts->inputFormat));
      const std::size_t forwardNodes = forward.nodes.size();
      const autodiff::GradResult result = autodiff::differentiate(std::move(forward), request);
      for (const auto& note : result.notes) std::cerr << "note: " << note << "\n";
      GraphProvenance provenance{"einplan", EINDECOMP_VERSION_STRING, commandLine()};
      std::string text;
      try {
        text = writeGraphForPath(result.graph, opts->output, &provenance);
      } catch (const std::invalid_argument& e) {
        throw InputError({{opts->output, 0, 0}, e.what()});
      }
      writeFileAtomically(opts->output, text);
      std::cerr << "grad: " << forwardNodes << " forward nodes, " << result.graph.nodes.size() - forwardNodes
                << " backward" << (request.learningRate ? " and update" : "") << " nodes\n";
      return kExitOk;
    });
  });
}

}  // namespace eindecomp::cli
