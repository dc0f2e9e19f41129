// `einplan grad GRAPH --loss NODE [--wrt A,B,...] [--update sgd|adamw --lr X [--beta1 ...]] -o TRAIN.yaml`
// (SPEC 5): the forward graph extended with the reverse-mode gradient of sum(NODE)
// (frontends/autodiff/grad.h), written whole or not at all.
#include <iostream>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
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

// An AdamW figure given as text: a number in [low, high) (eps and the betas as torch
// accepts them), or the default when not given.
double adamwFigure(const std::string& option, const std::string& text, double low, double high, double fallback,
                   const std::string& example) {
  if (text.empty()) return fallback;
  const std::optional<double> v = parseNumber(text);
  if (!v || !(*v >= low) || !(*v < high))
    throw InputError({{}, option + " " + eindecomp::quoted(text) + ": expected " + example});
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
    std::string graph, loss, output, update, lr, beta1, beta2, eps, weightDecay, master, inputFormat = "auto";
    bool gradientAccumulationFusion = false;
    std::vector<std::string> wrt, split;
    bool noGradOutputs = false;
    int64_t microBatches = 0;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("grad", "write the graph extended with the reverse-mode gradient of a loss node");
  cmd->footer(
      "The gradient of sum(LOSS) with respect to each --wrt input X is the output grad_X (X's shape); with --update sgd "
      "--lr R the output X_next = X - R * grad_X too; with --update adamw torch.optim.AdamW's step: the inputs X_m, X_v "
      "and the scalar step (from 1), the outputs X_next, X_m_next, X_v_next. Every join and aggregation has its rule "
      "(docs/grad.md); the result is an ordinary graph for plan, eval and eincodegen.\n\n"
      "Examples:\n"
      "  einplan grad mlp.yaml --loss loss -o train.yaml\n"
      "  einplan grad llama.yaml --loss loss --wrt L0_wq,L0_wk --update sgd --lr 0.01 -o step.yaml\n"
      "  einplan grad mlp.yaml --loss loss --update adamw --lr 1e-3 --weight-decay 0.1 -o adamw.yaml\n"
      "  einplan grad mlp_bf16.yaml --loss loss --update adamw --lr 1e-3 --master f32 -o mixed.yaml\n"
      "  einplan grad mlp.yaml --loss loss --update sgd --lr 0.01 --micro-batches 4 --split X:0,Y:0 -o accum.yaml");
  cmd->add_option("GRAPH", opts->graph, "the forward graph (.yaml, .yml, .json; - reads stdin)")->required();
  cmd->add_option("--loss", opts->loss, "the node whose sum is differentiated")->required()->type_name("NODE");
  cmd->add_option("--wrt", opts->wrt, "graph inputs to differentiate by, comma-separated (default: every input)")
      ->type_name("A,B,...");
  CLI::Option* update =
      cmd->add_option("--update", opts->update, "also write the updated inputs X_next: sgd or adamw")->type_name("RULE");
  CLI::Option* lr = cmd->add_option("--lr", opts->lr, "the learning rate of --update")->type_name("X");
  update->needs(lr);
  lr->needs(update);
  for (auto [flag, field, what] : {std::tuple{"--beta1", &opts->beta1, "adamw's first-moment decay (default 0.9)"},
                                   std::tuple{"--beta2", &opts->beta2, "adamw's second-moment decay (default 0.999)"},
                                   std::tuple{"--eps", &opts->eps, "adamw's epsilon (default 1e-8)"},
                                   std::tuple{"--weight-decay", &opts->weightDecay, "adamw's decoupled weight decay (default 0.01)"}})
    cmd->add_option(flag, *field, what)->type_name("X")->needs(update);
  cmd->add_flag("--no-grad-outputs", opts->noGradOutputs,
                "with --update: the gradients are not outputs (read by the update only, freed after it)")
      ->needs(update);
  cmd->add_option("--master", opts->master,
                  "mixed precision: each --wrt input becomes of this type (f32), read through a cast to the graph's "
                  "(bf16); its gradient, optimizer state and update are of this type (docs/grad.md)")
      ->type_name("TYPE");
  cmd->add_flag("--gradient-accumulation-fusion", opts->gradientAccumulationFusion,
                "with --master: a weight gradient that is one bf16 contraction writes the master type itself "
                "(`cast: f32` on the contraction, Megatron's fusion), so micro-batches accumulate it in f32 and "
                "data parallelism reduces it once per step (docs/grad.md)");
  CLI::Option* micro = cmd->add_option("--micro-batches", opts->microBatches,
                  "gradient accumulation: the forward and backward run M times over 1/M of the --split inputs, the "
                  "gradients (and the loss) are summed, the update runs once (docs/graph-format.md \"Micro-batches\")")
      ->type_name("M");
  cmd->add_option("--split", opts->split, "with --micro-batches: the inputs cut into micro-batches and their dimension, "
                  "comma-separated (the batch: --split X:0,Y:0)")
      ->type_name("INPUT:DIM,...")
      ->needs(micro);
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
        if (opts->update != "sgd" && opts->update != "adamw")
          throw InputError({{}, "--update " + eindecomp::quoted(opts->update) + ": the rules are sgd and adamw"});
        autodiff::Update u;
        u.learningRate = parseLearningRate(opts->lr);
        if (opts->update == "adamw") {
          u.rule = autodiff::Update::Rule::AdamW;
          u.beta1 = adamwFigure("--beta1", opts->beta1, 0, 1, u.beta1, "a number in [0, 1) such as 0.9");
          u.beta2 = adamwFigure("--beta2", opts->beta2, 0, 1, u.beta2, "a number in [0, 1) such as 0.999");
          u.eps = adamwFigure("--eps", opts->eps, 1e-30, 1, u.eps, "a positive number below 1 such as 1e-8");
          u.weightDecay = adamwFigure("--weight-decay", opts->weightDecay, 0, 1e30, u.weightDecay,
                                      "a number of at least 0 such as 0.01");
        } else {
          for (const auto& [flag, text] : {std::pair{"--beta1", &opts->beta1}, std::pair{"--beta2", &opts->beta2},
                                           std::pair{"--eps", &opts->eps}, std::pair{"--weight-decay", &opts->weightDecay}})
            if (!text->empty()) throw InputError({{}, std::string(flag) + " is adamw's; --update sgd has no such figure"});
        }
        request.update = u;
        request.gradientOutputs = !opts->noGradOutputs;
      }
      if (!opts->master.empty()) {
        request.master = einrt::dtypeFromName(opts->master);
        if (!request.master)
          throw InputError({{}, "--master " + eindecomp::quoted(opts->master) + ": expected a float type: f32, f64, bf16 or f16"});
      }
      if (opts->gradientAccumulationFusion && request.master != DType::F32)
        throw InputError({{}, "--gradient-accumulation-fusion fuses each weight gradient's cast back to its master type: "
                              "add --master f32"});
      request.gradientAccumulationFusion = opts->gradientAccumulationFusion;
      if (opts->microBatches != 0) {
        if (opts->microBatches < 1) throw InputError({{}, "--micro-batches must be at least 1"});
        if (opts->split.empty())
          throw InputError({{}, "--micro-batches needs --split INPUT:DIM,...: the inputs whose dimension is the batch"});
        MicroBatches mb;
        mb.count = opts->microBatches;
        for (const std::string& entry : splitList(opts->split)) {
          const std::size_t colon = entry.rfind(':');
          const std::optional<double> dim = colon == std::string::npos ? std::nullopt : parseNumber(entry.substr(colon + 1));
          if (!dim || *dim < 0 || *dim != static_cast<double>(static_cast<int>(*dim)))
            throw InputError({{}, "--split " + eindecomp::quoted(entry) + ": expected INPUT:DIM, such as X:0"});
          mb.split.push_back({entry.substr(0, colon), static_cast<int>(*dim), {}});
        }
        request.microBatches = std::move(mb);
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
                << " backward" << (request.update ? " and update" : "") << " nodes\n";
      return kExitOk;
    });
  });
}

}  // namespace eindecomp::cli
