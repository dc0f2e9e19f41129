// Which kernel a node runs, and why — decided once here (from the planner's GEMM mapping,
// planner/paths/gemm_mapping.h) and shown where users look: eincodegen's summary, the
// emitted README's node table and the program's report.
//   GEMM / batched GEMM   a contraction (join x * y, or c * x * y: GEMM alpha c) with labels
//                         summed over both operands; "+ permutation" where a stored order
//                         fits no GEMM layout;
//   permutation           a copy of one operand into another order of its dimensions
//                         (join x, nothing aggregated): einrt's tiled permutation;
//   elementwise           every other join, including broadcast multiplies (nothing summed:
//                         a GEMM with k = 1 would be a slow way to multiply);
//   reduction             a node that aggregates labels without a GEMM (agg max, a sum of
//                         one operand, a product, ...).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "planner/graph/graph.h"
#include "planner/paths/gemm_mapping.h"

namespace eindecomp::codegen {

struct KernelChoice {
  std::string kind;  // "GEMM", "batched GEMM", "GEMM + permutation", "permutation", "convolution", "elementwise", "reduction"
  std::string why;
  std::vector<int> permutation;  // "permutation": the operand dimension of each output dimension
};

// `gemm`: the node's GEMM mapping when it runs as one (runsAsGemm).
KernelChoice chooseKernel(const Node& n, const std::optional<GemmMapping>& gemm);

}  // namespace eindecomp::codegen
