// eindecomp: the EinDecomp dynamic program (the paper, section 8) with three regimes.
//
// 1. In-forest (no node feeds more than one operand of other nodes): one DP over the whole
//    graph in topological order (block_solver.h). Exact.
// 2. Otherwise let S be the nodes feeding two or more operands (a node used twice by the
//    same consumer counts). When the product of their output-layout counts, times the
//    work of one DP, is within PlanOptions::exactWorkBudget, every combination of output layouts of S
//    is tried: fixing them decouples the DAG into in-trees, each solved exactly by the DP,
//    so the minimum over the combinations is the exact optimum.
// 3. Otherwise two starting plans are built — the paper's linearization (8.4: longest
//    path first, edges leaving the path ignored) and a forest decomposition (each node
//    keeps its edge to the consumer with the longest path to a sink; the resulting trees
//    are solved one after another, edges to trees already solved charged exactly) — and
//    each is improved by block coordinate descent: every tree, then every single node, is
//    re-solved with the rest of the plan fixed, and a change is kept only when the exact
//    total cost drops. The better of the two results is kept, so the plan is never worse
//    than the paper's linearization. Where the graph is small enough, a last descent
//    over the output layouts of the multi-consumer nodes follows (each step an exact DP
//    over the decoupled in-trees).
#include <algorithm>
#include <limits>
#include <numeric>

#include "planner/algorithms/block_solver.h"
#include "planner/algorithms/planning.h"
#include "planner/algorithms/search_space.h"
#include "planner/cost/checked_math.h"

namespace eindecomp {

namespace {

constexpr int kMaxDescentRounds = 50;
// Work allowed per round of the layout descent over multi-consumer nodes.
constexpr double kLayoutDescentBudget = 1e8;

double dpWork(const SearchSpace& s) {
  double work = 0;
  for (const NodeCandidates* node : s.nodes) work += static_cast<double>(node->parts.size());
  for (const auto& e : s.edges)
    work += static_cast<double>(s.nodes[e.from]->outs.size()) * static_cast<double>(s.nodes[e.to]->operandSides[e.operand].size());
  return work;
}

// Longest path (in nodes) from each node to a sink, following node-to-node edges.
std::vector<int> heights(const SearchSpace& s) {
  std::vector<int> h(s.nodes.size(), 1);
  for (std::size_t v = s.nodes.size(); v-- > 0;)
    for (int ei : s.outEdges[v]) h[v] = std::max(h[v], 1 + h[s.edges[ei].to]);
  return h;
}

// Regime 1 and 2: the DP with the output layouts of `multi` fixed by `required`.
Block treeBlock(const SearchSpace& s, const std::vector<int>& required) {
  Block b = emptyBlock(s.nodes.size());
  for (std::size_t v = 0; v < s.nodes.size(); ++v) {
    b.free[v] = 1;
    b.requiredOut[v] = required[v];
    if (required[v] < 0 && s.outEdges[v].size() == 1) b.treeEdge[v] = s.outEdges[v][0];
  }
  return b;
}

// The paper's linearization (8.4): repeatedly take the longest path through the nodes not
// yet chosen and optimise along it alone.
std::vector<int> paperLinearization(SearchSpace& s) {
  const std::size_t n = s.nodes.size();
  std::vector<int> choice(n, -1);
  std::size_t assigned = 0;
  while (assigned < n) {
    std::vector<int> length(n, 0), previous(n, -1), previousEdge(n, -1);
    int end = -1;
    for (std::size_t v = 0; v < n; ++v) {
      if (choice[v] >= 0) continue;
      length[v] = 1;
      for (int ei : s.inEdges[v]) {
        int u = s.edges[ei].from;
        if (choice[u] < 0 && length[u] + 1 > length[v]) {
          length[v] = length[u] + 1;
          previous[v] = u;
          previousEdge[v] = ei;
        }
      }
      if (end < 0 || length[v] > length[end]) end = static_cast<int>(v);
    }
    Block b = emptyBlock(n);
    b.chargeEdgesOutside = false;
    for (int v = end; v >= 0; v = previous[v]) {
      b.free[v] = 1;
      if (previous[v] >= 0) b.treeEdge[previous[v]] = previousEdge[v];
      ++assigned;
    }
    solveBlock(s, b, choice);
  }
  return choice;
}

// Trees of the forest decomposition: every node keeps the out-edge to its consumer with the
// longest path to a sink; components of those edges, largest height first.
std::vector<std::vector<int>> forestTrees(const SearchSpace& s, std::vector<int>& primary) {
  const std::size_t n = s.nodes.size();
  std::vector<int> h = heights(s);
  primary.assign(n, -1);
  std::vector<int> root(n);
  std::iota(root.begin(), root.end(), 0);
  for (std::size_t v = n; v-- > 0;) {
    for (int ei : s.outEdges[v])
      if (primary[v] < 0 || h[s.edges[ei].to] > h[s.edges[primary[v]].to]) primary[v] = ei;
    if (primary[v] >= 0) root[v] = root[s.edges[primary[v]].to];  // consumers come later: already rooted
  }
  std::vector<std::vector<int>> trees(n);
  for (std::size_t v = 0; v < n; ++v) trees[root[v]].push_back(static_cast<int>(v));
  std::vector<std::vector<int>> out;
  for (auto& t : trees)
    if (!t.empty()) out.push_back(std::move(t));
  auto tallest = [&](const std::vector<int>& t) {
    int m = 0;
    for (int v : t) m = std::max(m, h[v]);
    return m;
  };
  std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) { return tallest(a) > tallest(b); });
  return out;
}

