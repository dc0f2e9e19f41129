// How a binary contraction maps onto BLAS, after the Einsum Trees paper (sections 2.1 and
// 3-5). The one label classifier: every label of `X, Y -> Z` is
//   C (in X, Y and Z: a batch dimension), M (X and Z), N (Y and Z), K (X and Y: summed),
//   R (one operand only, not the output: summed within one operand), B (output only: broadcast).
// A contraction (join mul, agg sum) without R and B labels runs as `batch` GEMMs
// Z_c[M,N] (+)= X_c[M,K] * Y_c[K,N]. Blocks are stored row-major in the order their labels
// are written, so an operand feeds the GEMM directly when its labels read as the C group
// and then the M and K groups (either order, a transpose flag) — likewise Y with K/N and
// Z with M/N (Z stored N-major is computed as Z^T = Y^T X^T). The order of labels inside
// each group is free: the mapping tries the orders each tensor already has and keeps the
// one that needs the fewest permuted elements; only where no order fits is a permutation
// inserted (recorded here) — unless M or N labels leading Z, run as batch loops as well,
// spare every permutation (the paper's loops over a GEMM). A join that is x * y times numbers ("x * y * 0.125") is a GEMM
// with that alpha. Contractions it cannot express (R or B labels, a label repeated within
// a tensor, unary nodes, other joins or aggregations) get std::nullopt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <einrt/model/gemm_call.h>
#include <einrt/program/gemm.h>

#include "planner/graph/graph.h"

namespace eindecomp {

struct LabelClasses {
  Labels c, m, n, k;  // in order of first appearance (X, then Y, then Z)
  Labels r, b;
};

LabelClasses classifyLabels(const Labels& x, const Labels& y, const Labels& z);

// "C: b  M: i  N: k  K: j" (empty classes left out).
std::string describeLabelClasses(const LabelClasses& classes);

// A permutation of a stored block into the GEMM's canonical order: `perm[i]` is the stored
// dimension that becomes canonical dimension i. Empty when the block is used as stored.
using Permutation = std::vector<int>;

struct GemmMapping {
  // C, M, N, K in the chosen group orders. batchLabels also holds the M and N labels made
  // loops (mapContractionToGemm): an operand without one steps over it with stride 0.
  Labels batchLabels, mLabels, nLabels, kLabels;
  int64_t batch = 1, m = 1, n = 1, k = 1;          // products of the block extents
  bool transX = false;    // X stored [C][K][M] rather than [C][M][K]
  bool transY = false;    // Y stored [C][N][K] rather than [C][K][N]
  bool transZ = false;    // Z stored [C][N][M]: the kernel computes Z^T = Y^T X^T
  Permutation permX, permY, permZ;  // non-empty where the stored order fits no GEMM layout
  int64_t permutedElements = 0;     // elements moved by the permutations, per kernel call
  double alpha = 1.0;               // a scaled contraction (join c * x * y): C = alpha * X Y
};

// Maps the node's contraction with block extents `blockExtent` (per iteration label, in
// iterationLabels(n) order). std::nullopt when the node is not GEMM-shaped (see above).
std::optional<GemmMapping> mapContractionToGemm(const Node& n, const std::vector<int64_t>& blockExtent);

// The mapping as the program's tables hold it (einrt/model/tables.h): label indices in
// `iterationLabels` order (iterationLabels(n)), and the plan's path for the calls.
einrt::model::GemmSpec gemmSpecOf(const GemmMapping& g, const Labels& iterationLabels,
                                  einrt::program::GemmPlanned path = einrt::program::GemmPlanned::Rule);

// The (strided-batched) call einrt's NodeKernel makes for node n's mapping on blocks of
// `blockExtent` and the batch loops around it, as einrt's model decides them
// (einrt/model/gemm_call.h: a result stored N-major computed transposed, the batch labels
// merged into loops, the innermost the call's batch).
einrt::model::GemmCallPlan gemmCallPlanOf(const Node& n, const GemmMapping& g, const std::vector<int64_t>& blockExtent);

// One line for reports: e.g. "GEMM m=64 n=32 k=16 (C[] M[i] N[k] K[j]) X^T, no permutation".
std::string describeGemmMapping(const GemmMapping& g);

// What a mapping amounts to: one GEMM call, a strided-batched GEMM, or a GEMM that needs
// a permutation of some tensor first (also: no GEMM mapping at all).
enum class KernelMapping { Gemm, BatchedGemm, Permutation };
KernelMapping kernelMappingOf(const std::optional<GemmMapping>& mapping);
const char* kernelMappingName(KernelMapping k);  // "gemm" | "batched-gemm" | "permute"

// Whether the node's kernel calls run as (batched) GEMMs — a GEMM mapping with something
// to sum (K labels) — rather than as an elementwise/reduction kernel bounded by memory
// bandwidth. The time estimate and the code generator both ask this.
bool runsAsGemm(const Node& n);

// A unary node with join x that aggregates nothing and reads every label once is a copy
// into another order: the operand dimension of each output dimension, else std::nullopt.
std::optional<std::vector<int>> permutationOrder(const Node& n);

}  // namespace eindecomp
