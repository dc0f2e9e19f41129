// The EinDecomp dynamic program (the paper, 8.2-8.3) over a block of free nodes whose
// table-carrying edges form an in-forest. For each free node v, in topological order,
// and each candidate partition c:
//   M[v, c] = join(c) + agg(c)
//           + sum over tree in-edges (u -> v):  min_z ( Mout[u, z] + repart(z, c's operand layout) )
//           + repart of every other edge whose far end has a known layout
//   Mout[v, z] = min over candidates c with output layout z of M[v, c]
// and backtracking from the block's roots chooses the partitions. An edge is charged
// once: at the consumer when the producer's output layout is known (chosen, or required
// by `requiredOut`), at the producer when the consumer is chosen. Edges between two free
// nodes that are not tree edges are ignored (a heuristic pass; see eindecomp.cpp), as
// are edges to nodes that are neither free nor chosen yet.
#pragma once

#include <vector>

#include "planner/algorithms/search_space.h"

namespace eindecomp {

struct Block {
  std::vector<char> free;         // per node: chosen by this solve
  std::vector<int> treeEdge;      // per free node: the edge carrying its table to a free consumer, or -1
  std::vector<int> requiredOut;   // per node: -1, or the output layout a free node must produce
  bool chargeEdgesOutside = true; // false reproduces the paper's linearization (8.4): edges leaving the block are ignored
};

// A block over `nodeCount` nodes with nothing free.
Block emptyBlock(std::size_t nodeCount);

// Chooses candidates for the free nodes (writes choice[v]); other entries of `choice`
// are read as the fixed partitions of the rest of the graph (-1: not chosen yet).
void solveBlock(SearchSpace& s, const Block& block, std::vector<int>& choice);

}  // namespace eindecomp
