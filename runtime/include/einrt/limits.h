// einrt's fixed limits, in one place: the runtime's box copies and loop nests keep their
// per-dimension state in fixed arrays (no allocation per block or per call), and MPI counts
// elements in int. The code generator checks a graph and plan against these before it
// emits anything (codegen/lower), so a program never meets them at run time; the reasons
// are in docs/hardening.md ("Limits").
#pragma once

#include <climits>
#include <cstdint>

namespace einrt {

inline constexpr int kMaxTensorRank = 16;                      // dimensions of a tensor (layouts, box copies)
inline constexpr int kMaxNodeLabels = 16;                      // iteration labels of a node (loop nests, permutations)
inline constexpr int64_t kMaxBlockElements = INT_MAX;          // elements of one block (an MPI message carries at most one)

}  // namespace einrt