Block blockOf(const SearchSpace& s, const std::vector<int>& nodes, const std::vector<int>& primary) {
  Block b = emptyBlock(s.nodes.size());
  for (int v : nodes) b.free[v] = 1;
  for (int v : nodes)
    if (primary[v] >= 0 && b.free[s.edges[primary[v]].to]) b.treeEdge[v] = primary[v];
  return b;
}

std::vector<int> forestStart(SearchSpace& s, const std::vector<std::vector<int>>& trees, const std::vector<int>& primary) {
  std::vector<int> choice(s.nodes.size(), -1);
  for (const auto& t : trees) solveBlock(s, blockOf(s, t, primary), choice);
  return choice;
}

// Cost of node v under candidate c with every other node as in `choice`: its join + agg
// and every edge touching it (all other nodes chosen, so this is exact). Where `beat` is
// given, the edges' floors come first (knownEdgeCost's, then tightEdgeFloor's): where their
// sum already reaches `beat`, that sum instead, as the exact cost cannot beat it either.
int64_t costAround(SearchSpace& s, const std::vector<int>& choice, int v, int c,
                   int64_t beat = std::numeric_limits<int64_t>::max()) {
  const NodeCandidates& node = *s.nodes[v];
  enum Pass { QuickFloors, TightFloors, Exact };
  auto edge = [&](Pass pass, const SearchEdge& e, int out, int in) {
    bool exact = false;
    if (pass == QuickFloors) return knownEdgeCost(s, e, out, in, exact);
    return pass == TightFloors ? tightEdgeFloor(s, e, out, in) : edgeCost(s, e, out, in);
  };
  for (Pass pass : {QuickFloors, TightFloors, Exact}) {
    if (pass != Exact && beat == std::numeric_limits<int64_t>::max()) continue;
    int64_t cost = node.local[c];
    for (int ei : s.inEdges[v]) {
      const SearchEdge& e = s.edges[ei];
      cost = checkedAdd(cost, edge(pass, e, s.nodes[e.from]->outIndex[choice[e.from]], node.operandIndex[e.operand][c]), "plan cost");
    }
    for (int ei : s.outEdges[v]) {
      const SearchEdge& e = s.edges[ei];
      cost = checkedAdd(cost, edge(pass, e, node.outIndex[c], s.nodes[e.to]->operandIndex[e.operand][choice[e.to]]), "plan cost");
    }
    if (pass == Exact || cost >= beat) return cost;
  }
  return beat;  // not reached: the exact pass returns
}

