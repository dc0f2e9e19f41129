#include "planner/algorithms/strategies.h"

#include <algorithm>
#include <optional>
#include <set>

#include "planner/graph/diagnostic.h"
#include "planner/graph/identifiers.h"

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

// The tensor-parallel labels of a node under megatron (inner), and the data-parallel ones.
std::vector<Label> megatronInner(const NodeSpace& space) {
  if (has(space, "h")) return {"h"};
  if (has(space, "f")) return {"f"};
  if (has(space, "v")) return {"v"};
  return {"s", "t"};
}

// Megatron inside nodes of T ranks, data parallel across them: inner and outer parts per
// label, and each call's rank outer * T + inner (the coordinate of a label with inner
// parts i and outer parts o is outer * i + inner: a data-parallel chunk is contiguous).
void megatronOnNodes(const NodeSpace& space, int64_t p, int64_t t, Parts& parts, std::vector<int>& ranks) {
  const Parts inner = deal(space, t, megatronInner(space));
  NodeSpace rest = space;
  for (std::size_t k = 0; k < rest.sizes.size(); ++k) rest.sizes[k] /= inner[k];
  const Parts outer = deal(rest, p / t, {"b", "s", "t"});
  parts.assign(space.labels.size(), 1);
  int64_t calls = 1;
  for (std::size_t k = 0; k < parts.size(); ++k) calls *= (parts[k] = inner[k] * outer[k]);
  ranks.assign(static_cast<std::size_t>(calls), 0);
  for (int64_t c = 0; c < calls; ++c) {
    int64_t remaining = c, innerIndex = 0, outerIndex = 0, innerScale = 1, outerScale = 1;
    for (std::size_t k = parts.size(); k-- > 0;) {
      const int64_t x = remaining % parts[k];
      remaining /= parts[k];
      innerIndex += (x % inner[k]) * innerScale;
      outerIndex += (x / inner[k]) * outerScale;
      innerScale *= inner[k];
      outerScale *= outer[k];
    }
    ranks[static_cast<std::size_t>(c)] = static_cast<int>(outerIndex * t + innerIndex);
  }
}

Parts megatron(const NodeSpace& space, int64_t p) {
  if (has(space, "h")) return deal(space, p, {"h", "b", "s", "t"});
  if (has(space, "f")) return deal(space, p, {"f", "b", "s"});
  if (has(space, "v")) return deal(space, p, {"v", "b", "s"});
  return deal(space, p, {"b", "s", "t"});
}

Parts sequence(const NodeSpace& space, int64_t p) { return deal(space, p, {"s", "t", "b"}); }

// Batch, sequence, then the node's other labels in order (an update: the weight's own).
Parts data(const NodeSpace& space, int64_t p) {
  std::vector<Label> order{"b", "s", "t"};
  for (const Label& l : space.labels)
    if (std::find(order.begin(), order.end(), l) == order.end()) order.push_back(l);
  return deal(space, p, order);
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

const std::vector<std::string>& strategyNames() {
  static const std::vector<std::string> names{"megatron", "sequence", "heads", "data", "zero3"};
  return names;
}

StrategyPlan strategyPlan(const std::string& strategy, const Graph& g, int64_t devices, int64_t tensorParallel) {
  Parts (*rule)(const NodeSpace&, int64_t) = strategy == "megatron" ? megatron : strategy == "sequence" ? sequence
                                           : strategy == "heads"    ? heads
                                           : strategy == "data" || strategy == "zero3" ? data
                                                                    : nullptr;
  if (strategy == "zero1" || strategy == "zero2")
    throw InputError({{}, "--strategy " + strategy + ": use data, which shards the optimizer state and the gradients "
                              "already (every node's calls are spread over the p ranks: no update is repeated on "
                              "every rank), or zero3, which also shards the weights at rest"});
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
  std::optional<Graph> sharded;
  if (strategy == "zero3") {
    plan.shardAtRest = trainedWeights(g);
    if (plan.shardAtRest.empty())
      throw InputError({{}, "--strategy zero3: the graph has no trained weight (an input that an update reads "
                            "pointwise); zero3 is for training steps (einplan gen llama --train)"});
    sharded = withInputsShardedAtRest(g, plan.shardAtRest);
  }
  for (const Node& n : (sharded ? *sharded : g).nodes) {
    const NodeSpace space = nodeSpace(n);
    cut = cut || has(space, "h") || has(space, "s");
    if (onNodes) megatronOnNodes(space, devices, tensorParallel, plan.partitions[n.name], plan.placements[n.name]);
    else plan.partitions[n.name] = rule(space, devices);
  }
  if (!cut)
    throw InputError({{}, "--strategy " + strategy + ": the graph has no head (h) or sequence (s) label; hand strategies "
                              "are for the graphs `einplan gen llama` writes"});
  return plan;
}

}  // namespace eindecomp
