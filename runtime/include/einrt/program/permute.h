// Copying a block into another order of its dimensions — a GEMM operand whose stored order
// fits no GEMM layout, or a GEMM result written back — as a strided box copy
//   dst[sum_d i_d * dstStride[d]] (+)= src[sum_d i_d * srcStride[d]]   for i in the box,
// tiled: dimensions contiguous in both tensors are merged, and when the source's and the
// destination's contiguous dimensions differ the copy runs in square tiles, so that both
// the reads and the writes use whole cache lines (an untiled strided gather does not).
#pragma once

#include <cstdint>
#include <vector>

#include "einrt/half.h"
#include "einrt/program/loop_nest.h"
#include "einrt/program/parallel_for.h"

namespace einrt::program {

// The tiles of a transpose: kPermuteBlock x kPermuteBlock blocks, the work items split
// among threads (host_permute.cpp says why).
inline constexpr int64_t kPermuteBlock = 64;

struct Permutation {
  int dims = 0;
  int64_t extent[kMaxLoops] = {};
  int64_t srcStride[kMaxLoops] = {};
  int64_t dstStride[kMaxLoops] = {};
  int64_t elements = 1;
};

// A row-major block of `storedExtent` read in the order `order` (order[i] = the stored
// dimension that becomes dimension i): gather into a row-major block of the new order, or,
// with `scatter`, the reverse (write a row-major block of the new order back into the
// stored order).
Permutation reorder(const std::vector<int64_t>& storedExtent, const std::vector<int>& order, bool scatter);

// How hostPermute walks p (for the planner's kernel model): a copy of `runs` unit-stride
// runs (a dimension contiguous in both tensors), or `tiles` transposed tiles of up to
// 64 x 64 (the source's and the destination's contiguous dimensions differ).
// `wastedBytes`: what a copy of runs shorter than a cache line reads beyond its elements,
// where the walk does not come back to a run's line while the caches hold it (each run
// then reads a whole line of its own); 0 where it does. tw's last step reads [a f c g d j]
// as [a c d][f g j] in 576,000 runs of 4 floats and comes back to each line one d later,
// 36 runs on: 0.84 ms; 562,500 runs of 4 floats whose lines return 56,250 runs later
// took 2.13 ms (2026-11-26).
struct PermutationWork {
  bool transposes = false;
  int64_t runs = 0, tiles = 0;
  int64_t wastedBytes = 0;
};
PermutationWork permutationWork(const Permutation& p, int64_t elementBytes);

// The walk's rules, shared by the kernels and permutationWork: `p` with unit extents
// dropped and neighbouring dimensions contiguous in both tensors merged; and a copy's
// next dimension after its runs along `inner` (the least destination stride; -1: none).
Permutation simplifiedPermutation(const Permutation& p);
int permutationRunDimension(const Permutation& p, int inner);

// With `threads` > 1 and the program's pool, the rows of a copy or the blocks of a
// transpose are split among the threads (permutations of at least 256 KiB).
void hostPermute(const Permutation& p, const float* src, float* dst, bool accumulate, int threads = 1,
                 ParallelForFn parallelFor = nullptr);
void hostPermute(const Permutation& p, const double* src, double* dst, bool accumulate, int threads = 1,
                 ParallelForFn parallelFor = nullptr);
void hostPermute(const Permutation& p, const bf16* src, bf16* dst, bool accumulate, int threads = 1,
                 ParallelForFn parallelFor = nullptr);
void hostPermute(const Permutation& p, const f16* src, f16* dst, bool accumulate, int threads = 1,
                 ParallelForFn parallelFor = nullptr);

}  // namespace einrt::program
