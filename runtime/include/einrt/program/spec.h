// What an emitted program hands the executor (SPEC 7): its graph and plan as plain tables
// (einrt/model/tables.h: tensors; per node the iteration labels' sizes and parts, which
// label each tensor dimension is, the plan's placement, GEMM mapping and fusion, the bytes
// the plan predicts) and the per-node kernels compiled with the node's scalar functor
// (elementwise.h, reference.h). Nothing here is decided at run time: the executor follows
// the tables through einrt's program model (einrt/model/program_model.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "einrt/model/tables.h"
#include "einrt/program/gemm.h"
#include "einrt/program/loop_nest.h"
#include "einrt/program/parallel_for.h"
#include "einrt/half.h"
#include "einrt/types.h"

namespace einrt::program {

// Per-node kernels from the emitted code: the fast kernel over a block (elementwise.h), and
// the plain loops of the --check reference on small graphs (reference.h).
template <class T>
using ElementwiseFn = void (*)(const LoopNest& nest, const T* X, const T* Y, T* Z, bool accumulate, int threads);
template <class T>
using PlainFn = void (*)(const std::vector<int64_t>& sizes, const std::vector<std::vector<int>>& operandLabels,
                         const std::vector<int>& outputLabels, const T* X, const T* Y, T* Z);

using GemmSpec = model::GemmSpec;
using FusionSpec = model::FusionSpec;
using TensorSpec = model::TensorTable;
using NodeTable = model::NodeTable;

// A node's kernels as the emitted kernels.cpp instantiates them with its scalar functor.
template <class T>
struct NodeKernels {
  ElementwiseFn<T> elementwise = nullptr;  // null for GEMM and permutation nodes
  PlainFn<T> plain = nullptr;
};

// The program: its tables (einrt/model/tables.h: tensors, nodes, outputs), their kernels
// (aligned with the nodes) and what the program reports beside its measurements.
template <class T>
struct ProgramSpec : model::ProgramTables {
  std::vector<NodeKernels<T>> kernels;
  // Mixed precision (SPEC 8): in a bf16 or f16 program, the kernels of the nodes that
  // compute in f32 (tensors whose floatType is f32: master weights and their update),
  // aligned with the nodes (empty, or null entries, elsewhere).
  std::vector<NodeKernels<float>> wideKernels;
  std::string name;
  std::string toolVersion;
  std::string graphSha256;
  std::string planSha256;
  MemorySpace memory = MemorySpace::Host;
  int devices = 1;
  int64_t bytesPredicted = 0;
  int64_t interNodeBytesPredicted = 0;
  int64_t flops = 0;
  ParallelForFn parallelFor = nullptr;  // the program's threads (null: one thread)
  // The plan's memory figures per rank (SPEC 3.2; empty: none planned): the pack-buffer
  // staging each rank reserves, the peak predicted with one thread, and the fused-tile
  // workspace each further thread adds to it.
  std::vector<int64_t> stagingSendBytes, stagingRecvBytes;
  std::vector<int64_t> peakBytesPredicted;
  std::vector<int64_t> tileWorkspaceBytes;
};

}  // namespace einrt::program
