// Subtree reconfiguration: improving a path by re-optimizing windows of its contraction
// tree exactly (the idea behind cotengra's subtree reconfiguration, here with the exact
// dynamic program of optimal_path.h). For every step, the subtree below it is cut to at
// most `leaves` leaves, expanding its costliest steps first, and replaced by the exact
// optimum for those leaves when that is better under the objective; passes repeat until
// none improves. Windows of 8 leaves cost about 3^8 subset pairs per step, 12 leaves
// about 3^12.
#pragma once

#include "planner/paths/contraction_path.h"
#include "planner/paths/path_random.h"

namespace eindecomp {

// Never returns a path worse than `path` under `objective`; at most `passes` passes
// (leaves are capped at 20). With `random`, each window expands a random internal frontier
// node instead of the costliest half of the time, so that repeated calls explore
// different windows.
ContractionPath reconfigurePath(const ContractionProblem& p, const ContractionPath& path, int leaves = 8,
                                int passes = 4, PathObjective objective = PathObjective::Flops,
                                PathRandom* random = nullptr);

}  // namespace eindecomp
