// The contraction-path search every n-ary node goes through: the exact dynamic program up
// to PathOptions::maxExactOperands operands, and beyond it a hyper-optimizer that spends
// a budget of trials on several strategies and keeps the best path under the objective
// (in the spirit of cotengra's hyper-optimization, written from its description):
//   trial 0   greedy by FLOPs, then subtree reconfiguration (the path this project chose
//             before the search existed: the result is never worse than it);
//   trial 1   the "memory removed" greedy rule without sampling (opt_einsum's greedy);
//   then      sampled greedy paths (random cost modifier and temperature) and recursive
//             bisections (random imbalance, leaf size and partitioner starts), in turns
//             until trial 16, then three turns in four for the strategy holding the best
//             path; and one trial in 16 re-optimizes a kept candidate in random windows.
// Promising candidates are polished in small windows before they are ranked; at the end
// the best few are re-optimized by subtree reconfiguration, the best of them with larger
// exact windows. Trial k draws from its own stream of the seed, so a trial budget gives
// the same path on every machine.
#pragma once

#include <cstdint>
#include <string>

#include "planner/paths/contraction_path.h"
#include "planner/paths/path_options.h"

namespace eindecomp {

// What the search did, for the path report.
struct PathSearchStats {
  bool exact = false;         // the exact dynamic program (no trials)
  PathOptions options;        // as given
  int64_t trials = 0;         // candidate paths built
  double seconds = 0;         // wall-clock time of the whole search
  PathCost first;             // trial 0's path, greedy by FLOPs + reconfiguration
  std::string bestStrategy;   // the strategy whose candidate became the result
  int64_t bestTrial = 0;
  int finalWindow = 0;        // leaves of the last reconfiguration windows
};

struct PathSearchResult {
  ContractionPath path;
  PathSearchStats stats;
};

PathSearchResult optimizePath(const ContractionProblem& p, const PathOptions& options = {});

}  // namespace eindecomp
