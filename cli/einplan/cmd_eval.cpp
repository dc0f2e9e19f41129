// `einplan eval GRAPH [--seed S | --inputs DIR] --outputs DIR`: run the graph on one
// process with the reference evaluator (planner/eval) and write every graph output as
// DIR/NAME.npy. Inputs come from the deterministic generator (default seed 0) or from
// .npy files. Everything is evaluated and encoded before the first file is written, and
// each file is written atomically, so an error leaves no partial output.
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "cli/common/run_command.h"
#include "cli/einplan/commands.h"
#include "einrt/npy.h"
#include "planner/eval/generate_inputs.h"
#include "planner/eval/graph_eval.h"
#include "planner/eval/input_files.h"
#include "planner/eval/tensor_npy.h"
#include "planner/graph/diagnostic.h"
#include "planner/graph/load.h"

namespace eindecomp::cli {

void addEvalCommand(CLI::App& app, int& status) {
  struct Options {
    std::string graph;
    uint64_t seed = 0;
    std::string inputs;
    std::string outputs;
    std::string inputFormat = "auto";
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("eval", "run the graph with the reference evaluator; write outputs as NAME.npy");
  cmd->add_option("GRAPH", opts->graph, "graph file (.yaml, .yml, .json; - reads stdin)")->required();
  CLI::Option* seed =
      cmd->add_option("--seed", opts->seed, "generate inputs deterministically from this seed (default 0)")
          ->check(CLI::Validator(
              [](const std::string& text) {
                // CLI11 would wrap "-1" and 2^64 around; accept exactly the digits of a uint64.
                uint64_t value = 0;
                const char* end = text.data() + text.size();
                const auto [stop, ec] = std::from_chars(text.data(), end, value);
                const bool ok = !text.empty() && ec == std::errc() && stop == end;
                return ok ? std::string() : "the seed must be an integer from 0 to 2^64 - 1, not '" + text + "'";
              },
              "UINT64"));
  CLI::Option* inputs = cmd->add_option("--inputs", opts->inputs, "read each graph input from DIR/NAME.npy");
  seed->excludes(inputs);
  cmd->add_option("--outputs", opts->outputs, "write each graph output to DIR/NAME.npy (created if missing)")
      ->required();
  cmd->add_option("--input-format", opts->inputFormat, "format of GRAPH")
      ->check(CLI::IsMember({"auto", "yaml", "json"}));
  cmd->callback([opts, &status] {
    status = runCommand([&] {
      namespace fs = std::filesystem;
      const Graph g = loadGraphFile(opts->graph, parseGraphFormat(opts->inputFormat));
      const auto inputs = opts->inputs.empty() ? generateInputs(g, opts->seed) : readInputFiles(g, opts->inputs);
      const auto results = evaluateGraph(g, inputs);

      std::vector<std::pair<std::string, std::string>> files;  // path, contents
      for (const auto& name : g.outputs)
        files.emplace_back((fs::path(opts->outputs) / (name + ".npy")).string(), encodeTensorNpy(results.at(name)));
      std::error_code ec;
      fs::create_directories(opts->outputs, ec);
      if (ec || !fs::is_directory(opts->outputs))
        throw InputError({{opts->outputs, 0, 0}, "cannot create the --outputs directory" +
                                                     (ec ? ": " + ec.message() : std::string())});
      for (const auto& [path, contents] : files) writeFileAtomically(path, contents);
      for (const auto& name : g.outputs)
        std::cout << (fs::path(opts->outputs) / (name + ".npy")).string() << "  " << dtypeName(g.dtype) << " "
                  << einrt::npyShapeText(results.at(name).shape) << "\n";
      return kExitOk;
    });
  });
}

}  // namespace eindecomp::cli
