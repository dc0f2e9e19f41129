// What a contraction-path search may spend and what it minimizes: the options every
// caller of splitNaryNodes passes (einplan check, einplan gen --split, and the planning
// commands), with the one parser for their command-line spellings. The default budget
// is a number of trials, so a path depends only on the network and the seed, never on
// the machine or its load; a time budget ("5s") is an explicit, non-reproducible choice.
#pragma once

#include <cstdint>
#include <string>

namespace eindecomp {

// What a path is ranked by. Flops: total FLOPs, then the largest tensor. Memory: the
// largest tensor (counted as NumPy counts it: operands, intermediates and the output),
// then total FLOPs.
enum class PathObjective { Flops, Memory };

// How much searching a network beyond the exact limit gets: `trials` trials (each builds a
// candidate path or re-optimizes one, see path_search.h), or, when `seconds` > 0, as
// many trials as fit in that much wall-clock time. 1024 trials take about 1 s for 50-60
// tensors on a 2020s core.
struct PathBudget {
  int64_t trials = 1024;
  double seconds = 0;
};

// The number of operands up to which the exact dynamic program is used.
inline constexpr int kDefaultMaxExactOperands = 12;

struct PathOptions {
  // Nodes with at most this many operands get the exact optimizer (at most 20).
  int maxExactOperands = kDefaultMaxExactOperands;
  PathBudget budget;
  PathObjective objective = PathObjective::Flops;
  uint64_t seed = 0;
};

// "256" (trials), "500ms", "5s", "1.5s" (time). Throws InputError naming `option` when
// the text is none of these or is not positive.
PathBudget parsePathBudget(const std::string& text, const std::string& option);

// "flops" | "memory"; InputError naming `option` otherwise.
PathObjective parsePathObjective(const std::string& text, const std::string& option);

// A seed from 0 to 2^64 - 1; InputError naming `option` otherwise.
uint64_t parsePathSeed(const std::string& text, const std::string& option);

// The command-line options --path-budget, --path-objective and --path-seed as typed
// (empty: the default) -> PathOptions; InputError naming the option on a bad value.
PathOptions parsePathOptions(const std::string& budget, const std::string& objective, const std::string& seed);

// "256 trials" or "5 s", as reports print it.
std::string describePathBudget(const PathBudget& b);
const char* pathObjectiveName(PathObjective o);

}  // namespace eindecomp
