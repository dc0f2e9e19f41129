#include "frontends/gen/llama.h"

#include <cctype>

#include "frontends/autodiff/grad.h"

#include <cmath>

#include "frontends/gen/graph_builder.h"
#include "planner/graph/units.h"

namespace eindecomp::gen {

namespace {

// Nodes per layer (two RMSNorms of 4, q k v, two rotary embeddings of 4, attention 9,
// feed-forward 5) and after the last layer (RMSNorm, logits); tests check the count.
constexpr int64_t kNodesPerLayer = 33;
constexpr int64_t kFinalNodes = 5;
// With --train (einplan grad's backward pass and the SGD updates): 117 nodes a layer and
// 31 more, counted on generated graphs; the bound below keeps a margin.
constexpr int64_t kTrainNodesPerLayer = 120;
constexpr int64_t kTrainFinalNodes = 40;
// Trained weights: 9 a layer, 2 after the last (norm, output). An update other than SGD's
// one node a weight adds what its recipe (frontends/autodiff/update.h) has beyond that.
constexpr int64_t kWeightsPerLayer = 9;
constexpr int64_t kFinalWeights = 2;

struct LlamaSizes {
  int64_t dim, layers, heads, ffn, vocab;
};

LlamaSizes presetSizes(const std::string& preset) {
  if (preset == "7b") return {4096, 32, 32, 11008, 32000};
  if (preset == "13b") return {5120, 40, 40, 13824, 32000};
  if (preset == "65b") return {8192, 80, 64, 22016, 32000};
  badOption("--preset", "must be 7b, 13b or 65b, got '" + preset + "'");
}

// RMSNorm of `x` [b,s,a] with weight [a]: four EinSums. Returns the result's name.
std::string rmsNorm(GraphBuilder& b, const std::string& prefix, const std::string& x, const std::string& weight,
                    int64_t dim, double eps) {
  b.node(prefix + "_ss", "bsa->bs", {x}, "x * x");
  b.node(prefix + "_rinv", "bs->bs", {prefix + "_ss"},
         "rsqrt(x / " + std::to_string(dim) + " + " + numberText(eps) + ")");
  b.node(prefix + "_xn", "bsa,bs->bsa", {x, prefix + "_rinv"});
  b.node(prefix, "bsa,a->bsa", {prefix + "_xn", weight});
  return prefix;
}

// Rotary embedding of q or k ([b,pos,h,r,e], pos = s or t): q * cos + (rot q) * sin.
std::string rope(GraphBuilder& b, const std::string& x, char pos) {
  const std::string p(1, pos);
  const std::string t = "b" + p + "hre";
  b.node(x + "_rot", "ru,b" + p + "hue->" + t, {"rope_rot", x});
  b.node(x + "_cos", t + "," + p + "e->" + t, {x, "rope_cos"});
  b.node(x + "_sin", t + "," + p + "e->" + t, {x + "_rot", "rope_sin"});
  b.node(x + "_rope", t + "," + t + "->" + t, {x + "_cos", x + "_sin"}, "add");
  return x + "_rope";
}

// --train's update: --optimizer's rule with --lr (torch's defaults otherwise).
autodiff::Update trainingUpdate(const LlamaOptions& opts) {
  autodiff::Update update;
  update.learningRate = opts.learningRate;
  if (opts.optimizer == "adamw") update.rule = autodiff::Update::Rule::AdamW;
  return update;
}

}  // namespace

Graph makeLlama(const LlamaOptions& opts) {
  LlamaSizes z = presetSizes(opts.preset);
  if (opts.layers) z.layers = *opts.layers;
  if (opts.dim) z.dim = *opts.dim;
  if (opts.heads) z.heads = *opts.heads;
  if (opts.ffn) z.ffn = *opts.ffn;
  if (opts.vocab) z.vocab = *opts.vocab;
  requirePositive("--layers", z.layers);
  if (!opts.train && opts.optimizer != "sgd") badOption("--optimizer", "is the update of --train; add --train");
  if (!opts.train && opts.noGradientOutputs) badOption("--no-grad-outputs", "is an option of --train; add --train");
  if (!opts.train && !opts.master.empty()) badOption("--master", "is an option of --train; add --train");
  const std::optional<DType> master = opts.master.empty() ? std::nullopt : einrt::dtypeFromName(opts.master);
  if (opts.gradientAccumulationFusion && master != DType::F32)
    badOption("--gradient-accumulation-fusion", "fuses a weight gradient's cast back to its master type; add --master f32");
  if (master && *master == opts.common.dtype)
    badOption("--master", "is the graph's --dtype already; master weights are of a wider type (--dtype bf16 --master f32)");
  const autodiff::Update update = trainingUpdate(opts);
  const autodiff::UpdateRecipe recipe = autodiff::updateRecipe(update);
  // Beyond SGD's node: the optimizer's other nodes, and with --master a weight's two casts.
  const auto extraPerWeight = static_cast<int64_t>(recipe.tensorNodes.size()) - 1 + (master ? 2 : 0);
  const int64_t perLayer = opts.train ? kTrainNodesPerLayer + kWeightsPerLayer * extraPerWeight : kNodesPerLayer;
  const int64_t finalNodes =
      opts.train ? kTrainFinalNodes + kFinalWeights * extraPerWeight + static_cast<int64_t>(recipe.scalarNodes.size())
                 : kFinalNodes;
  requireAtMost("--layers", z.layers, (kMaxGeneratedNodes - finalNodes) / perLayer,
                "a generated graph has at most 100,000 nodes and a layer takes " + std::to_string(perLayer) +
                    (opts.train ? " with --train" : ""));
  requireExtent("--dim", z.dim);
  requireExtent("--heads", z.heads);
  requireExtent("--ffn", z.ffn);
  requireExtent("--vocab", z.vocab);
  requireExtent("--seq", opts.seq);
  requireExtent("--batch", opts.batch);
  requirePositive("--micro-batches", opts.microBatches);
  if (opts.microBatches > 1 && !opts.train) badOption("--micro-batches", "is an option of --train; add --train");
  if (opts.batch % opts.microBatches != 0)
    badOption("--micro-batches", std::to_string(opts.microBatches) + " does not divide --batch " + std::to_string(opts.batch));
  if (z.dim % (2 * z.heads) != 0)
    badOption("--heads", "dim / heads must be an even head dimension (rotary embedding pairs), got dim " +
                             std::to_string(z.dim) + " and " + std::to_string(z.heads) + " heads");
  const int64_t headDim = z.dim / z.heads;

  GraphBuilder b(graphName(opts.common, "llama_" + opts.preset + (opts.train ? "_train" : "")), opts.common.dtype);
  b.size("b", opts.batch);
  b.size("s", opts.seq);
  b.size("t", opts.seq);
  b.size("a", z.dim);
  b.size("h", z.heads);
  b.size("d", headDim);
  b.size("r", 2);
  b.size("u", 2);
  b.size("e", headDim / 2);
  b.size("f", z.ffn);
  b.size("v", z.vocab);

  b.input("embeddings", "b s a");
  b.input("rope_cos", "s e");
  b.input("rope_sin", "s e");
  b.input("rope_rot", "r u");
  b.input("mask", "s t");
  const std::string scale = numberText(1.0 / std::sqrt(static_cast<double>(headDim)));

  std::string x = "embeddings";
  for (int64_t l = 0; l < z.layers; ++l) {
    const std::string L = "L" + std::to_string(l);
    b.input(L + "_attn_norm", "a");
    b.input(L + "_wq", "a h r e");
    b.input(L + "_wk", "a h r e");
    b.input(L + "_wv", "a h d");
    b.input(L + "_wo", "h d a");
    b.input(L + "_ffn_norm", "a");
    b.input(L + "_w1", "a f");
    b.input(L + "_w3", "a f");
    b.input(L + "_w2", "f a");

    const std::string xn = rmsNorm(b, L + "_attn_in", x, L + "_attn_norm", z.dim, opts.normEps);
    b.node(L + "_q", "bsa,ahre->bshre", {xn, L + "_wq"});
    b.node(L + "_k", "bta,ahre->bthre", {xn, L + "_wk"});
    b.node(L + "_v", "bta,ahd->bthd", {xn, L + "_wv"});
    const std::string q = rope(b, L + "_q", 's');
    const std::string k = rope(b, L + "_k", 't');
    b.node(L + "_scores", "bshre,bthre->bhst", {q, k});
    b.node(L + "_masked", "bhst,st->bhst", {L + "_scores", "mask"}, "x * " + scale + " + y");
    b.node(L + "_smax", "bhst->bhs", {L + "_masked"}, "", Reduce::Max);
    b.node(L + "_sexp", "bhst,bhs->bhst", {L + "_masked", L + "_smax"}, "exp(x - y)");
    b.node(L + "_ssum", "bhst->bhs", {L + "_sexp"});
    b.node(L + "_probs", "bhst,bhs->bhst", {L + "_sexp", L + "_ssum"}, "div");
    b.node(L + "_attn", "bhst,bthd->bshd", {L + "_probs", L + "_v"});
    b.node(L + "_attn_out", "bshd,hda->bsa", {L + "_attn", L + "_wo"});
    b.node(L + "_h", "bsa,bsa->bsa", {x, L + "_attn_out"}, "add");

    const std::string hn = rmsNorm(b, L + "_ffn_in", L + "_h", L + "_ffn_norm", z.dim, opts.normEps);
    b.node(L + "_gate", "bsa,af->bsf", {hn, L + "_w1"});
    b.node(L + "_up", "bsa,af->bsf", {hn, L + "_w3"});
    b.node(L + "_swiglu", "bsf,bsf->bsf", {L + "_gate", L + "_up"}, "x * sigmoid(x) * y");
    b.node(L + "_down", "bsf,fa->bsa", {L + "_swiglu", L + "_w2"});
    b.node(L + "_out", "bsa,bsa->bsa", {L + "_h", L + "_down"}, "add");
    x = L + "_out";
  }
  b.input("norm", "a");
  b.input("output", "a v");
  const std::string xn = rmsNorm(b, "final_norm", x, "norm", z.dim, opts.normEps);
  b.node("logits", "bsa,av->bsv", {xn, "output"});
  if (!opts.train) {
    b.output("logits");
    return b.build();
  }
  // Mean cross-entropy over the b x s positions: log-sum-exp (max-shifted) minus the
  // target's logit.
  b.input("targets", "b s v");
  b.node("loss_max", "bsv->bs", {"logits"}, "", Reduce::Max);
  b.node("loss_exp", "bsv,bs->bsv", {"logits", "loss_max"}, "exp(x - y)");
  b.node("loss_sum", "bsv->bs", {"loss_exp"});
  b.node("loss_lse", "bs,bs->bs", {"loss_sum", "loss_max"}, "log(x) + y");
  b.node("loss_target", "bsv,bsv->bs", {"targets", "logits"});
  b.node("loss", "bs,bs->", {"loss_lse", "loss_target"},
         "(x - y) * " + numberText(1.0 / static_cast<double>(opts.batch * opts.seq)));
  b.output("loss");
  const Graph forward = b.build();
  autodiff::GradRequest request;
  request.loss = "loss";
  for (const auto& in : forward.inputs)
    if (in.name == "norm" || in.name == "output" || (in.name.size() > 1 && in.name[0] == 'L' && std::isdigit(static_cast<unsigned char>(in.name[1]))))
      request.wrt.push_back(in.name);
  request.update = update;
  request.gradientOutputs = !opts.noGradientOutputs;
  request.master = master;
  request.gradientAccumulationFusion = opts.gradientAccumulationFusion;
  // The step over micro-batches: the activations and targets split by sequence, every
  // weight's gradient and the loss summed (output as loss_sum). The loss averages over the
  // whole batch, so that the sums are the one-pass step's.
  if (opts.microBatches > 1) request.microBatches = MicroBatches{opts.microBatches, {{"embeddings", 0, {}}, {"targets", 0, {}}}, {}, {}};
  return autodiff::differentiate(forward, request).graph;
}

}  // namespace eindecomp::gen
