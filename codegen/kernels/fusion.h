// Which consecutive elementwise and reduction nodes run fused (issue 12): decided once
// here, from the lowered plan, and followed by the executor (einrt/program/spec.h
// FusionSpec). A fused group runs as one pass over tiles of its leading output
// dimensions: per tile, every member computes its slice in order, so an intermediate
// read only inside the group never exists as a whole tensor (it lives in a tile-sized
// scratch buffer that stays in cache). Softmax (max, exp, sum, divide) is the example.
//
// Members must need no communication between them, so the plan's partition decides:
//   - members are consecutive nodes that run no GEMM and no permutation;
//   - the group dimensions are the first k output dimensions of every member (k >= 1, the
//     same extents and parts in every member), and a member reading another member's
//     output reads those dimensions in the same positions, as its own first k;
//   - only group dimensions are cut into parts, and each group block's kernel call runs
//     on the same rank in every member, which also owns that block (no repartition, no
//     aggregation inside the group).
// A member's output is kept in tiles only ("scratch") when nothing outside the group reads
// it and it is no graph output. Groups have two members or more and grow greedily in node
// order, each with the most group dimensions its members allow (more dimensions, finer
// tiles).
#pragma once

#include "codegen/lower/rank_program.h"

namespace eindecomp::codegen {

// Sets every node's `fusion` (group, tileDims, scratch) and, for members, its kernel
// choice ("fused elementwise", and why).
void chooseFusion(RankProgram& rp);

}  // namespace eindecomp::codegen
