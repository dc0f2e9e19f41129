// Contraction paths by recursive bisection of the tensor network (the approach of
// cotengra's hypergraph-partitioning trees, written from its description): the operands
// are split into two balanced groups cutting labels of least log-size (a cut label's size
// is what the contraction joining the two groups spans), each group is split again, and
// groups of at most `leafSize` operands are contracted by the exact dynamic program.
// The tree's root joins the two top-level groups. Randomized through the partitioner's
// start vertices; imbalance and leaf size are what a search varies between trials.
#pragma once

#include "planner/paths/contraction_path.h"
#include "planner/paths/path_random.h"

namespace eindecomp {

struct BisectionParams {
  int imbalancePercent = 10;  // each part at most (1 + imbalance) * half of its group
  int leafSize = 6;           // groups this small are contracted exactly (2 to 12)
  int starts = 2;             // partitioner starts per bisection (the least cut wins)
  PathObjective objective = PathObjective::Flops;  // for the exact leaf groups
};

ContractionPath bisectionPath(const ContractionProblem& p, const BisectionParams& params, PathRandom& random);

}  // namespace eindecomp
