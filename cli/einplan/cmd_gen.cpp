// `einplan gen FAMILY [options] [-o FILE]`: write an example graph (SPEC 5). Each family
// is a sub-subcommand whose options map one to one onto its options struct in
// frontends/gen. CLI11 only collects the values as typed; they are converted here, so a bad
// value is `einplan gen: error: --scale: '1e3' is not a positive integer` (exit 2), never
// CLI11's range text. The graph is written by frontends/gen/write_generated.h (format by
// extension, provenance, loaded back before it is written), atomically, or to standard
// output without -o. The families are described in docs/workloads.md.
#include <charconv>
#include <cmath>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/common/planning_options.h"
#include "cli/common/run_command.h"
#include "cli/einplan/commands.h"
#include "planner/algorithms/planning.h"
#include "planner/algorithms/strategies.h"
#include "planner/cost/plan_cost.h"
#include "frontends/gen/attention.h"
#include "frontends/gen/ffnn.h"
#include "frontends/gen/llama.h"
#include "frontends/gen/matrix_chain.h"
#include "frontends/gen/tensor_networks.h"
#include "frontends/gen/write_generated.h"
#include "planner/graph/identifiers.h"
#include "planner/graph/units.h"
#include "planner/report/render.h"
#include "planner/report/report.h"
#include "planner/request/planning_request.h"
#include "planner/version.h"

namespace eindecomp::cli {

namespace {

int64_t toCount(const std::string& option, const std::string& text) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v <= 0)
    gen::badOption(option, eindecomp::quoted(text) + " is not a positive integer" +
                               (ec == std::errc::result_out_of_range ? " that fits 63 bits" : ""));
  return v;
}

std::string choiceList(const std::vector<std::string>& choices) {
  std::string list;
  for (std::size_t i = 0; i < choices.size(); ++i)
    list += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  return list;
}

// The options of one family: CLI11 stores each value as typed (texts_ keeps the strings
// CLI11 writes into); convert() turns them into the family's fields when the command runs.
class FamilyOptions {
 public:
  explicit FamilyOptions(CLI::App* cmd) : cmd_(cmd) {}

