// The rules of index tensors and index nodes (SPEC 8, 8.1), checked once when a graph is
// built: an input of type i32 or i64 holds ids, which only the first operand of a
// `gather` or `scatter` node reads, and that operand is always such an input. A gather
// `bs,vd->bsd` selects along the one label of its second operand that is neither in the
// ids nor in the output (v: Z[b,s,d] = E[ids[b,s], d]); a scatter `bs,bsd->vd` adds into
// the one output label that no operand has (its size from `sizes`). Both sum; every
// label of the ids (but labels of size 1) is in the output (gather) or in the second
// operand (scatter).
#pragma once

#include <vector>

#include "planner/graph/graph.h"

namespace eindecomp {

// Where each node's join and operands were written (the node's own location when the
// file gave none), aligned with g.nodes.
struct IndexNodeLocations {
  std::vector<SourceLoc> join;
  std::vector<std::vector<SourceLoc>> operands;
};

// The named joins of index nodes.
bool isIndexJoinName(const std::string& join);

// The range ids of the index input `ids` must lie in: the size of the label it selects
// (the smallest, when several index nodes read it; 1 when none does). Generated ids are
// drawn from it (einrt/input_generator.h).
int64_t indexRange(const Graph& g, const std::string& ids);

// Sets every index node's Node::indexLabel and checks the rules above; throws InputError
// at the field that breaks one.
void resolveIndexNodes(Graph& g, const IndexNodeLocations& where);

}  // namespace eindecomp
