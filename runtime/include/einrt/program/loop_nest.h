// The loops of one elementwise or reduction kernel call, planned once per node and run
// many times: Z[out] = agg over the aggregated labels of join(X[...], Y[...]) over a block
// of the node's iteration space. Planning orders the labels so that the innermost loop
// walks unit strides where it can (reading the operands contiguously counts most), merges
// neighbouring loops that are contiguous in every tensor into one, and puts the loops over
// output labels outside those over aggregated labels (so the outer output loops can be
// split between threads). Running it (elementwise.h) then needs no division or modulo per
// element: offsets advance by precomputed strides.
#pragma once

#include "einrt/limits.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace einrt::program {

inline constexpr int kMaxLoops = kMaxNodeLabels;  // einrt/limits.h

struct LoopNest {
  int depth = 0;                       // loops, outer first; the last is the inner loop
  int parallelLoops = 0;               // leading loops over output labels (thread-splittable)
  int64_t extent[kMaxLoops] = {};
  int64_t strideX[kMaxLoops] = {};     // 0 where the operand lacks the label
  int64_t strideY[kMaxLoops] = {};
  int64_t strideZ[kMaxLoops] = {};     // 0 for aggregated labels
  int64_t outputElements = 1;          // of the call's output block (row-major, contiguous)
  int64_t points = 1;                  // iterations in all: the work of one call
  bool aggregates = false;             // some loop over an aggregated label has extent > 1
};

// A node's call over blocks of `extent` (per iteration label); operand k's dimension d is
// label operandLabels[k][d], the output's dimension d is outputLabels[d]; blocks are
// row-major and contiguous. Labels repeated within a tensor add their strides.
LoopNest planLoopNest(const std::vector<int64_t>& extent, const std::vector<std::vector<int>>& operandLabels,
                      const std::vector<int>& outputLabels);

// The same over any strides: per label its extent and its stride in X, Y (0 for unary
// nodes or a label the operand lacks) and Z (0 for aggregated labels). The output region
// must be contiguous (`outputElements` elements from Z); a tile of a fused group is.
// `reductionsOutside`: the aggregated loops outermost and an output loop inside (a pool's
// few taps around its long rows, instead of a loop of three taps per output element).
LoopNest planLoopNest(const std::vector<int64_t>& extent, const std::vector<int64_t>& strideX,
                      const std::vector<int64_t>& strideY, const std::vector<int64_t>& strideZ, bool hasY,
                      bool reductionsOutside = false);

// Row-major strides per label of a tensor whose dimension d is label dims[d], for label
// extents `extent` (repeated labels add).
std::vector<int64_t> labelStrides(const std::vector<int>& dims, const std::vector<int64_t>& extent);

}  // namespace einrt::program
