// One node's kernel call, prepared once for a block shape and run for every call: a
// contraction's (batched) GEMM with alpha — operands permuted first and the result
// permuted back where the GEMM mapping says so —, a permutation node's tiled copy, or the
// node's elementwise kernel over its planned loop nest. Host memory or the program's device.
// A GEMM's permutation scratch (one block per permuted operand) exists only between
// acquire() and release(): the executor holds it around the node's step on ranks that run
// calls of the node (SPEC 3.2), counted in the rank's MemoryCounter.
#pragma once

#include <optional>
#include <vector>

#include "buffer.h"
#include "einrt/program/gemm.h"
#include "einrt/program/permute.h"
#include "einrt/program/spec.h"

namespace einrt::program::detail {

// A contraction's GEMM for blocks of one shape: one (strided-batched) call and the batch
// loops around it — C labels that no single stride steps through (a strided view of a
// stored order, gemm_mapping.cpp's fitOperand) — as extents and strides per tensor.
struct GemmLoops {
  struct Loop {
    int64_t extent, strideX, strideY, strideZ;
  };
  GemmCall call;
  bool swapped = false;       // Z stored N-major: computed as Z^T = Y^T X^T (A is Y)
  std::vector<Loop> loops;    // outside the call's batch, outermost first
  int64_t outerEntries = 1;   // product of their extents

  void build(const GemmSpec& spec, const std::vector<int>& xLabels, const std::vector<int>& yLabels,
             const std::vector<int>& zLabels, const std::vector<int64_t>& extent);
  // Element offsets of X, Y and Z at entry `entry` of the loops (row-major over them).
  void offsets(int64_t entry, int64_t& x, int64_t& y, int64_t& z) const;
};

template <class T>
class NodeKernel {
 public:
  NodeKernel() = default;
  // `extent`: the call's block extent per iteration label.
  NodeKernel(const NodeSpec<T>& node, const std::vector<int64_t>& extent, const DeviceOps* device, int threads,
             ParallelForFn parallelFor, MemoryCounter* counter);

  void acquire();
  void release();

  // Z = the node over X, Y (Y null for unary nodes), or Z = combine(Z, ...) with `accumulate`.
  void run(const T* X, const T* Y, T* Z, bool accumulate);

 private:
  const NodeSpec<T>* node_ = nullptr;
  const DeviceOps* device_ = nullptr;
  int threads_ = 1;
  ParallelForFn parallelFor_ = nullptr;
  LoopNest nest_;
  std::optional<GemmLoops> gemm_;
  HostGemm<T> hostGemm_;  // gemm_'s call prepared for the rank's threads (host memory)
  double alpha_ = 1.0;
  std::optional<Permutation> permX_, permY_, permZ_;
  std::optional<Permutation> copy_;  // a permutation node
  MemoryCounter* counter_ = nullptr;
  Buffer<T> scratchX_, scratchY_, scratchZ_;
};

}  // namespace einrt::program::detail