// The nodes whose choices a re-solve of `nodes` depends on: themselves and every node
// an edge joins to one of them.
std::vector<int> neighbourhood(const SearchSpace& s, const std::vector<int>& nodes) {
  std::vector<int> around(nodes);
  for (int v : nodes) {
    for (int ei : s.inEdges[v]) around.push_back(s.edges[ei].from);
    for (int ei : s.outEdges[v]) around.push_back(s.edges[ei].to);
  }
  std::sort(around.begin(), around.end());
  around.erase(std::unique(around.begin(), around.end()), around.end());
  return around;
}

// Block coordinate descent with the exact total cost as the acceptance test: every tree
// of the forest decomposition, then every single node, re-solved with the rest fixed.
// A tree or node none of whose neighbourhood (neighbourhood()) changed since it was last
// re-solved is skipped: its solve depends only on those choices, so it would find the
// same partitions, and their change in the total (terms touching its own nodes only)
// would be the one already refused — the descent takes the same steps, without them.
int64_t descend(SearchSpace& s, std::vector<int>& choice, const std::vector<std::vector<int>>& trees,
                const std::vector<int>& primary) {
  int64_t cost = totalCost(s, choice);
  int64_t step = 0;                                // counts the changes of choice
  std::vector<int64_t> changedAt(s.nodes.size(), 0);  // the step at which each node last changed
  std::vector<int64_t> treeSolvedAt(trees.size(), -1), nodeSolvedAt(s.nodes.size(), -1);
  std::vector<std::vector<int>> treeAround(trees.size()), nodeAround(s.nodes.size());
  for (std::size_t t = 0; t < trees.size(); ++t)
    if (trees[t].size() >= 2) treeAround[t] = neighbourhood(s, trees[t]);
  for (std::size_t v = 0; v < s.nodes.size(); ++v) nodeAround[v] = neighbourhood(s, {static_cast<int>(v)});
  auto unchangedSince = [&](const std::vector<int>& around, int64_t solvedAt) {
    if (solvedAt < 0) return false;
    for (int u : around)
      if (changedAt[u] > solvedAt) return false;
    return true;
  };
  for (int round = 0; round < kMaxDescentRounds; ++round) {
    bool improved = false;
    for (std::size_t t = 0; t < trees.size(); ++t) {
      if (trees[t].size() < 2 || unchangedSince(treeAround[t], treeSolvedAt[t])) continue;
      std::vector<int> candidate = choice;
      solveBlock(s, blockOf(s, trees[t], primary), candidate);
      int64_t c = totalCost(s, candidate);
      if (c < cost) {
        cost = c;
        ++step;
        for (std::size_t v = 0; v < choice.size(); ++v)
          if (candidate[v] != choice[v]) changedAt[v] = step;
        choice = std::move(candidate);
        improved = true;
      }
      treeSolvedAt[t] = step;
    }
    for (std::size_t v = 0; v < s.nodes.size(); ++v) {
      if (unchangedSince(nodeAround[v], nodeSolvedAt[v])) continue;
      const int current = choice[v];
      int64_t currentCost = costAround(s, choice, static_cast<int>(v), current), bestCost = currentCost;
      for (std::size_t c = 0; c < s.nodes[v]->parts.size(); ++c) {
        int64_t around = costAround(s, choice, static_cast<int>(v), static_cast<int>(c), bestCost);
        if (around < bestCost) {
          bestCost = around;
          choice[v] = static_cast<int>(c);
        }
      }
      if (choice[v] != current) {
        cost -= currentCost - bestCost;
        changedAt[v] = ++step;
        improved = true;
      }
      nodeSolvedAt[v] = step;
    }
    if (!improved) break;
  }
  return cost;
}

