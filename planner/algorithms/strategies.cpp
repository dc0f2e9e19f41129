#include "planner/algorithms/strategies.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "planner/graph/diagnostic.h"
#include "planner/graph/identifiers.h"
#include "planner/graph/micro_batches.h"
#include "planner/graph/tensor_types.h"
#include "planner/paths/gemm_mapping.h"

namespace eindecomp {

namespace {

bool has(const NodeSpace& space, const Label& l) { return std::find(space.labels.begin(), space.labels.end(), l) != space.labels.end(); }

// Deals p's parts to `order`'s labels, each the largest divisor of what is left that
// divides the label's size.
Parts deal(const NodeSpace& space, int64_t devices, const std::vector<Label>& order) {
  Parts parts(space.labels.size(), 1);
  int64_t left = devices;
  for (const Label& l : order) {
    const auto it = std::find(space.labels.begin(), space.labels.end(), l);
    if (it == space.labels.end()) continue;
    const auto k = static_cast<std::size_t>(it - space.labels.begin());
    int64_t d = left;
    while (d > 1 && (left % d != 0 || space.sizes[k] % d != 0)) --d;
    parts[k] *= d;
    left /= d;
  }
  return parts;
}

// `order`, then the node's other labels in their order: a node the strategy's labels
// cannot cut p ways (a gradient's scalar broadcast, an update with no batch label) still
// runs p calls, as the plan reader requires of every node that can.
std::vector<Label> thenTheRest(const NodeSpace& space, std::vector<Label> order) {
  for (const Label& l : space.labels)
    if (std::find(order.begin(), order.end(), l) == order.end()) order.push_back(l);
  return order;
}

int64_t callsOf(const Parts& parts) {
  int64_t calls = 1;
  for (int64_t d : parts) calls *= d;
  return calls;
}

// The calls the plan reader expects of a node at p (SPEC 2: p, or the largest feasible
// count below it).
int64_t expectedCalls(const NodeSpace& space, int64_t p) {
  return std::min(p, largestFeasibleCount(einrt::model::cuttableSizes(space), p));
}

// The tensor-parallel labels of a node under megatron (inner), and the data-parallel ones.
std::vector<Label> megatronInner(const NodeSpace& space) {
  if (has(space, "h")) return {"h"};
  if (has(space, "f")) return {"f"};
  if (has(space, "v")) return {"v"};
  return {"s", "t"};
}

// Megatron inside nodes of T ranks, data parallel across them: inner and outer parts per
// label, and each call's rank outer * T + inner. Where a label has both, the coordinate of
// a label with inner parts i and outer parts o is outer * i + inner (a data-parallel chunk
// is contiguous: a group reads its chunk of the sequence whole), but on a tensor-parallel
// label (heads, feed-forward, vocabulary) inner * o + outer: a weight's cast, update and
// state cut by heads inside a group and across the groups (ZeRO-1) keep each tensor-
// parallel shard on the ranks of one place in their groups, which read it whole, so each
// gathers it from the other groups only ((G - 1) / G of it, the distributed optimizer's
// all-gather) rather than from ranks of the other tensor-parallel shard too.
void megatronOnNodes(const NodeSpace& space, int64_t p, int64_t t, Parts& parts, std::vector<int>& ranks) {
  const Parts inner = deal(space, t, thenTheRest(space, megatronInner(space)));
  NodeSpace rest = space;
  for (std::size_t k = 0; k < rest.sizes.size(); ++k) rest.sizes[k] /= inner[k];
  const Parts outer = deal(rest, p / t, thenTheRest(space, {"b", "s", "t"}));
  parts.assign(space.labels.size(), 1);
  int64_t calls = 1;
  for (std::size_t k = 0; k < parts.size(); ++k) calls *= (parts[k] = inner[k] * outer[k]);
  ranks.assign(static_cast<std::size_t>(calls), 0);
  for (int64_t c = 0; c < calls; ++c) {
    int64_t remaining = c, innerIndex = 0, outerIndex = 0, innerScale = 1, outerScale = 1;
    for (std::size_t k = parts.size(); k-- > 0;) {
      const int64_t x = remaining % parts[k];
      remaining /= parts[k];
      const Label& l = space.labels[k];
      const bool tensorParallelFirst = l == "h" || l == "f" || l == "v";
      innerIndex += (tensorParallelFirst ? x / outer[k] : x % inner[k]) * innerScale;
      outerIndex += (tensorParallelFirst ? x % outer[k] : x / inner[k]) * outerScale;
      innerScale *= inner[k];
      outerScale *= outer[k];
    }
    ranks[static_cast<std::size_t>(c)] = static_cast<int>(outerIndex * t + innerIndex);
  }
}

Parts megatron(const NodeSpace& space, int64_t p) {
  if (has(space, "h")) return deal(space, p, thenTheRest(space, {"h", "b", "s", "t"}));
  if (has(space, "f")) return deal(space, p, thenTheRest(space, {"f", "b", "s"}));
  if (has(space, "v")) return deal(space, p, thenTheRest(space, {"v", "b", "s"}));
  return deal(space, p, thenTheRest(space, {"b", "s", "t"}));
}

Parts sequence(const NodeSpace& space, int64_t p) { return deal(space, p, thenTheRest(space, {"s", "t", "b"})); }

// Batch, sequence, then the node's other labels in order (an update: the weight's own).
Parts data(const NodeSpace& space, int64_t p) { return deal(space, p, thenTheRest(space, {"b", "s", "t"})); }

// The forward tensor a gradient node stands for, by einplan grad's names (docs/grad.md):
// `d_T` is the gradient of tensor T and `d_T_N` the contribution to it through node N,
// both with T's shape; `grad_X` is input X's. Empty for any other node.
std::string gradientOf(const std::string& name, const std::map<std::string, Labels>& dims) {
  for (const std::string prefix : {"grad_", "d_"}) {
    if (name.rfind(prefix, 0) != 0) continue;
    std::string rest = name.substr(prefix.size());
    for (;;) {  // the longest tensor name that `rest` begins with, then `_` or its end
      if (dims.count(rest)) return rest;
      const std::size_t cut = rest.rfind('_');
      if (cut == std::string::npos || cut == 0) break;
      rest.resize(cut);
    }
  }
  return {};
}

// What each node's labels are in the forward's names (b, s, t, h, f, v, ...), for the
// strategies to cut the backward as they cut the forward. The forward (the nodes before
// einplan grad's first, which it appends after them: the first `d_` or `grad_` node)
// keeps its own labels, as `einplan gen llama` names them. A node of the backward or the
// update (einplan grad names its labels a, b, c, ... anew in every node, so its own names
// say nothing: its join derivatives dx_, dy_, dxy_ and softmax sums s_ read only forward
// tensors and are no less its) takes, for its output's dimensions, the names of the
// tensor it is the gradient of (d_q's are q's), then for any label still unnamed those of
// the first operand dimension it reads whose name is known; a label neither reaches gets
// a name no strategy cuts by (`~` and its own), and passes on no name.
std::vector<NodeSpace> spacesInForwardNames(const Graph& g, const std::set<std::string>& forwardCopies) {
  std::map<std::string, Labels> dimNames;  // tensor -> the name of each dimension ("": unknown)
  std::vector<NodeSpace> spaces;
  const auto backward = static_cast<std::ptrdiff_t>(backwardStart(g));
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    NodeSpace space = nodeSpace(n);
    // (A recomputed forward node, made in the backward, keeps its labels too.)
    const bool derived = static_cast<std::ptrdiff_t>(i) >= backward && !forwardCopies.count(n.name);
    Labels named(space.labels.size());
    if (!derived) {
      named = space.labels;
    } else {
      auto nameFrom = [&](const Labels& names, const std::vector<int>& dims) {
        for (std::size_t d = 0; d < dims.size() && d < names.size(); ++d)
          if (named[static_cast<std::size_t>(dims[d])].empty()) named[static_cast<std::size_t>(dims[d])] = names[d];
      };
      if (const std::string of = gradientOf(n.name, dimNames); !of.empty() && dimNames[of].size() == space.outputLabels.size())
        nameFrom(dimNames[of], space.outputLabels);
      for (std::size_t k = 0; k < n.inputs.size(); ++k)
        if (const auto it = dimNames.find(n.inputs[k]); it != dimNames.end()) nameFrom(it->second, space.operandLabels[k]);
    }
    // An operand not named yet is a graph input (nodes come in topological order, each
    // named as it is met): its first reader names it.
    for (std::size_t k = 0; k < n.inputs.size(); ++k)
      if (!dimNames.count(n.inputs[k])) {
        Labels& input = dimNames[n.inputs[k]];
        for (int d : space.operandLabels[k]) input.push_back(named[static_cast<std::size_t>(d)]);
      }
    Labels& output = dimNames[n.name];
    for (int d : space.outputLabels) output.push_back(named[static_cast<std::size_t>(d)]);
    for (std::size_t l = 0; l < named.size(); ++l)
      if (named[l].empty()) named[l] = "~" + space.labels[l];
    space.labels = std::move(named);
    spaces.push_back(std::move(space));
  }
  return spaces;
}

// The trained weights: inputs that a graph output reads pointwise (its update, X_next) and
// other nodes read otherwise (an activation input read pointwise by a residual is not one).
std::vector<ShardAtRest> trainedWeights(const Graph& g) {
  std::set<std::string> updated;  // inputs a graph output reads pointwise
  for (const std::string& output : g.outputs) {
    const Node* n = findNode(g, output);
    for (std::size_t k = 0; n && k < n->inputs.size(); ++k)
      if (readsPointwise(*n, k)) updated.insert(n->inputs[k]);
  }
  std::vector<ShardAtRest> out;
  for (const std::string& name : shardableInputs(g))
    if (updated.count(name)) out.push_back({name, {}});
  return out;
}

Parts heads(const NodeSpace& space, int64_t p) {
  if (has(space, "h")) return deal(space, p, {"h", "b", "s", "t"});
  return deal(space, p, {"b", "s", "t"});
}

}  // namespace

