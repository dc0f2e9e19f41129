// Fused groups in the lowered program: the plan's decision (planner/fusion/fusion.h), which
// the program's tables carry (einrt/model/tables.h FusionSpec), said in each member's
// kernel choice ("fused elementwise", and why; whether its output lives in tiles only is
// the program model's answer) for the emitted README and the program's report.
#pragma once

#include "codegen/lower/rank_program.h"
#include "planner/fusion/fusion.h"

namespace eindecomp::codegen {

void applyFusion(RankProgram& rp, const Fusion& fusion);

}  // namespace eindecomp::codegen
