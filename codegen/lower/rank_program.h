// RankProgram: what every rank of the emitted program does, as plain data — the output of
// lowering (Plan -> RankProgram) and the only input of rendering. Tensors are cut into
// blocks by the parts of their dimensions; a node runs `calls` kernel calls (one per cell
// of its partition grid, numbered row-major over its iteration labels) on the ranks in
// `callRank`; each output block lives on `blockOwner` — both the plan's placement. The
// bytes the plan's traffic model predicts per node (repartition into the node's operands
// + aggregation of partial results) travel along, so the program reports them next to
// what it measures.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <einrt/program/gemm.h>

#include "codegen/kernels/kernel_choice.h"
#include "planner/paths/gemm_mapping.h"
#include "planner/graph/graph.h"

namespace eindecomp::codegen {

struct TensorProgram {
  std::string name;   // as in the graph (may contain '.' for split nodes)
  std::string ident;  // C++ identifier (cppIdentifier)
  std::vector<int64_t> shape;
  bool isInput = false;
  bool isOutput = false;
  int producer = -1;  // node index, or -1 for graph inputs
  std::vector<int64_t> fileShape;  // the shape of its .npy file (a reshape of `shape`)
};

struct OperandProgram {
  int tensor = -1;
  std::vector<int> labelOfDim;  // iteration-label index of each tensor dimension
};

// A node's place in a fused group (planner/fusion/fusion.h); group -1: not fused.
struct FusionProgram {
  int group = -1;
  int tileDims = 0;      // the group's dimensions: the first tileDims output dimensions
  bool scratch = false;  // the output lives in tiles only (read by later members alone)
};

struct NodeProgram {
  std::string name;
  std::string ident;
  Labels labels;                  // iteration labels (iterationLabels order)
  std::vector<int64_t> sizes;     // per label
  std::vector<int64_t> parts;     // per label (the partition)
  std::vector<OperandProgram> operands;
  std::vector<int> outputLabelOfDim;
  int outputTensor = -1;
  Reduce agg = Reduce::Sum;
  std::string joinSource;         // C++ expression over x, y (join_source.h)
  bool usesY = false;
  std::optional<GemmMapping> gemm;  // when the node runs as a GEMM
  einrt::program::GemmPlanned gemmPath = einrt::program::GemmPlanned::Rule;  // the plan's path for its calls
  KernelChoice kernel;              // what runs and why
  FusionProgram fusion;
  int64_t reductionLength = 1;      // product of the aggregated labels' sizes
  int64_t calls = 1;
  std::vector<int> callRank;      // rank of each kernel call (the plan's placement)
  std::vector<int> blockOwner;    // rank owning each output block (row-major over output dims)
  int64_t bytesPredicted = 0;     // the plan's traffic for the node (SPEC 3.1)
  int64_t interNodeBytesPredicted = 0;  // of it, between nodes (SPEC 9)
  int64_t flops = 0;
};

struct RankProgram {
  std::string graphName;
  DType dtype = DType::F32;
  int devices = 1;
  std::string algorithm;
  std::vector<TensorProgram> tensors;  // graph inputs first, then node outputs in node order
  std::vector<NodeProgram> nodes;
  std::vector<int> outputs;            // tensor indices of the graph outputs
  int64_t bytesPredicted = 0;
  int64_t interNodeBytesPredicted = 0;
  int64_t ranksPerNode = 0;            // the cluster the split assumes (0: one node)
  int64_t flops = 0;
  // The plan's memory model per rank (planner/cost/memory.h): the peak with one thread,
  // the fused-tile workspace per further thread, the staging each rank reserves.
  std::vector<int64_t> peakBytesPredicted, tileWorkspaceBytes, stagingSendBytes, stagingRecvBytes;
};

}  // namespace eindecomp::codegen
