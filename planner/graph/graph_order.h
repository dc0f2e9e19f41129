// Order of evaluation for a set of nodes with dependencies: a topological order that is
// stable (when the nodes are already in a valid order they stay in it; otherwise each
// step takes the earliest node, in the original order, whose inputs are ready), or, when
// there is none, one cycle to show the user.
#pragma once

#include <vector>

namespace eindecomp {

struct NodeOrder {
  std::vector<int> order;  // node indices in evaluation order; empty when there is a cycle
  std::vector<int> cycle;  // when there is a cycle: its nodes, each feeding the next and the last the first
};

// deps[i] lists the nodes whose outputs node i reads.
NodeOrder stableTopologicalOrder(const std::vector<std::vector<int>>& deps);

}  // namespace eindecomp
