// One node's kernel call, prepared once for a block shape and run for every call: a
// contraction's (batched) GEMM with alpha — operands permuted first and the result
// permuted back where the GEMM mapping says so —, a permutation node's tiled copy, or the
// node's elementwise kernel over its planned loop nest. Host memory or the program's device.
// A GEMM's permutation scratch (one block per permuted operand) exists only between
// acquire() and release(): the executor holds it around the node's step on ranks that run
// calls of the node (SPEC 3.2), counted in the rank's MemoryCounter. A widening
// contraction (SPEC 8: 2-byte operands, an f32 result) runs through runWidening, its
// result's scratch f32.
#pragma once

#include <optional>
#include <vector>

#include "buffer.h"
#include "einrt/model/call_geometry.h"
#include "einrt/model/convolution_call.h"
#include "einrt/model/gemm_call.h"
#include "einrt/program/permute.h"
#include "einrt/program/spec.h"

namespace einrt::program::detail {

template <class T>
class NodeKernel {
 public:
  NodeKernel() = default;
  // `extent`: the call's block extent per iteration label; a contraction runs the call
  // einrt's model decides for it (einrt/model/gemm_call.h).
  NodeKernel(const NodeTable& node, const NodeKernels<T>& kernels, const std::vector<int64_t>& extent, const DeviceOps* device,
             int threads, ParallelForFn parallelFor, MemoryCounter* counter, bool widening = false);

  void acquire();
  void release();

  // Z = the node over X, Y (Y null for unary nodes), or Z = combine(Z, ...) with `accumulate`.
  void run(const T* X, const T* Y, T* Z, bool accumulate);
  // The same for a widening contraction: Z (+)= X Y in f32 (host memory, 2-byte T).
  void runWidening(const T* X, const T* Y, float* Z, bool accumulate);

 private:
  // A contraction's GEMM entries over X and Y (permuted first where the call needs),
  // writing R elements (T, or f32 for a widening contraction) through `gemmEntry`.
  template <class R, class Entry>
  void runGemm(const T* X, const T* Y, R* Z, R* scratchZ, bool accumulate, Entry gemmEntry);

  ElementwiseFn<T> elementwise_ = nullptr;
  const DeviceOps* device_ = nullptr;
  int threads_ = 1;
  ParallelForFn parallelFor_ = nullptr;
  LoopNest nest_;
  int64_t baseX_ = 0, baseY_ = 0;  // where tap 0 lies in a tapped operand's block (model::operandWalk)
  // A copy through a spread window (model::callLoopNest): the fill its output block holds
  // between the rows it writes, from baseZ_ (model::outputBase). Unset: none.
  std::optional<double> spreadFill_;
  int64_t baseZ_ = 0, outputElements_ = 0;
  std::optional<model::GemmCallPlan> gemm_;
  HostGemm<T> hostGemm_;  // gemm_'s call prepared for the rank's threads (host memory)
  double alpha_ = 1.0;
  std::optional<Permutation> permX_, permY_, permZ_;
  std::optional<Permutation> copy_;  // a permutation node
  std::optional<ConvolutionCall> convolution_;  // a convolution's call (model::convolutionCall), host memory
  MemoryCounter* counter_ = nullptr;
  bool widening_ = false;
  Buffer<T> scratchX_, scratchY_, scratchZ_;
};

}  // namespace einrt::program::detail
