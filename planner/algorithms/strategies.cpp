#include "planner/algorithms/strategies.h"

#include <algorithm>

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

Parts megatron(const NodeSpace& space, int64_t p) {
  if (has(space, "h")) return deal(space, p, {"h", "b", "s", "t"});
  if (has(space, "f")) return deal(space, p, {"f", "b", "s"});
  if (has(space, "v")) return deal(space, p, {"v", "b", "s"});
  return deal(space, p, {"b", "s", "t"});
}

Parts sequence(const NodeSpace& space, int64_t p) { return deal(space, p, {"s", "t", "b"}); }

Parts heads(const NodeSpace& space, int64_t p) {
  if (has(space, "h")) return deal(space, p, {"h", "b", "s", "t"});
  return deal(space, p, {"b", "s", "t"});
}

}  // namespace

const std::vector<std::string>& strategyNames() {
  static const std::vector<std::string> names{"megatron", "sequence", "heads"};
  return names;
}

std::map<std::string, Parts> strategyPartitions(const std::string& strategy, const Graph& g, int64_t devices) {
  Parts (*rule)(const NodeSpace&, int64_t) = strategy == "megatron" ? megatron : strategy == "sequence" ? sequence
                                           : strategy == "heads"    ? heads
                                                                    : nullptr;
  if (!rule)
    throw InputError({{}, "--strategy: unknown strategy " + quoted(strategy) + didYouMean(strategy, strategyNames()) +
                              " (known: megatron, sequence, heads)"});
  bool cut = false;
  std::map<std::string, Parts> parts;
  for (const Node& n : g.nodes) {
    const NodeSpace space = nodeSpace(n);
    cut = cut || has(space, "h") || has(space, "s");
    parts[n.name] = rule(space, devices);
  }
  if (!cut)
    throw InputError({{}, "--strategy " + strategy + ": the graph has no head (h) or sequence (s) label; hand strategies "
                              "are for the graphs `einplan gen llama` writes"});
  return parts;
}

}  // namespace eindecomp