std::vector<FusedGradientCast> gradientCastsToFuse(const Graph& g) {
  std::vector<FusedGradientCast> out;
  for (const std::size_t i : fusibleGradientCasts(g))
    if (runsAsGemm(*findNode(g, g.nodes[i].inputs[0]))) out.push_back({g.nodes[i].name, {}});
  return out;
}

void requireGemmWidening(const Graph& fused, const std::vector<FusedGradientCast>& entries) {
  for (const FusedGradientCast& e : entries)
    if (const Node* n = findNode(fused, e.cast); n && !runsAsGemm(*n))
      throw InputError({e.loc, "fused_gradient_casts: node " + quoted(e.cast) + " casts a gradient (\"" + n->einsum +
                                   "\") whose labels make no GEMM; a widening contraction runs as one"});
}

const std::vector<std::string>& strategyNames() {
  static const std::vector<std::string> names{"megatron", "sequence", "heads", "data", "zero3"};
  return names;
}

StrategyPlan strategyPlan(const std::string& strategy, const Graph& g, int64_t devices, int64_t tensorParallel,
                          bool recomputeLayers, bool fuseGradientCasts) {
  Parts (*rule)(const NodeSpace&, int64_t) = strategy == "megatron" ? megatron : strategy == "sequence" ? sequence
                                           : strategy == "heads"    ? heads
                                           : strategy == "data" || strategy == "zero3" ? data
                                                                    : nullptr;
  if (strategy == "zero1" || strategy == "zero2")
    throw InputError({{}, "--strategy " + strategy + ": use data, which shards the optimizer state and the gradients "
                              "already (every node's calls are spread over the p ranks: no update is repeated on "
                              "every rank), or zero3, which also shards the weights at rest"});
  if (strategy == "megatron-zero1")
    throw InputError({{}, "--strategy megatron-zero1: use megatron, which for a training step shards each update and its "
                          "optimizer state over the data-parallel groups already, as ZeRO-1 does (every node's calls are "
                          "spread over the p ranks: no update is repeated in every group)"});
  if (!rule)
    throw InputError({{}, "--strategy: unknown strategy " + quoted(strategy) + didYouMean(strategy, strategyNames()) +
                              " (known: megatron, sequence, heads, data, zero3)"});
  if (tensorParallel != 0 && strategy != "megatron")
    throw InputError({{}, "--tensor-parallel is a degree of the megatron strategy, not of " + strategy});
  if (tensorParallel < 0 || (tensorParallel != 0 && devices % tensorParallel != 0))
    throw InputError({{}, "--tensor-parallel " + std::to_string(tensorParallel) + " must divide -p " + std::to_string(devices) +
                              " (T ranks of a node, p/T nodes)"});
  const bool onNodes = tensorParallel != 0 && tensorParallel < devices;
  bool cut = false;
  StrategyPlan plan;
  // DDP and Megatron-LM accumulate each weight gradient in f32 over the micro-batches and
  // reduce it once per step (gradient_fusion.h).
  std::optional<Graph> fused;
  if (fuseGradientCasts && (strategy == "data" || strategy == "megatron") && microBatchCount(g) > 1) {
    plan.fusedGradientCasts = gradientCastsToFuse(g);
    if (!plan.fusedGradientCasts.empty()) fused = withFusedGradientCasts(g, plan.fusedGradientCasts);
  }
  std::optional<Graph> sharded;
  if (strategy == "zero3") {
    plan.shardAtRest = trainedWeights(g);
    // FSDP gathers a weight again for each use, to hold it only while it is read: its
    // fetched copies (invariants, micro_batches.h) run in every micro-batch.
    plan.invariantsPerMicroBatch = true;
    // Master weights (einplan grad --master) are read pointwise only, by their updates and
    // their casts, whose outputs, cut like the weights, every reader gathers for its own
    // step: the casts are the fetched copies, and nothing is sharded at rest.
    if (plan.shardAtRest.empty() && masterCastBytes(g) == 0)
      throw InputError({{}, "--strategy zero3: the graph has no trained weight (an input that an update reads "
                            "pointwise); zero3 is for training steps (einplan gen llama --train)"});
    if (!plan.shardAtRest.empty()) sharded = withInputsShardedAtRest(g, plan.shardAtRest);
  }
  std::optional<Graph> recomputed;
  std::set<std::string> copies;  // the recomputed nodes' copies
  if (recomputeLayers) {
    const Graph& before = sharded ? *sharded : fused ? *fused : g;
    plan.recompute = layerRecompute(before);
    recomputed = withRecompute(before, plan.recompute);
    std::set<std::string> names;
    for (const Node& n : before.nodes) names.insert(n.name);
    for (const Node& n : recomputed->nodes)
      if (!names.count(n.name)) copies.insert(n.name);
  }
  const Graph& cutGraph = recomputed ? *recomputed : sharded ? *sharded : fused ? *fused : g;
  const std::vector<NodeSpace> spaces = spacesInForwardNames(cutGraph, copies);
  for (std::size_t i = 0; i < cutGraph.nodes.size(); ++i) {
    const std::string& name = cutGraph.nodes[i].name;
    const NodeSpace& space = spaces[i];
    cut = cut || has(space, "h") || has(space, "s");
    Parts& parts = plan.partitions[name];
    if (onNodes) megatronOnNodes(space, devices, tensorParallel, parts, plan.placements[name]);
    else parts = rule(space, devices);
    // Where dealing divisors in the strategy's order falls short of the calls a node can
    // run (sizes whose divisors do not combine that way), the first partition that runs
    // them, placed by the plan's rule.
    if (const int64_t expected = expectedCalls(space, devices); callsOf(parts) != expected) {
      parts = partitionsWithCount(einrt::model::cuttableSizes(space), expected, 1).at(0);
      plan.placements.erase(name);
    }
  }
  if (!cut)
    throw InputError({{}, "--strategy " + strategy + ": the graph has no head (h) or sequence (s) label; hand strategies "
                              "are for the graphs `einplan gen llama` writes"});
  return plan;
}

int64_t inputGradientBytes(const Graph& g) {
  const std::vector<DType> types = nodeOutputTypes(g);
  int64_t bytes = 0;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.name.rfind("grad_", 0) != 0 || !findInput(g, n.name.substr(5))) continue;
    bytes += elementCount(outputShape(n)) * static_cast<int64_t>(dtypeSize(types[i]));
  }
  return bytes;
}

int64_t masterCastBytes(const Graph& g) {
  const std::vector<DType> types = nodeOutputTypes(g);
  int64_t bytes = 0;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (!n.castTo || n.inputs.size() != 1 || !findInput(g, n.inputs[0])) continue;  // a cast of a graph input
    bytes += elementCount(outputShape(n)) * static_cast<int64_t>(dtypeSize(types[i]));
  }
  return bytes;
}

}  // namespace eindecomp
