// Choosing the layouts of intermediate tensors (the Einsum Trees paper, sections 4-5).
// Nodes made by the contraction-path splitter (`NODE.1`, ...) are internal: nobody outside
// the program sees their output, so the order of their output dimensions is free. For each
// internal contraction consumed by exactly one contraction, this pass tries the orders that
// make either GEMM read or write the tensor without a permutation ([C][M][N] / [C][N][M] of
// the producer, [C][M][K] / [C][K][M] or [C][K][N] / [C][N][K] of the consumer, inner group
// orders taken from the neighbouring tensors, and the consumer's with loops over leading
// labels of its Z) and keeps the one with the fewest permuted elements over both GEMMs,
// then the fewest elements of a B read transposed (ties keep the splitter's order),
// sweeping the edges until no order changes. Graph outputs and nodes the user wrote are
// never reordered, so results and .npy files are unaffected.
#pragma once

#include "planner/graph/graph.h"

namespace eindecomp {

// The graph with the output label order of internal nodes chosen as above (and the
// consumers' operand labels permuted to match). Other nodes are unchanged.
Graph chooseInternalLayouts(const Graph& g);

}  // namespace eindecomp