  void count(const std::string& option, int64_t& target, const std::string& help) {
    std::string& text = add(option, help, std::to_string(target), "N");
    conversions_.push_back([&target, &text, option] { target = toCount(option, text); });
  }
  void optionalCount(const std::string& option, std::optional<int64_t>& target, const std::string& help) {
    std::string& text = add(option, help, "", "N");
    conversions_.push_back([&target, &text, option] {
      if (!text.empty()) target = toCount(option, text);
    });
  }
  // A comma-separated list of counts ("4096,2048").
  void countList(const std::string& option, std::vector<int64_t>& target, const std::string& help) {
    std::string joined;
    for (int64_t v : target) joined += (joined.empty() ? "" : ",") + std::to_string(v);
    std::string& text = add(option, help, joined, "N,N,...");
    conversions_.push_back([&target, &text, option] {
      target.clear();
      std::size_t start = 0;
      for (;;) {
        const std::size_t comma = text.find(',', start);
        target.push_back(toCount(option, text.substr(start, comma - start)));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    });
  }
  void positiveNumber(const std::string& option, double& target, const std::string& help) {
    std::string& text = add(option, help, numberText(target), "X");
    conversions_.push_back([&target, &text, option] {
      const std::optional<double> v = parseNumber(text);
      if (!v || *v <= 0) gen::badOption(option, eindecomp::quoted(text) + " is not a positive number");
      target = *v;
    });
  }
  void flag(const std::string& option, bool& target, const std::string& help) { cmd_->add_flag(option, target, help); }
  void choice(const std::string& option, std::string& target, const std::vector<std::string>& choices,
              const std::string& help) {
    std::string& text = add(option, help + " (" + choiceList(choices) + ")", target, "WORD");
    conversions_.push_back([&target, &text, option, choices] {
      if (text.empty() && target.empty()) return;  // an option without a default, not given
      for (const auto& c : choices)
        if (c == text) {
          target = text;
          return;
        }
      gen::badOption(option, eindecomp::quoted(text) + " is not one of " + choiceList(choices) + didYouMean(text, choices));
    });
  }

  void convert() const {
    for (const auto& c : conversions_) c();
  }

 private:
  std::string& add(const std::string& option, const std::string& help, const std::string& defaultText,
                   const std::string& typeName) {
    std::string& text = texts_.emplace_back(defaultText);
    CLI::Option* o = cmd_->add_option(option, text, help)->type_name(typeName);
    if (!defaultText.empty()) o->capture_default_str();
    return text;
  }

  CLI::App* cmd_;
  std::list<std::string> texts_;  // stable addresses for CLI11
  std::vector<std::function<void()>> conversions_;
};

// -o/--output, --name, --dtype and --split, which every family takes.
struct OutputOptions {
  std::string output = "-";
  std::string name;
  std::string dtype = "f32";
  bool split = false;
  PathArgs paths;  // for --split
  std::string strategy;  // llama: --strategy megatron|sequence|heads|data|zero3
  int64_t devices = 0;   // with --strategy
  int64_t tensorParallel = 0;  // with --strategy megatron: tensor parallelism inside groups of T ranks
  std::string recompute;       // with --strategy: "layers" (every layer's activations computed again)
  bool noGradientFusion = false;  // with --strategy data|megatron: the graph's gradient casts kept
};

// One family: `configure` declares its options, `make` builds the graph, `sizeOptions`
// are named when the sizes it was given overflow, `examples` end its --help.
struct FamilySpec {
  std::string name;
  std::string help;
  std::string sizeOptions;
  std::string examples;
  std::function<void(FamilyOptions&)> configure;
  std::function<Graph(const gen::CommonOptions&)> make;
  bool strategies = false;  // takes --strategy and -p: writes a hand plan instead of the graph
};

// The graph's provenance command: the family and the options given, in the order the
// family declares them, without -o (and the plan options): the same options write the
// same bytes wherever they go, so a hand plan (--strategy) can name the graph's hash.
std::string canonicalCommand(const CLI::App* cmd) {
  std::string line = "einplan gen " + cmd->get_name();
  for (const CLI::Option* o : cmd->get_options()) {
    const std::string name = o->get_name();
    if (o->count() == 0 || name == "-o" || name == "--output" || name == "--strategy" || name == "-p" || name == "--devices" ||
        name == "--tensor-parallel" || name == "--recompute" || name == "--no-gradient-fusion" ||
        name == "--help" || name == "-h")
      continue;
    const std::string flag = o->get_lnames().empty() ? name : "--" + o->get_lnames()[0];
    line += " " + flag;
    if (o->get_expected_min() > 0)
      for (const std::string& value : o->results()) line += " " + shellWord(value);
  }
  return line;
}

// --strategy: the plan of `strategy` for the graph `text` (as written), as a plan file.
std::string strategyPlanText(const std::string& text, const std::string& strategy, int64_t devices, int64_t tensorParallel,
                             bool recomputeLayers, bool fuseGradientCasts, const std::string& output) {
  const LoadedGraph loaded = loadGraphTextForPlanning(text, "generated graph", GraphFormat::Yaml, PathOptions{});
  PlanOptions options;
  options.devices = devices;
  StrategyPlan hand = strategyPlan(strategy, loaded.graph, devices, tensorParallel, recomputeLayers, fuseGradientCasts);
  options.pinned = std::move(hand.partitions);
  options.pinnedPlacements = std::move(hand.placements);
  options.invariantsPerMicroBatch = hand.invariantsPerMicroBatch;
  // The fused gradient casts, zero3's and --recompute layers' copies, which the partitions name.
  const Graph graph = withPlanRewrites(loaded.graph, hand.fusedGradientCasts, hand.shardAtRest, hand.recompute);
  Plan plan = planGraph("fixed", graph, options);
  plan.algorithm = strategy;
  plan.fusedGradientCasts = hand.fusedGradientCasts;
  if (!hand.fusedGradientCasts.empty())
    plan.notes.push_back("gradient accumulation fusion: " + std::to_string(hand.fusedGradientCasts.size()) +
                         " weight gradients write f32 under their casts' names (fused_gradient_casts), accumulated over the "
                         "micro-batches and reduced once per step; --no-gradient-fusion keeps the casts");
  plan.shardAtRest = hand.shardAtRest;
  plan.recompute = hand.recompute;
  const PlanCost cost = costPlan(graph, plan, std::nullopt);
  Provenance provenance;
  provenance.toolVersion = EINDECOMP_VERSION_STRING;
  provenance.commandLine = commandLine();
  provenance.graphSha256 = loaded.sha256;
  Report report = makeReport(graph, plan, cost, provenance, options.objective);
  if (strategy == "data" && devices > 1) {
    // What the strategy is measured against (docs/planner.md, "Hand strategies").
    const int64_t gradients = inputGradientBytes(graph);
    report.notes.push_back("data parallel: the step's gradients are " + formatBytes(gradients) + "; a ring all-reduce of them moves " +
                           formatBytes(2 * (devices - 1) * gradients) + " in all (2 (p - 1) x the gradients), this plan " +
                           formatBytes(cost.trafficBytes) + " (each gradient's partial results to its owner, then to the " +
                           "calls of its update)");
    if (const int64_t casts = masterCastBytes(graph); casts > 0) {
      const int64_t closedForm = (devices - 1) * (gradients + casts);
      report.notes.push_back("data parallel with master weights: a distributed optimizer (Megatron's; DDP with ZeRO-1) "
                             "reduce-scatters the gradients and all-gathers the " + formatBytes(casts) + " of weight casts "
                             "once per step, (p - 1) x both: " + std::to_string(closedForm) + " bytes in all (" +
                             formatBytes(closedForm) + "), this plan " + std::to_string(cost.trafficBytes) + " bytes (" +
                             formatBytes(cost.trafficBytes) + ")");
    }
  }
  return renderReport(report, output == "-" ? ReportFormat::Json : reportFormatForPath(output));
}

void addFamily(CLI::App* gen, int& status, const FamilySpec& spec) {
  CLI::App* cmd = gen->add_subcommand(spec.name, spec.help);
  cmd->footer("Examples:\n" + spec.examples + "\nThe format follows -o's extension (.yaml, .yml, .json); without -o the "
              "graph goes to standard output as YAML. Limits: docs/workloads.md.");
  auto options = std::make_shared<FamilyOptions>(cmd);
  spec.configure(*options);
  auto out = std::make_shared<OutputOptions>();
  cmd->add_option("-o,--output", out->output, "graph file to write (.yaml, .yml or .json; default -: YAML on stdout)")
      ->type_name("FILE");
  cmd->add_option("--name", out->name, "the graph's name (default: the family's)")->type_name("NAME");
  options->choice("--dtype", out->dtype, {"f32", "f64", "bf16", "f16"}, "element type (bf16, f16: 2-byte storage, f32 arithmetic)");
  CLI::Option* split = cmd->add_flag("--split", out->split,
                                     "write nodes of three or more operands already split into binary contractions "
                                     "along the optimized path (steps named NODE__1, NODE__2, ..., the last keeps NODE)");
  for (CLI::Option* option : addPathOptions(cmd, out->paths)) option->needs(split);
  if (spec.strategies) {
    CLI::Option* strategy = cmd->add_option("--strategy", out->strategy,
                                            "write, instead of the graph, the plan of a hand strategy for the graph these "
                                            "options write as YAML: megatron, sequence or heads; for --train (megatron too), data or zero3 (docs/planner.md)")
                                ->type_name("WORD");
    cmd->add_option("-p,--devices", out->devices, "the device count of the --strategy plan")->type_name("N")->needs(strategy);
    cmd->add_option("--tensor-parallel", out->tensorParallel,
                    "megatron inside groups of T consecutive ranks (a node of a cluster), data parallel across the p/T groups")
        ->type_name("T")
        ->needs(strategy);
    cmd->add_option("--recompute", out->recompute,
                    "layers: every layer's activations computed again before its backward, as published runs do "
                    "(only each layer's input is held; the plan carries the entries)")
        ->type_name("WHAT")
        ->check(CLI::IsMember({"layers"}))
        ->needs(strategy);
    cmd->add_flag("--no-gradient-fusion", out->noGradientFusion,
                  "data and megatron with --micro-batches: keep each bf16 weight gradient's cast back to f32, reduced in "
                  "every micro-batch (by default the plan fuses each into its gradient, accumulated in f32 and reduced once "
                  "per step, as DDP and Megatron-LM do: fused_gradient_casts)")
        ->needs(strategy);
  }
  cmd->callback([&status, spec, options, out, cmd] {
    status = runCommand([&] {
      checkOutputFile(out->output, "-o");
      options->convert();
      gen::CommonOptions common;
      common.name = out->name;
      common.dtype = *einrt::dtypeFromName(out->dtype);
      gen::GeneratedFile file;
      file.path = out->strategy.empty() ? out->output : "-";  // a hand plan hashes the YAML graph
      file.provenance = {"einplan", EINDECOMP_VERSION_STRING, canonicalCommand(cmd), {}};
      file.sizeOptions = spec.sizeOptions;
      file.split = out->split;
      if (out->split) file.paths = toPathOptions(out->paths);
      const std::string text = gen::generatedGraphText(spec.make(common), file);
      if (out->strategy.empty()) {
        writeFileAtomically(out->output, text);
        return kExitOk;
      }
      if (out->devices <= 0) throw InputError({{}, "--strategy needs the device count: add -p N"});
      writeFileAtomically(out->output, strategyPlanText(text, out->strategy, out->devices, out->tensorParallel,
                                                        out->recompute == "layers", !out->noGradientFusion, out->output));
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
      "  syn tt fctn tw getd trn   tensor networks of the Einsum Trees paper, Table 5 [--scale D]\n\n"
      "Examples:\n"
      "  einplan gen matrix-chain --shape skewed --scale 1000 -o chain.yaml\n"
      "  einplan gen llama --preset 7b --layers 2 --seq 512 -o llama.json\n"
      "  einplan gen attention | einplan check -\n\n"
      "Run `einplan gen FAMILY --help` for a family's options.");

  auto matrixChain = std::make_shared<gen::MatrixChainOptions>();
  addFamily(gen, status,
            {"matrix-chain",
             "(A*B)+(C*(D*E)) as in EinDecomp section 9, experiment 1. square: all s x s; skewed: A s x .1s, "
             "B .1s x s, C s x .1s, D .1s x 10s, E 10s x s",
             "--scale",
             "  einplan gen matrix-chain --scale 4096 -o chain.yaml\n"
             "  einplan gen matrix-chain --shape skewed --scale 1000 --dtype f64 -o skewed.json\n",
             [o = matrixChain](FamilyOptions& c) {
               c.choice("--shape", o->shape, {"square", "skewed"}, "the paper's two chains");
               c.count("--scale", o->scale, "s (a multiple of 10 for skewed)");
             },
             [o = matrixChain](const gen::CommonOptions& common) {
               o->common = common;
               return gen::makeMatrixChain(*o);
             }});

  auto ffnn = std::make_shared<gen::FfnnOptions>();
  addFamily(gen, status,
            {"ffnn",
             "one SGD training step of a feed-forward classifier (relu layers, softmax cross-entropy or squared "
             "loss, backward pass, update), as in EinDecomp experiment 2",
             "--batch/--features/--hidden/--classes",
             "  einplan gen ffnn -o ffnn.yaml\n"
             "  einplan gen ffnn --batch 16 --features 64 --hidden 32,32 --classes 10 -o small.yaml\n",
             [o = ffnn](FamilyOptions& c) {
               c.count("--batch", o->batch, "batch size B");
               c.count("--features", o->features, "input features F");
               c.countList("--hidden", o->hidden, "hidden layer widths H1,H2,...");
               c.count("--classes", o->classes, "output classes C");
               c.choice("--loss", o->loss, {"xent", "squared"}, "softmax cross-entropy or squared loss");
               c.positiveNumber("--lr", o->learningRate, "learning rate");
               c.choice("--optimizer", o->optimizer, {"sgd", "adamw"},
                        "the update: sgd (W_new, the paper's) or adamw (torch.optim.AdamW's defaults; state inputs W_m, "
                        "W_v, step)");
               c.count("--micro-batches", o->microBatches,
                       "gradient accumulation: forward and backward M times over B/M rows of X and Y, the gradients and "
                       "the (scalar, mean) loss summed, one update");
             },
             [o = ffnn](const gen::CommonOptions& common) {
               o->common = common;
               return gen::makeFfnn(*o);
             }});

  auto attention = std::make_shared<gen::AttentionOptions>();
  addFamily(gen, status,
            {"attention",
             "multi-head attention as in EinDecomp section 3 (rank-3 projections, scaled scores, softmax from four "
             "EinSums, output projection)",
             "--batch/--seq/--dim/--heads",
             "  einplan gen attention -o attention.yaml\n"
             "  einplan gen attention --batch 2 --seq 16 --dim 32 --heads 4 | einplan check -\n",
             [o = attention](FamilyOptions& c) {
               c.count("--batch", o->batch, "batch size");
               c.count("--seq", o->seq, "sequence length");
               c.count("--dim", o->dim, "model dimension (attributes)");
               c.count("--heads", o->heads, "attention heads (must divide --dim)");
             },
             [o = attention](const gen::CommonOptions& common) {
               o->common = common;
               return gen::makeAttention(*o);
             }});

  auto llama = std::make_shared<gen::LlamaOptions>();
  addFamily(gen, status,
            {"llama",
             "LLaMA prefill (first-token inference): RMSNorm, rotary attention, SwiGLU, residuals, final norm, "
             "vocabulary projection. Presets: 7b (dim 4096, 32 layers, 32 heads, ffn 11008, vocab 32000), "
             "13b (5120, 40, 40, 13824), 65b (8192, 80, 64, 22016)",
             "--seq/--batch/--dim/--heads/--ffn/--vocab",
             "  einplan gen llama --preset 7b -o llama7b.yaml\n"
             "  einplan gen llama --preset 13b --layers 4 --seq 2048 --batch 2 -o llama13b.json\n"
             "  einplan gen llama --layers 2 --dim 64 --heads 4 --ffn 172 --vocab 100 --seq 16 -o tiny.yaml\n",
             [o = llama](FamilyOptions& c) {
               c.choice("--preset", o->preset, {"7b", "13b", "65b"}, "published model sizes");
               c.optionalCount("--layers", o->layers, "number of layers (default: the preset's; at most 3030)");
               c.count("--seq", o->seq, "sequence length");
               c.count("--batch", o->batch, "batch size");
               c.optionalCount("--dim", o->dim, "override the model dimension (small runs)");
               c.optionalCount("--heads", o->heads, "override the number of heads");
               c.optionalCount("--ffn", o->ffn, "override the feed-forward width");
               c.optionalCount("--vocab", o->vocab, "override the vocabulary size");
               c.flag("--train", o->train, "a training step: mean cross-entropy loss against one-hot targets, its "
                                         "gradient with respect to every weight (einplan grad) and the SGD update");
               c.positiveNumber("--lr", o->learningRate, "learning rate of --train's update");
               c.choice("--optimizer", o->optimizer, {"sgd", "adamw"},
                        "--train's update: sgd, or adamw (torch.optim.AdamW's defaults; state inputs W_m, W_v, step)");
               c.count("--micro-batches", o->microBatches,
                       "with --train: gradient accumulation, forward and backward M times over batch/M sequences, the "
                       "gradients and the loss summed, one update");
               c.flag("--no-grad-outputs", o->noGradientOutputs,
                      "with --train: the gradients are read by the update only (not outputs; freed after it)");
               c.choice("--master", o->master, {"f32", "f64"},
                        "with --train: mixed precision, master weights of this type (f32) read through casts to "
                        "--dtype (bf16); gradients, optimizer state and update of this type");
               c.flag("--gradient-accumulation-fusion", o->gradientAccumulationFusion,
                      "with --master: each weight gradient's bf16 GEMM writes f32 itself (Megatron's fusion), so the "
                      "micro-batches accumulate it in f32 and a data-parallel plan reduces it once per step");
             },
             [o = llama](const gen::CommonOptions& common) {
               o->common = common;
               return gen::makeLlama(*o);
             },
             true});

  for (const auto& net : gen::einsumTreesNetworks()) {
    auto o = std::make_shared<gen::TensorNetworkOptions>();
    o->id = net.id;
    addFamily(gen, status,
              {net.id, "Einsum Trees paper, Table 5: " + net.description + " (" + net.einsum + ")", "--scale",
               "  einplan gen " + net.id + " -o " + net.id + ".yaml\n  einplan gen " + net.id +
                   " --scale 4 --split -o " + net.id + "-small.yaml\n",
               [o](FamilyOptions& c) { c.count("--scale", o->scale, "divide every size by D (sizes stay at least 1)"); },
               [o](const gen::CommonOptions& common) {
                 o->common = common;
                 return gen::makeTensorNetwork(*o);
               }});
  }
}

}  // namespace eindecomp::cli
