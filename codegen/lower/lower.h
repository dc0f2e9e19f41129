// Lowering: Graph x PlanPartitions -> RankProgram. For every node in topological order it
//  1. checks the partition (every part divides its label's size, at most `devices` calls),
//  2. places the node's kernel calls on distinct ranks by solving an assignment problem
//     (hungarian.h) whose cost is the number of input elements a call would have to receive
//     on a rank, given where the producers' output blocks live (graph inputs are generated
//     in place, so they cost nothing and never constrain placement),
//  3. chooses the owner of each output block: of the ranks holding a partial result for it,
//     the one running the call with the lowest aggregation coordinates, so that the block
//     never travels when nothing is aggregated,
//  4. predicts the bytes the placement moves: every needed operand block piece whose owner
//     differs from the rank that needs it (each rank receives a block once, however many of
//     its calls use it), plus one partial block per contributing rank other than the owner,
//  5. maps contractions to GEMM (gemm_mapping.h) and other joins to a generated kernel.
#pragma once

#include "codegen/lower/rank_program.h"
#include "planner/graph/graph.h"

namespace eindecomp::codegen {

// Throws InputError (exit 2) when the partitions do not fit the graph (unknown node or
// label, a part that does not divide its size, more kernel calls than devices).
RankProgram lowerPlan(const Graph& g, const PlanPartitions& plan);

}  // namespace eindecomp::codegen
