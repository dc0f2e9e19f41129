// brute: exhaustive search over every combination of the nodes' candidate partitions,
// depth-first in topological order with branch-and-bound (costs are non-negative, so a
// partial plan already as expensive as the best complete one is abandoned). It refuses
// search spaces above options.bruteLimit combinations (exit 2). It exists to check the
// other algorithms on small graphs.
#include <cmath>

#include "planner/algorithms/planning.h"
#include "planner/algorithms/search_space.h"
#include "planner/cost/checked_math.h"

namespace eindecomp {

namespace {

struct BruteSearch {
  SearchSpace& s;
  std::vector<int> choice;
  std::vector<int> best;
  int64_t bestCost = -1;

  void visit(std::size_t v, int64_t partial) {
    if (v == s.nodes.size()) {
      if (bestCost < 0 || partial < bestCost) {
        bestCost = partial;
        best = choice;
      }
      return;
    }
    const NodeCandidates& node = *s.nodes[v];
    for (std::size_t c = 0; c < node.parts.size(); ++c) {
      choice[v] = static_cast<int>(c);
      int64_t cost = checkedAdd(partial, node.local[c], "plan cost");
      for (int ei : s.inEdges[v]) {
        const SearchEdge& e = s.edges[ei];
        cost = checkedAdd(cost, edgeCost(s, e, s.nodes[e.from]->outIndex[choice[e.from]], node.operandIndex[e.operand][c]), "plan cost");
      }
      if (bestCost >= 0 && cost >= bestCost) continue;
      visit(v + 1, cost);
    }
  }
};

}  // namespace

PartitionChoice partitionBrute(const Graph& g, const PlanOptions& options) {
  SearchSpace s = buildSearchSpace(g, options);
  double combinations = 1;
  for (const NodeCandidates* node : s.nodes) combinations *= static_cast<double>(node->parts.size());
  if (combinations > options.bruteLimit)
    throw InputError({{g.sourceFile, 0, 0}, "brute: the search space has " + std::to_string(std::llround(std::min(combinations, 9e18))) +
                                                " combinations of node partitions, above the limit of " +
                                                std::to_string(std::llround(options.bruteLimit)) + "; use eindecomp"});
  BruteSearch search{s, std::vector<int>(s.nodes.size(), -1), {}, -1};
  search.visit(0, 0);
  PartitionChoice choice{chosenParts(s, search.best), s.notes, true};
  for (const auto& node : s.nodes)
    if (node->truncated) choice.optimal = false;
  return choice;
}

}  // namespace eindecomp
