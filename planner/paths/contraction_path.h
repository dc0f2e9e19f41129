// Contraction paths (the Einsum Trees paper, section 2.2) over an abstract n-ary
// contraction: operands and output given as lists of label ids with their sizes. A path
// is a sequence of binary steps in static single assignment form: the operands are
// tensors 0..n-1, step k creates tensor n+k. Each intermediate keeps only the labels
// still needed later (by a tensor not yet contracted, or by the output); the last step
// produces exactly the output labels (including broadcast labels, which appear in no
// operand). A step costs SPEC 3's FLOPs: prod(sizes of its labels) * (1 + 1 if it sums a
// label out) — opt_einsum's count, so a matmul is 2mnk.
//
// This header holds the types every optimizer shares, how a path is costed and compared
// under an objective, and the conversions: a contraction order (pairs of SSA ids) to a
// costed path, and a path to opt_einsum's positional form. The optimizers are in
// optimal_path.h (exact), greedy_path.h, path_reconfigure.h, bisection_path.h and
// path_search.h (the budgeted search that combines them).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "planner/paths/flop_count.h"
#include "planner/paths/path_options.h"

namespace eindecomp {

struct ContractionProblem {
  std::vector<std::vector<int>> operands;  // label ids per operand (no repeats within one)
  std::vector<int> output;                 // label ids of the result, in order
  std::vector<int64_t> sizes;              // size of every label id
};

struct PathStep {
  int left = 0;              // SSA ids of the two contracted tensors
  int right = 0;
  std::vector<int> result;   // label ids the step's result keeps (a set, ascending)
  FlopCount flops = 0;
  FlopCount resultSize = 0;  // elements of the result
};

struct ContractionPath {
  std::vector<PathStep> steps;        // n - 1 steps for n >= 2 operands
  FlopCount totalFlops = 0;
  // The largest tensor the path holds, counted as NumPy's einsum_path counts its "largest
  // intermediate": every operand, every step's result and the output.
  FlopCount largestIntermediate = 0;
  bool exact = false;                 // true when found by optimalPath
};

// What a path costs under both objectives.
struct PathCost {
  FlopCount flops = 0;
  FlopCount largest = 0;
};

PathCost costOf(const ContractionPath& path);

// a strictly better than b: flops then largest, or largest then flops.
bool cheaper(const PathCost& a, const PathCost& b, PathObjective objective);

// Throws std::invalid_argument for label ids out of range or sizes below 1.
void validateProblem(const ContractionProblem& p);

// The path that contracts the SSA pairs `merges` in order (n - 1 of them; each tensor
// used once), with every step's result labels, FLOPs and size. Throws
// std::invalid_argument when the merges do not form a contraction tree.
ContractionPath pathFromMerges(const ContractionProblem& p, const std::vector<std::pair<int, int>>& merges);

// Recomputes totalFlops and largestIntermediate from the steps.
void finishPath(const ContractionProblem& p, ContractionPath& path);

// The FLOPs of evaluating the whole contraction as one loop nest (opt_einsum's naive count).
FlopCount naiveFlops(const ContractionProblem& p);

// The same path as opt_einsum writes it: each pair gives positions in the current list of
// tensors, the two are removed and their result appended at the end.
std::vector<std::pair<int, int>> toPositionalPath(const ContractionPath& path, int operandCount);

}  // namespace eindecomp
