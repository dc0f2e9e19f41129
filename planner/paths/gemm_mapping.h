// How a binary contraction maps onto BLAS, after the Einsum Trees paper (sections 2.1 and
// 3). Each label of `left, right -> out` gets a type: C (in both operands and the output:
// a batch dimension), M (left and output), N (right and output), K (both operands, not the
// output: summed), plus R (one operand only, not the output: must be summed out first) and
// B (output only: a broadcast). Tensors are row-major. The step maps to
//   - a GEMM when there is no C label and, after fusing each type's labels into one
//     dimension, every tensor is a (possibly transposed) matrix: left is [M][K] or [K][M],
//     right [K][N] or [N][K], out [M][N] or [N][M], each group in the same order wherever
//     it appears (empty groups are allowed: a GEMV or an outer product is still one call);
//   - a batched GEMM when, in addition, the C labels lead all three tensors in the same
//     order (a strided-batched call);
//   - otherwise it needs a permutation of at least one tensor first (TTGT), as does any
//     step with an R or B label.
#pragma once

#include <string>

#include "planner/graph/graph.h"

namespace eindecomp {

enum class KernelMapping { Gemm, BatchedGemm, Permutation };

struct GemmMapping {
  KernelMapping kind = KernelMapping::Permutation;
  Labels c, m, n, k;  // labels by type, in order of appearance (left, then right, then out)
  Labels r, b;        // summed within one operand / broadcast: these force a permutation
};

GemmMapping classifyBinaryContraction(const Labels& left, const Labels& right, const Labels& out);

// "gemm" | "batched-gemm" | "permute"
const char* kernelMappingName(KernelMapping k);

// "C: b  M: i  N: k  K: j" (types that are empty are left out).
std::string describeLabelTypes(const GemmMapping& m);

}  // namespace eindecomp
