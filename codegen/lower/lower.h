// Lowering: Graph x Plan -> RankProgram. The plan is executed as written: per node its
// partition, the rank of every kernel call and the owner of every output block come from
// the plan's placement; the bytes each node is predicted to move come from the plan's
// cost (costPlan, SPEC 3.1). Lowering decides nothing of its own about placement or cost:
// it assigns tensor indices and C++ identifiers, and maps contractions to GEMM
// (planner/paths/gemm_mapping.h) and other joins to a generated kernel, and groups
// consecutive elementwise nodes the plan lets run fused (codegen/kernels/fusion.h).
#pragma once

#include "codegen/lower/rank_program.h"
#include "planner/cost/plan_cost.h"
#include "planner/graph/graph.h"
#include "planner/placement/plan.h"

namespace eindecomp::codegen {

// `cost` must be costPlan(g, plan, ...). Throws InputError (exit 2) when a name of the
// graph cannot become an identifier of the emitted code.
RankProgram lowerPlan(const Graph& g, const Plan& plan, const PlanCost& cost);

}  // namespace eindecomp::codegen
