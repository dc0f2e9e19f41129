// What an emitted program hands the executor (SPEC 7): its graph and plan as plain tables
// — tensors; per node the iteration labels' sizes and parts, which label each tensor
// dimension is, the rank of every kernel call and the owner of every output block (the
// plan's placement), the bytes the plan predicts, the kernel it runs — and the per-node
// kernels compiled with the node's scalar functor (elementwise.h, reference.h). Nothing
// here is decided at run time: the executor follows the tables.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "einrt/program/gemm.h"
#include "einrt/program/loop_nest.h"
#include "einrt/program/parallel_for.h"
#include "einrt/half.h"
#include "einrt/types.h"

namespace einrt::program {

// A contraction's GEMM mapping (the planner's planner/paths/gemm_mapping.h): the iteration
// labels of the C (batch), M, N and K groups in their chosen orders (a call's GEMM shape is
// the product of their extents), transposes, the stored dimension of each canonical
// dimension where a permutation is needed (else empty), and alpha (a scaled contraction,
// join c * x * y).
struct GemmSpec {
  std::vector<int> batchLabels, mLabels, nLabels, kLabels;
  bool transX = false, transY = false, transZ = false;
  std::vector<int> permX, permY, permZ;
  double alpha = 1.0;
  GemmPlanned path = GemmPlanned::Rule;  // the plan's path for the calls (gemm.h)
};

// A fused group (consecutive elementwise and reduction nodes that the code generator found
// need no communication between them, codegen/kernels/fusion.h): members are consecutive
// nodes with the same group number; the group's dimensions are every member's first
// `tileDims` output dimensions, and a member reading another member's output reads them in
// the same positions. The executor (fused_group.h) runs the members tile by tile over those
// dimensions; a `scratch` output exists in tile-sized buffers only. On a GPU the members
// run one after another as plain elementwise nodes.
struct FusionSpec {
  int group = -1;       // -1: not fused
  int tileDims = 0;
  bool scratch = false;
};

// Per-node kernels from the emitted code: the fast kernel over a block (elementwise.h), and
// the plain loops of the --check reference on small graphs (reference.h).
template <class T>
using ElementwiseFn = void (*)(const LoopNest& nest, const T* X, const T* Y, T* Z, bool accumulate, int threads);
template <class T>
using PlainFn = void (*)(const std::vector<int64_t>& sizes, const std::vector<std::vector<int>>& operandLabels,
                         const std::vector<int>& outputLabels, const T* X, const T* Y, T* Z);

struct TensorSpec {
  std::string name;
  std::vector<int64_t> shape;
  bool isInput = false;
  bool isOutput = false;
  int producer = -1;  // node index, -1 for graph inputs
  // The shape of the tensor's .npy file (--inputs, --outputs): a reshape of `shape`, the
  // same elements in C order (an imported model's own shapes); empty: `shape`.
  std::vector<int64_t> fileShape;
  const std::vector<int64_t>& npyShape() const { return fileShape.empty() ? shape : fileShape; }
};

template <class T>
struct NodeSpec {
  std::string name;
  std::vector<int64_t> sizes, parts;            // per iteration label
  std::vector<int> operandTensor;
  std::vector<std::vector<int>> operandLabels;  // iteration label of each operand dimension
  std::vector<int> outputLabels;
  int outputTensor = -1;
  Reduce agg = Reduce::Sum;
  std::vector<int> callRank;                    // the plan's placement
  std::vector<int> blockOwner;
  int64_t bytesPredicted = 0;                   // the plan's traffic for the node
  int64_t interNodeBytesPredicted = 0;          // of it, between nodes (SPEC 9)
  int64_t flops = 0;
  int64_t reductionLength = 1;                  // product of the aggregated labels' sizes
  std::optional<GemmSpec> gemm;
  std::vector<int> permutation;                 // a copy into another order: the operand dimension
                                                // of each output dimension (permute.h), else empty
  FusionSpec fusion;
  std::string kernel;                           // what runs, for reports
  ElementwiseFn<T> elementwise = nullptr;
  PlainFn<T> plain = nullptr;
};

template <class T>
struct ProgramSpec {
  std::string name;
  std::string toolVersion;
  std::string graphSha256;
  std::string planSha256;
  MemorySpace memory = MemorySpace::Host;
  int devices = 1;
  int64_t bytesPredicted = 0;
  int64_t interNodeBytesPredicted = 0;
  // The ranks per node the plan's split assumes (0: one node); --ranks-per-node overrides.
  int64_t ranksPerNode = 0;
  int64_t flops = 0;
  std::vector<TensorSpec> tensors;
  std::vector<NodeSpec<T>> nodes;
  std::vector<int> outputs;
  ParallelForFn parallelFor = nullptr;  // the program's threads (null: one thread)
  // The plan's memory figures per rank (SPEC 3.2; empty: none planned): the pack-buffer
  // staging each rank reserves, the peak predicted with one thread, and the fused-tile
  // workspace each further thread adds to it.
  std::vector<int64_t> stagingSendBytes, stagingRecvBytes;
  std::vector<int64_t> peakBytesPredicted;
  std::vector<int64_t> tileWorkspaceBytes;
};

}  // namespace einrt::program
