// RankProgram: what every rank of the emitted program does, as plain data — the output of
// lowering (Plan -> RankProgram) and the only input of rendering. Its core is the
// program's tables (einrt/model/tables.h, made by planner/model/program_tables.h): tensors
// cut into blocks by the parts of their dimensions, per node its kernel calls on the ranks
// of `callRank` and its output blocks on `blockOwner` (the plan's placement), its GEMM
// mapping, permutation or fused group, and the bytes the plan's traffic model predicts,
// which the program reports next to what it measures. Beside them, what only the emitted
// source needs: C++ identifiers, the join's C++ expression, the kernel choice with its
// reason; and the program model of the tables (einrt/model/program_model.h), which says
// what the program will do with them (its fused groups' scratch outputs, for the README).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <einrt/model/program_model.h>
#include <einrt/model/tables.h>

#include "codegen/kernels/kernel_choice.h"
#include "planner/graph/graph.h"
#include "planner/paths/gemm_mapping.h"

namespace eindecomp::codegen {

// A node's table and what the emitted source says of it.
struct NodeProgram : einrt::model::NodeTable {
  std::string ident;                // C++ identifier (cppIdentifier)
  Labels labels;                    // iteration labels' names (iterationLabels order), for comments
  std::string joinSource;           // C++ expression over x, y (join_source.h)
  bool usesY = false;
  std::optional<GemmMapping> mapping;  // the GEMM mapping by label names, for comments
  KernelChoice choice;              // what runs and why
};

struct RankProgram {
  std::string graphName;
  DType dtype = DType::F32;
  int devices = 1;
  std::string algorithm;
  std::vector<einrt::model::TensorTable> tensors;  // graph inputs first, then node outputs in node order
  std::vector<NodeProgram> nodes;
  std::vector<int> outputs;            // tensor indices of the graph outputs
  int64_t microBatches = 1;            // the step's (einrt/model/program_model.h)
  bool partialsOnOwners = false;       // the plan's (einrt/model/tables.h)
  einrt::model::ProgramModel model;    // of the tables, on the host (fused groups as steps)
  int64_t bytesPredicted = 0;
  int64_t interNodeBytesPredicted = 0;
  int64_t ranksPerNode = 0;            // the cluster the split assumes (0: one node)
  int64_t flops = 0;
  // The plan's memory model per rank (planner/cost/memory.h): the peak with one thread,
  // the fused-tile workspace per further thread, the staging each rank reserves.
  std::vector<int64_t> peakBytesPredicted, tileWorkspaceBytes, stagingSendBytes, stagingRecvBytes;
};

}  // namespace eindecomp::codegen