// Coordinate descent over the output layouts of the multi-consumer nodes: with those
// layouts fixed the DP is exact for everything else, so each step re-solves the whole
// graph for one changed layout and keeps it when the exact total drops. Runs only while
// a round fits in `budget` (layout count x DP work).
int64_t layoutDescent(SearchSpace& s, std::vector<int>& choice, int64_t cost, const std::vector<int>& multi, double budget) {
  double layouts = 0;
  for (int v : multi) layouts += static_cast<double>(s.nodes[v]->outs.size());
  if (layouts * dpWork(s) > budget) return cost;
  std::vector<int> required(s.nodes.size(), -1);
  for (int v : multi) required[v] = s.nodes[v]->outIndex[choice[v]];
  for (int round = 0; round < kMaxDescentRounds; ++round) {
    bool improved = false;
    for (int v : multi) {
      const int kept = required[v];
      for (int z = 0; z < static_cast<int>(s.nodes[v]->outs.size()); ++z) {
        if (z == kept) continue;
        required[v] = z;
        std::vector<int> candidate(s.nodes.size(), -1);
        solveBlock(s, treeBlock(s, required), candidate);
        int64_t c = totalCost(s, candidate);
        if (c < cost) {
          cost = c;
          choice = std::move(candidate);
          improved = true;
          break;
        }
      }
      required[v] = s.nodes[v]->outIndex[choice[v]];
    }
    if (!improved) break;
  }
  return cost;
}

}  // namespace

PartitionChoice partitionEindecomp(const Graph& g, const PlanOptions& options) {
  SearchSpace s = buildSearchSpace(g, options);
  return searchPartitions(s, options);
}

PartitionChoice searchPartitions(SearchSpace& s, const PlanOptions& options) {
  const std::size_t n = s.nodes.size();
  std::vector<int> multi;
  for (std::size_t v = 0; v < n; ++v)
    if (s.outEdges[v].size() > 1) multi.push_back(static_cast<int>(v));

  std::vector<int> best(n, -1);
  bool optimal = false;
  std::string method;
  double combinations = 1;
  for (int v : multi) combinations *= static_cast<double>(s.nodes[v]->outs.size());
  if (multi.empty()) {
    solveBlock(s, treeBlock(s, std::vector<int>(n, -1)), best);
    optimal = true;
    method = "dynamic program over an in-forest: optimal partitions under the objective (canonical placement)";
  } else if (combinations * dpWork(s) <= options.exactWorkBudget) {
    std::vector<int> required(n, -1);
    for (int v : multi) required[v] = 0;
    int64_t bestCost = -1;
    for (;;) {
      std::vector<int> choice(n, -1);
      solveBlock(s, treeBlock(s, required), choice);
      int64_t c = totalCost(s, choice);
      if (bestCost < 0 || c < bestCost) {
        bestCost = c;
        best = choice;
      }
      std::size_t i = 0;  // next combination, mixed radix over the multi-consumer nodes
      for (; i < multi.size(); ++i) {
        int v = multi[i];
        if (++required[v] < static_cast<int>(s.nodes[v]->outs.size())) break;
        required[v] = 0;
      }
      if (i == multi.size()) break;
    }
    optimal = true;
    method = "dynamic program over " + std::to_string(static_cast<int64_t>(combinations)) +
             " combinations of the output layouts of " + std::to_string(multi.size()) + " multi-consumer nodes: optimal partitions under the objective (canonical placement)";
  } else {
    std::vector<int> primary;
    std::vector<std::vector<int>> trees = forestTrees(s, primary);
    std::vector<int> linear = paperLinearization(s);
    int64_t linearStart = totalCost(s, linear);
    int64_t linearCost = descend(s, linear, trees, primary);
    std::vector<int> forest = forestStart(s, trees, primary);
    int64_t forestCost = descend(s, forest, trees, primary);
    best = forestCost < linearCost ? forest : linear;
    layoutDescent(s, best, std::min(forestCost, linearCost), multi, kLayoutDescentBudget);
    method = "DAG with " + std::to_string(multi.size()) +
             " multi-consumer nodes: linearization and forest decomposition improved by coordinate descent and multi-consumer layout descent "
             "(heuristic; the paper's linearization alone costs " + std::to_string(linearStart) + ")";
  }
  PartitionChoice choice{chosenParts(s, best), s.notes, optimal};
  choice.notes.push_back("eindecomp: " + method);
  for (const auto& node : s.nodes)
    if (node->truncated) choice.optimal = false;
  return choice;
}

}  // namespace eindecomp
