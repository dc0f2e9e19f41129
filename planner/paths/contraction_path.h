// Contraction-path optimizers (the Einsum Trees paper, section 2.2) over an abstract
// n-ary contraction: operands and output given as lists of label ids with their sizes.
// A path is a sequence of binary steps in static single assignment form: the operands
// are tensors 0..n-1, step k creates tensor n+k. Each intermediate keeps only the labels
// still needed later (by a tensor not yet contracted, or by the output); the last step
// produces exactly the output labels (including broadcast labels, which appear in no
// operand). A step costs SPEC 3's FLOPs: prod(sizes of its labels) * (1 + 1 if it sums a
// label out) — opt_einsum's count, so a matmul is 2mnk.
//
// Two optimizers: `optimalPath`, a dynamic program over subsets of operands (3^n pairs,
// exact: minimal total FLOPs, then minimal summed intermediate size), and `greedyPath`,
// which repeatedly contracts the pair of tensors sharing a label whose step is cheapest
// (then whose result is smallest), for networks too large for the exact search; its
// path is then improved by re-optimizing small subtrees exactly (`reconfigurePath`).
#pragma once

#include <cstdint>
#include <vector>

#include "planner/paths/flop_count.h"

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
  FlopCount largestIntermediate = 0;  // largest result of any step but the last
  bool exact = false;                 // true when found by optimalPath
};

// The number of operands up to which optimizePath uses the exact dynamic program.
inline constexpr int kDefaultMaxExactOperands = 12;

// Exact optimum over all binary contraction trees. Cost grows as 3^n: meant for n up to
// about 14 operands; throws std::invalid_argument above 20.
ContractionPath optimalPath(const ContractionProblem& p);

// Greedy path for any number of operands (O(n^3) label-set operations).
ContractionPath greedyPath(const ContractionProblem& p);

// Subtree reconfiguration: every subtree of the path's contraction tree cut to at most
// `leaves` leaves (expanding its costliest steps first) is replaced by the exact optimum
// for those leaves when that costs fewer FLOPs; passes repeat until none improves (at
// most `passes`). Never returns a costlier path.
ContractionPath reconfigurePath(const ContractionProblem& p, const ContractionPath& path, int leaves = 8,
                                int passes = 4);

// optimalPath when the problem has at most `maxExactOperands` operands, else greedyPath
// improved by reconfigurePath.
ContractionPath optimizePath(const ContractionProblem& p, int maxExactOperands = kDefaultMaxExactOperands);

// The FLOPs of evaluating the whole contraction as one loop nest (opt_einsum's naive count).
FlopCount naiveFlops(const ContractionProblem& p);

// The same path as opt_einsum writes it: each pair gives positions in the current list of
// tensors, the two are removed and their result appended at the end.
std::vector<std::pair<int, int>> toPositionalPath(const ContractionPath& path, int operandCount);

}  // namespace eindecomp
