// A graph and its plan lowered into the program's tables (einrt/model/tables.h), the one
// positional form the planner's memory and time models, the code generator and the
// executor share: tensors (graph inputs, then node outputs, each in graph order); per node
// its shape, partition, placement, GEMM mapping (planner/paths/gemm_mapping.h, for runsAsGemm
// nodes), permutation (permutationOrder) and fused group (planner/fusion). What the rules
// of the program make of them is einrt's program model (einrt/model/program_model.h).
#pragma once

#include <einrt/model/tables.h>

#include "planner/fusion/fusion.h"
#include "planner/graph/graph.h"
#include "planner/placement/plan.h"

namespace eindecomp {

einrt::model::ProgramTables programTables(const Graph& g, const Plan& plan, const Fusion& fusion);

}  // namespace eindecomp
