// `einplan gen FAMILY [options] -o FILE`: write an example graph (SPEC 5). Each family is
// a sub-subcommand whose options map one to one onto its options struct in planner/gen;
// the graph goes through the graph writer (YAML or JSON by the file's extension) and is
// written atomically. The families are described in docs/workloads.md.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/common/run_command.h"
#include "cli/einplan/commands.h"
#include "planner/gen/attention.h"
#include "planner/gen/ffnn.h"
#include "planner/gen/llama.h"
#include "planner/gen/matrix_chain.h"
#include "planner/gen/tensor_networks.h"
#include "planner/graph/diagnostic.h"
#include "planner/graph/write_graph.h"
#include "planner/paths/split_nary.h"

namespace eindecomp::cli {

namespace {

struct OutputOptions {
  std::string output;
  std::string name;
  std::string dtype = "f32";
  bool split = false;
  std::string pathBudget, pathObjective, pathSeed;  // for --split
};

// -o/--output, --name and --dtype on every family.
void addOutputOptions(CLI::App* cmd, OutputOptions& o) {
  cmd->add_option("-o,--output", o.output, "graph file to write (.yaml, .yml or .json; - writes YAML to stdout)")
      ->required();
  cmd->add_option("--name", o.name, "the graph's name (default: the family's)");
  cmd->add_option("--dtype", o.dtype, "element type")->check(CLI::IsMember({"f32", "f64"}));
  CLI::Option* split = cmd->add_flag("--split", o.split,
                                     "write nodes of three or more operands already split into binary contractions "
                                     "along the optimized path (steps named NODE__1, NODE__2, ..., the last keeps NODE)");
  cmd->add_option("--path-budget", o.pathBudget,
                  "with --split: contraction-path search for nodes of more than 12 operands, trials (default 1024) "
                  "or a time such as 5s")
      ->needs(split);
  cmd->add_option("--path-objective", o.pathObjective, "with --split: flops (default) or memory")->needs(split);
  cmd->add_option("--path-seed", o.pathSeed, "with --split: seed of the contraction-path search (default 0)")
      ->needs(split);
}

gen::CommonOptions common(const OutputOptions& o) {
  gen::CommonOptions c;
  c.name = o.name;
  c.dtype = o.dtype == "f64" ? DType::F64 : DType::F32;
  return c;
}

void writeGraph(const Graph& generated, const std::string& path, const OutputOptions& o) {
  const Graph g =
      o.split ? withSanitizedNames(splitNaryNodes(generated, parsePathOptions(o.pathBudget, o.pathObjective, o.pathSeed)))
              : generated;
  std::string text;
  try {
    text = writeGraphForPath(g, path);
  } catch (const std::invalid_argument& e) {
    throw InputError({{path, 0, 0}, e.what()});
  }
  writeFileAtomically(path, text);
}

// Registers one family: its options are added by `configure`; `make` builds the graph.
void addFamily(CLI::App* gen, int& status, const std::string& family, const std::string& help,
               const std::function<void(CLI::App*)>& configure, const std::function<Graph()>& make,
               const std::shared_ptr<OutputOptions>& out) {
  CLI::App* cmd = gen->add_subcommand(family, help);
  configure(cmd);
  addOutputOptions(cmd, *out);
  cmd->callback([&status, make, out] {
    status = runCommand([&] {
      writeGraph(make(), out->output, *out);
      return kExitOk;
    });
  });
}

}  // namespace

void addGenCommand(CLI::App& app, int& status) {
  CLI::App* gen = app.add_subcommand("gen", "write example graphs (workload families)");
  gen->require_subcommand(1);
  gen->footer(
      "Families (details in docs/workloads.md):\n"
      "  matrix-chain  (A*B)+(C*(D*E)), EinDecomp experiment 1: --shape square|skewed --scale S\n"
      "  ffnn          one training step of a feed-forward classifier (forward, loss, backward, SGD)\n"
      "  attention     multi-head attention as in EinDecomp section 3\n"
      "  llama         LLaMA prefill: --preset 7b|13b|65b [--layers N] [--seq N] [--batch N]\n"
      "  syn tt fctn tw getd trn   tensor networks of the Einsum Trees paper, Table 5 [--scale D]\n"
      "Run `einplan gen FAMILY --help` for a family's options.");

  {
    auto o = std::make_shared<gen::MatrixChainOptions>();
    auto out = std::make_shared<OutputOptions>();
    addFamily(
        gen, status, "matrix-chain",
        "(A*B)+(C*(D*E)) as in EinDecomp section 9, experiment 1. square: all s x s; skewed: A s x .1s, "
        "B .1s x s, C s x .1s, D .1s x 10s, E 10s x s",
        [o](CLI::App* c) {
          c->add_option("--shape", o->shape, "square | skewed")->check(CLI::IsMember({"square", "skewed"}))
              ->capture_default_str();
          c->add_option("--scale", o->scale, "s (a multiple of 10 for skewed)")->capture_default_str();
        },
        [o, out] {
          o->common = common(*out);
          return gen::makeMatrixChain(*o);
        },
        out);
  }
  {
    auto o = std::make_shared<gen::FfnnOptions>();
    auto out = std::make_shared<OutputOptions>();
    addFamily(
        gen, status, "ffnn",
        "one SGD training step of a feed-forward classifier (relu layers, softmax cross-entropy or squared "
        "loss, backward pass, update), as in EinDecomp experiment 2",
        [o](CLI::App* c) {
          c->add_option("--batch", o->batch, "batch size B")->capture_default_str();
          c->add_option("--features", o->features, "input features F")->capture_default_str();
          c->add_option("--hidden", o->hidden, "hidden layer widths H1,H2,...")->delimiter(',')->capture_default_str();
          c->add_option("--classes", o->classes, "output classes C")->capture_default_str();
          c->add_option("--loss", o->loss, "xent (softmax cross-entropy) | squared")
              ->check(CLI::IsMember({"xent", "squared"}))
              ->capture_default_str();
          c->add_option("--lr", o->learningRate, "SGD learning rate")->capture_default_str();
        },
        [o, out] {
          o->common = common(*out);
          return gen::makeFfnn(*o);
        },
        out);
  }
  {
    auto o = std::make_shared<gen::AttentionOptions>();
    auto out = std::make_shared<OutputOptions>();
    addFamily(
        gen, status, "attention",
        "multi-head attention as in EinDecomp section 3 (rank-3 projections, scaled scores, softmax from four "
        "EinSums, output projection)",
        [o](CLI::App* c) {
          c->add_option("--batch", o->batch, "batch size")->capture_default_str();
          c->add_option("--seq", o->seq, "sequence length")->capture_default_str();
          c->add_option("--dim", o->dim, "model dimension (attributes)")->capture_default_str();
          c->add_option("--heads", o->heads, "attention heads (must divide --dim)")->capture_default_str();
        },
        [o, out] {
          o->common = common(*out);
          return gen::makeAttention(*o);
        },
        out);
  }
  {
    auto o = std::make_shared<gen::LlamaOptions>();
    auto out = std::make_shared<OutputOptions>();
    addFamily(
        gen, status, "llama",
        "LLaMA prefill (first-token inference): RMSNorm, rotary attention, SwiGLU, residuals, final norm, "
        "vocabulary projection. Presets: 7b (dim 4096, 32 layers, 32 heads, ffn 11008, vocab 32000), "
        "13b (5120, 40, 40, 13824), 65b (8192, 80, 64, 22016)",
        [o](CLI::App* c) {
          c->add_option("--preset", o->preset, "7b | 13b | 65b")->check(CLI::IsMember({"7b", "13b", "65b"}))
              ->capture_default_str();
          c->add_option("--layers", o->layers, "number of layers (default: the preset's)");
          c->add_option("--seq", o->seq, "sequence length")->capture_default_str();
          c->add_option("--batch", o->batch, "batch size")->capture_default_str();
          c->add_option("--dim", o->dim, "override the model dimension (small runs)");
          c->add_option("--heads", o->heads, "override the number of heads");
          c->add_option("--ffn", o->ffn, "override the feed-forward width");
          c->add_option("--vocab", o->vocab, "override the vocabulary size");
        },
        [o, out] {
          o->common = common(*out);
          return gen::makeLlama(*o);
        },
        out);
  }
  for (const auto& spec : gen::einsumTreesNetworks()) {
    auto o = std::make_shared<gen::TensorNetworkOptions>();
    o->id = spec.id;
    auto out = std::make_shared<OutputOptions>();
    addFamily(
        gen, status, spec.id,
        "Einsum Trees paper, Table 5: " + spec.description + " (" + spec.einsum + ")",
        [o](CLI::App* c) {
          c->add_option("--scale", o->scale, "divide every size by D (sizes stay at least 1)")->capture_default_str();
        },
        [o, out] {
          o->common = common(*out);
          return gen::makeTensorNetwork(*o);
        },
        out);
  }
}

}  // namespace eindecomp::cli
