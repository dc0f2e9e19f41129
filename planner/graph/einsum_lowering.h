// NumPy's einsum forms lowered onto plain labels, once a node's operand shapes are known
// (build_graph.cpp resolves nodes in topological order). After it the node's labels are
// what the rest of the toolchain knows: no ellipsis, no size-1 broadcast; repeated labels
// within an operand stay (a diagonal or trace is an operation of its own: every stage
// reads the repeated dimensions with one index).
//   - "..." stands for the broadcast dimensions: an operand of rank r with n labels has
//     r - n of them, aligned from the right across operands (NumPy's broadcasting); they
//     become labels "__e0", "__e1", ... (left to right; more underscores if the node uses
//     such a name), and an output "..." (explicit, or implicit: first) lists all of them;
//     an explicit output without "..." while they stand for some dimensions is refused,
//     as NumPy refuses it.
//   - size-1 broadcasting: where a label has size n > 1 somewhere and 1 elsewhere, each
//     size-1 dimension gets a label of its own ("__b0", "__b1", ...): it is then aggregated
//     away over one element, which changes nothing, as NumPy's broadcasting does.
// Errors name the node, the operand and what NumPy would say, at the einsum's column.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/graph/einsum_parser.h"
#include "planner/graph/graph_document.h"

namespace eindecomp {

// `shapes[k]`: operand k's tensor shape; `einsum` locates the text (for columns).
void lowerEinsum(EinsumSpec& spec, const std::vector<std::vector<int64_t>>& shapes, const DocText& einsum,
                 const std::string& owner);

}  // namespace eindecomp
