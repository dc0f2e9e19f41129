// The baselines of SPEC 4 (uniform, balanced, data) and `fixed`: each node's partition
// follows from the node alone. Where a prime factor of p divides no label the factor is
// dropped, so such nodes run as fewer kernel calls (the SPEC 2 fallback, noted in the plan).
// Labels no partition cuts (a window's tap or spread labels: einrt's cuttableSizes) are
// never cut here either.
#include <algorithm>
#include <numeric>

#include "planner/algorithms/planning.h"
#include "planner/cost/cost_model.h"

namespace eindecomp {

Parts uniformPartition(const std::vector<int64_t>& sizes, int64_t p) {
  Parts d(sizes.size(), 1);
  if (sizes.empty()) return d;
  std::vector<int64_t> factors = primeFactors(p);
  std::reverse(factors.begin(), factors.end());  // largest first
  std::size_t next = 0;
  for (int64_t f : factors) {
    for (std::size_t t = 0; t < sizes.size(); ++t) {
      std::size_t i = (next + t) % sizes.size();
      if ((sizes[i] / d[i]) % f == 0) {
        d[i] *= f;
        next = i + 1;
        break;
      }
    }
  }
  return d;
}

Parts balancedPartition(const std::vector<int64_t>& sizes, int64_t p) {
  Parts d(sizes.size(), 1);
  for (int64_t f : primeFactors(p)) {  // smallest first
    int chosen = -1;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      int64_t extent = sizes[i] / d[i];
      if (extent % f == 0 && (chosen < 0 || extent > sizes[chosen] / d[chosen])) chosen = static_cast<int>(i);
    }
    if (chosen >= 0) d[chosen] *= f;
  }
  return d;
}

Parts dataPartition(const NodeSpace& space, int64_t p) {
  Parts d(space.labels.size(), 1);
  if (!space.outputLabels.empty()) {
    int first = space.outputLabels.front();
    d[first] = std::gcd(p, einrt::model::cuttableSizes(space)[static_cast<std::size_t>(first)]);
  }
  return d;
}

namespace {

void requireBinary(const Graph& g) {
  for (const Node& n : g.nodes)
    if (n.operandLabels.empty() || n.operandLabels.size() > 2)
      throw InputError({n.loc, "node '" + n.name + "' has " + std::to_string(n.operandLabels.size()) +
                                   " operands; the planner needs 1 or 2 (split n-ary contractions first)"});
}

template <typename Rule>
PartitionChoice perNodeChoice(const Graph& g, const PlanOptions& options, const std::string& name, Rule rule) {
  requireBinary(g);
  PartitionChoice choice;
  std::vector<Parts>& parts = choice.parts;
  for (const Node& n : g.nodes) {
    NodeSpace space = nodeSpace(n);
    auto pin = options.pinned.find(n.name);
    parts.push_back(pin != options.pinned.end() ? pin->second : rule(space));
  }
  for (std::size_t i = 0; i < parts.size(); ++i) {
    int64_t calls = 1;
    for (int64_t d : parts[i]) calls *= d;
    if (calls < options.devices)
      choice.notes.push_back("node '" + g.nodes[i].name + "': " + name + " gives " + std::to_string(calls) +
                             " kernel calls for " + std::to_string(options.devices) + " devices");
  }
  return choice;
}

}  // namespace

PartitionChoice partitionUniform(const Graph& g, const PlanOptions& options) {
  return perNodeChoice(g, options, "uniform",
                       [&](const NodeSpace& s) { return uniformPartition(einrt::model::cuttableSizes(s), options.devices); });
}

PartitionChoice partitionBalanced(const Graph& g, const PlanOptions& options) {
  return perNodeChoice(g, options, "balanced",
                       [&](const NodeSpace& s) { return balancedPartition(einrt::model::cuttableSizes(s), options.devices); });
}

PartitionChoice partitionData(const Graph& g, const PlanOptions& options) {
  return perNodeChoice(g, options, "data", [&](const NodeSpace& s) { return dataPartition(s, options.devices); });
}

PartitionChoice partitionFixed(const Graph& g, const PlanOptions& options) {
  for (const Node& n : g.nodes)
    if (!options.pinned.count(n.name))
      throw InputError({n.loc, "fixed: the plan gives no partition for node '" + n.name + "'"});
  return perNodeChoice(g, options, "fixed", [](const NodeSpace&) { return Parts{}; });
}

}  // namespace eindecomp
