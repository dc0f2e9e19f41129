#include "planner/graph/shard_at_rest.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "planner/graph/identifiers.h"

namespace eindecomp {

namespace {

bool readsNotPointwise(const Node& n, const std::string& input) {
  for (std::size_t k = 0; k < n.inputs.size(); ++k)
    if (n.inputs[k] == input && !readsPointwise(n, k)) return true;
  return false;
}

bool isShardable(const Graph& g, const InputTensor& t) {
  if (t.indexType || t.shape.empty()) return false;
  return std::any_of(g.nodes.begin(), g.nodes.end(), [&](const Node& n) { return readsNotPointwise(n, t.name); });
}

// The identity EinSum over input t: d0 d1 ... -> d0 d1 ...
Node copyOf(const InputTensor& t, const std::string& name) {
  Node copy;
  copy.name = name;
  copy.inputs = {t.name};
  Labels labels;
  for (std::size_t d = 0; d < t.shape.size(); ++d) {
    labels.push_back("d" + std::to_string(d));
    copy.labelSizes[labels.back()] = t.shape[d];
  }
  copy.operandLabels = {labels};
  copy.outputLabels = labels;
  std::string text;
  for (const Label& l : labels) text += (text.empty() ? "" : " ") + l;
  copy.einsum = text + " -> " + text;
  copy.joinName = "x";
  copy.join = Expr::x();
  copy.agg = Reduce::Sum;
  copy.loc = t.loc;
  return copy;
}

void applyOne(Graph& g, const ShardAtRest& entry, std::unordered_set<std::string>& used,
              std::unordered_map<std::string, int>& suffixes) {
  const InputTensor* t = findInput(g, entry.input);
  if (!t) throw InputError({entry.loc, "shard_at_rest: " + quoted(entry.input) + " is not an input of the graph"});
  if (t->indexType || t->shape.empty())
    throw InputError({entry.loc, "shard_at_rest: " + quoted(entry.input) + " is " +
                                     (t->indexType ? "an index tensor" : "a scalar") + "; only float tensors are sharded at rest"});
  if (!isShardable(g, *t))
    throw InputError({entry.loc, "shard_at_rest: " + quoted(entry.input) +
                                     " is read only pointwise (or not at all): its readers already hold only their blocks"});
  const InputTensor input = *t;
  std::vector<Node> nodes;
  nodes.reserve(g.nodes.size());
  for (Node& n : g.nodes) {
    if (readsNotPointwise(n, input.name)) {
      Node copy = copyOf(input, freshName(identifierFrom(input.name + "_fetched"), used, suffixes));
      for (std::size_t k = 0; k < n.inputs.size(); ++k)
        if (n.inputs[k] == input.name && !readsPointwise(n, k)) n.inputs[k] = copy.name;
      nodes.push_back(std::move(copy));
    }
    nodes.push_back(std::move(n));
  }
  g.nodes = std::move(nodes);
}

}  // namespace

bool readsPointwise(const Node& n, std::size_t k) {
  return !isIndexNode(n) && !isWindowed(n, k) && n.operandLabels[k] == n.outputLabels && aggregatedLabels(n).empty();
}

Graph withInputsShardedAtRest(const Graph& g, const std::vector<ShardAtRest>& entries) {
  Graph out = g;
  if (entries.empty()) return out;
  std::unordered_set<std::string> used;
  for (const InputTensor& t : g.inputs) used.insert(t.name);
  for (const Node& n : g.nodes) used.insert(n.name);
  std::unordered_map<std::string, int> suffixes;
  std::set<std::string> seen;
  for (const ShardAtRest& e : entries) {
    if (!seen.insert(e.input).second)
      throw InputError({e.loc, "shard_at_rest: " + quoted(e.input) + " is given twice"});
    applyOne(out, e, used, suffixes);
  }
  return out;
}

std::vector<std::string> shardableInputs(const Graph& g) {
  std::vector<std::string> out;
  for (const InputTensor& t : g.inputs)
    if (isShardable(g, t)) out.push_back(t.name);
  return out;
}

Graph withPlanRewrites(const Graph& g, const std::vector<FusedGradientCast>& fused, const std::vector<ShardAtRest>& shards,
                       const std::vector<Recompute>& recompute) {
  if (fused.empty() && shards.empty()) return withRecompute(g, recompute);
  const Graph widened = withFusedGradientCasts(g, fused);
  if (shards.empty()) return withRecompute(widened, recompute);
  return withRecompute(withInputsShardedAtRest(widened, shards), recompute);
}

}  // namespace eindecomp
