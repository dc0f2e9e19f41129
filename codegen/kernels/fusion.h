// Fused groups in the lowered program: the plan's decision (planner/fusion/fusion.h) copied
// onto every member (einrt/program/spec.h FusionSpec), with its kernel choice saying so
// ("fused elementwise", and why) for the emitted README and the program's report.
#pragma once

#include "codegen/lower/rank_program.h"
#include "planner/fusion/fusion.h"

namespace eindecomp::codegen {

void applyFusion(RankProgram& rp, const Fusion& fusion);

}  // namespace eindecomp::codegen
