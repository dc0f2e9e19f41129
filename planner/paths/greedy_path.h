// Greedy contraction paths: repeatedly contract one pair of live tensors. Two rules:
//   - `greedyPath`: the pair sharing a label whose step costs fewest FLOPs (then whose
//     result is smallest); deterministic, the search's starting point;
//   - `sampledGreedyPath`: the pair of smallest "memory removed" score,
//     size(result) - alpha * (size(left) + size(right)) (opt_einsum's greedy rule with
//     its cost modifier alpha), where with a temperature > 0 the pair is drawn from the
//     eight best by Boltzmann weights exp(-(score - best) / (temperature * |best|)) —
//     the idea of opt_einsum's RandomGreedy, written from its description. Many such
//     trials with different alpha and temperature sample the space around the greedy
//     path.
// Pairs sharing no label (outer products) are taken only when no other pair is left,
// smallest tensors first. Above kLargeGreedyOperands operands `greedyPath` keeps its rule
// but finds each pair through a priority queue of the pairs that share a label (scores
// refreshed when popped), so a chain or a tree of thousands of tensors takes n log n
// steps instead of the all-pairs scan's n^3 (docs/contraction-paths.md).
#pragma once

#include "planner/paths/contraction_path.h"
#include "planner/paths/path_random.h"

namespace eindecomp {

inline constexpr int kLargeGreedyOperands = 256;

ContractionPath greedyPath(const ContractionProblem& p);

struct GreedyParams {
  int alphaQuarters = 4;  // alpha = alphaQuarters / 4, from 0 to 8 (alpha 0..2)
  int temperatureStep = -1;  // temperature 2^(-step/2), step 0..13; -1: no sampling
};

// `random` is used only when temperatureStep >= 0.
ContractionPath sampledGreedyPath(const ContractionProblem& p, const GreedyParams& params, PathRandom& random);

}  // namespace eindecomp
