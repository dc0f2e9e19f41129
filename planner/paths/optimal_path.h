// The exact contraction-path optimizer: a dynamic program over subsets of operands
// (every split of every subset once, 3^n pairs), as NumPy's and opt_einsum's 'optimal'
// and 'dp' searches find. Under the FLOP objective it returns a path of minimal total
// FLOPs, ties broken by the smallest summed intermediate size; under the memory
// objective a path whose largest tensor is minimal, ties broken by FLOPs within the
// program (exact for the largest tensor; among paths of equal largest tensor the FLOPs
// are minimized greedily per subset, not globally).
#pragma once

#include "planner/paths/contraction_path.h"

namespace eindecomp {

// Time grows as 3^n: meant for n up to about 14 operands; throws std::invalid_argument
// above 20.
ContractionPath optimalPath(const ContractionProblem& p, PathObjective objective = PathObjective::Flops);

}  // namespace eindecomp
