// The precomputed search space shared by eindecomp and brute: per node its candidate
// partitions (viable for p, after pins and --mem-limit) with their local cost
// join + agg, their output layout and operand layouts interned as small indices; per
// node-to-node edge a repartition-cost matrix (producer output layout x consumer operand
// layout). Edges of identical shape — the same bounds and the same layout lists, as in
// the repeated layers of a transformer — share one matrix, filled lazily, so the dynamic
// program costs each distinct (bounds, dP, dC) combination once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/algorithms/planning.h"
#include "planner/graph/graph.h"
#include "planner/partition/partition.h"

namespace eindecomp {

struct NodeCandidates {
  NodeSpace space;
  int64_t kernelCalls = 1;
  bool fallback = false;
  bool truncated = false;
  std::vector<Parts> parts;                    // candidate partitions
  std::vector<int64_t> local;                  // join + agg of each candidate (elements)
  std::vector<int> outIndex;                   // candidate -> index into outs
  std::vector<std::vector<int>> operandIndex;  // [operand][candidate] -> index into operandLayouts[operand]
  std::vector<Parts> outs;                     // distinct output layouts
  std::vector<std::vector<Parts>> operandLayouts;
};

struct SearchEdge {
  int from = 0, to = 0, operand = 0;
  int matrix = 0;  // index into SearchSpace::matrices
};

// repart costs of one edge shape; rows: producer output layouts, cols: consumer operand layouts.
struct RepartMatrix {
  std::vector<int64_t> bounds;
  const std::vector<Parts>* rows = nullptr;
  const std::vector<Parts>* cols = nullptr;
  std::vector<int64_t> cost;  // rows x cols, -1 until computed; empty when too large to cache
};

struct SearchSpace {
  std::vector<NodeCandidates> nodes;  // aligned with Graph::nodes
  std::vector<SearchEdge> edges;
  std::vector<std::vector<int>> inEdges, outEdges;  // edge indices per node
  std::vector<RepartMatrix> matrices;
  std::vector<std::string> notes;  // fallbacks and truncations, for the report
};

// Throws InputError: exit 2 for nodes with other than 1 or 2 operands, exit 3 when
// --mem-limit leaves a node without a partition.
SearchSpace buildSearchSpace(const Graph& g, const PlanOptions& options);

// repart cost of edge e between producer output layout `out` and consumer layout `in`.
int64_t edgeCost(SearchSpace& s, const SearchEdge& e, int out, int in);

// The exact plan cost (SPEC 3) of one candidate index per node.
int64_t totalCost(SearchSpace& s, const std::vector<int>& choice);

// The candidate partitions chosen, as Parts per node.
std::vector<Parts> chosenParts(const SearchSpace& s, const std::vector<int>& choice);

}  // namespace eindecomp
