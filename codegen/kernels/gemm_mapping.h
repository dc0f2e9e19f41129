// Lowering a binary contraction (join mul, agg sum) to GEMM / strided-batched GEMM, after
// the Einsum Trees paper (sections 3-5). Every label of the contraction Z = X * Y is
// classified as
//   C (batch: in X, Y and Z), M (in X and Z only), N (in Y and Z only), K (in X and Y only),
// and the kernel runs `batch` GEMMs Z_c[M,N] (+)= X_c[M,K] * Y_c[K,N]. Blocks are stored in
// row-major order of their labels as written in the einsum, so an operand can feed the
// GEMM directly when its labels read as C-group then the M and K groups (either order,
// expressed by a transpose flag) — likewise Y with K/N and Z with M/N (Z stored N-major is
// computed as Z^T = Y^T X^T). The order of labels inside each group is free: the mapping
// tries the orders each tensor already has and keeps the one that needs the fewest
// permuted elements; only where no order fits is a permutation inserted (recorded here).
// Contractions the mapping cannot express (a label in one operand only, a label repeated
// within a tensor, broadcast labels, unary nodes) return std::nullopt and run on the
// generated elementwise kernel instead.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planner/graph/graph.h"

namespace eindecomp::codegen {

// A permutation of a stored block into the GEMM's canonical order: `perm[i]` is the stored
// dimension that becomes canonical dimension i. Empty when the block is used as stored.
using Permutation = std::vector<int>;

struct GemmMapping {
  Labels batchLabels, mLabels, nLabels, kLabels;  // C, M, N, K in the chosen group orders
  int64_t batch = 1, m = 1, n = 1, k = 1;          // products of the block extents
  bool transX = false;    // X stored [C][K][M] rather than [C][M][K]
  bool transY = false;    // Y stored [C][N][K] rather than [C][K][N]
  bool transZ = false;    // Z stored [C][N][M]: the kernel computes Z^T = Y^T X^T
  Permutation permX, permY, permZ;  // non-empty where the stored order fits no GEMM layout
  int64_t permutedElements = 0;     // elements moved by the permutations, per kernel call
};

// Maps the node's contraction with block extents `blockExtent` (per iteration label, in
// iterationLabels(n) order). std::nullopt when the node is not GEMM-shaped (see above).
std::optional<GemmMapping> mapContractionToGemm(const Node& n, const std::vector<int64_t>& blockExtent);

// One line for reports: e.g. "GEMM batch=4 m=64 n=32 k=16 (C[b] M[i] N[k] K[j]) X^T, perm Y".
std::string describeGemmMapping(const GemmMapping& g);

}  // namespace eindecomp::codegen
