// `einplan eval GRAPH [--seed S | --inputs DIR] --outputs DIR`: run the graph on one
// process with the reference evaluator (frontends/eval) and write every graph output as
// DIR/NAME.npy. Inputs come from the deterministic generator (default seed 0) or from
// .npy files. Everything is evaluated and encoded before the first file is written, and
// the files are written all or nothing (cli/common/output_folder.h).
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "cli/common/output_folder.h"
#include "cli/common/run_command.h"
#include "cli/einplan/commands.h"
#include "einrt/npy.h"
#include "frontends/eval/generate_inputs.h"
#include "frontends/eval/graph_eval.h"
#include "frontends/eval/input_files.h"
#include "frontends/eval/tensor_npy.h"
#include "planner/graph/diagnostic.h"
#include "planner/graph/identifiers.h"
#include "planner/graph/load.h"

namespace eindecomp::cli {

namespace {

// Exactly the digits of a uint64 (CLI11 would wrap "-1" and 2^64 around).
uint64_t parseSeed(const std::string& text) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || stop != end)
    throw InputError({{}, "--seed: " + quoted(text) + " is not an integer from 0 to 2^64 - 1"});
  return value;
}

}  // namespace

void addEvalCommand(CLI::App& app, int& status) {
  struct Options {
    std::string graph;
    std::string seed = "0";
    std::string inputs;
    std::string outputs;
    std::string inputFormat = "auto";
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("eval", "run the graph with the reference evaluator; write outputs as NAME.npy");
  cmd->footer(
      "Inputs are generated from --seed (the generator the emitted programs use, so `einplan eval --seed 7` and "
      "`mpirun ... ./prog --seed 7` write the same outputs) or read from DIR/NAME.npy (float32 or float64, C or "
      "Fortran order; converted to the graph's dtype with a note).\n\n"
      "Examples:\n"
      "  einplan eval examples/matrix-chain.yaml --seed 7 --outputs ref/\n"
      "  einplan eval graph.json --inputs in/ --outputs out/\n"
      "  einplan gen attention --batch 2 --seq 16 --dim 32 --heads 4 | einplan eval - --outputs ref/");
  cmd->add_option("GRAPH", opts->graph, "graph file (.yaml, .yml, .json; - reads stdin)")->required();
  CLI::Option* seed = cmd->add_option("--seed", opts->seed, "generate inputs deterministically from this seed (default 0)")
                          ->type_name("S");
  CLI::Option* inputs = cmd->add_option("--inputs", opts->inputs, "read each graph input from DIR/NAME.npy")->type_name("DIR");
  seed->excludes(inputs);
  cmd->add_option("--outputs", opts->outputs, "write each graph output to DIR/NAME.npy (created if missing)")
      ->type_name("DIR")
      ->required();
  cmd->add_option("--input-format", opts->inputFormat, "format of GRAPH: auto (default), yaml, json");
  cmd->callback([opts, &status] {
    status = runCommand([&] {
      const uint64_t seedValue = parseSeed(opts->seed);
      const GraphFormat format = parseGraphFormat(opts->inputFormat);
      if (opts->outputs == "-")
        throw InputError({{}, "--outputs: '-' is not a directory; eval writes one NAME.npy per output into it"});
      if (opts->inputs == "-")
        throw InputError({{}, "--inputs: '-' is not a directory; eval reads one NAME.npy per input from it"});
      const Graph g = loadGraphFile(opts->graph, format);
      checkEvaluatorMemory(g);
      const auto inputs = opts->inputs.empty() ? generateInputs(g, seedValue) : readInputFiles(g, opts->inputs);
      const auto results = evaluateGraph(g, inputs);

      std::vector<std::pair<std::string, std::string>> files;  // name, contents
      for (const auto& name : g.outputs) {
        Tensor file = results.at(name);
        file.shape = fileShapeOf(g, name);  // a reshape: the same elements in C order
        files.emplace_back(name + ".npy", encodeTensorNpy(file));
      }
      writeFilesIntoFolder(opts->outputs, files, {"--outputs", "one NAME.npy per output"});
      for (const auto& name : g.outputs)
        std::cout << (std::filesystem::path(opts->outputs) / (name + ".npy")).string() << "  " << dtypeName(results.at(name).dtype)
                  << " " << einrt::npyShapeText(fileShapeOf(g, name)) << "\n";
      return kExitOk;
    });
  });
}

}  // namespace eindecomp::cli
