// A contraction's GEMM for blocks of one shape, decided once: the (strided-batched) call
// einrt makes and the batch loops around it. The planner's time model prices this call
// and the executor's NodeKernel runs it, so "the call" means one thing on both sides.
//
// The C labels (and M or N labels run as loops), adjacent ones merged where every tensor
// steps through them as through one; the innermost becomes the call's strided batch, the
// others loops outside it. A tensor that is permuted first is read in its canonical order
// [C][first][second]; any other is read where it is stored — the planner's mapping accepts
// a stored order only where the two groups are each one run of dimensions, the inner one
// innermost, with C labels before or between them (planner/paths/gemm_mapping.cpp). A
// result stored N-major is computed as Z^T = Y^T X^T (m and n swapped, A := Y^T, B := X^T).
#pragma once

#include <cstdint>
#include <vector>

#include "einrt/model/tables.h"
#include "einrt/program/gemm.h"

namespace einrt::model {

struct GemmCallPlan {
  struct Loop {
    int64_t extent, strideX, strideY, strideZ;
  };
  program::GemmCall call;     // its batch: the innermost merged loop
  bool swapped = false;       // Z stored N-major: computed as Z^T = Y^T X^T (A is Y)
  std::vector<Loop> loops;    // outside the call's batch, outermost first
  int64_t outerEntries = 1;   // product of their extents: the calls per block

  // Element offsets of X, Y and Z at entry `entry` of the loops (row-major over them).
  void offsets(int64_t entry, int64_t& x, int64_t& y, int64_t& z) const;
};

// The call for a node of shape `shape` (its operand and output labels) mapped by `spec`,
// on blocks of `extent` (per iteration label). Throws std::logic_error where a stored
// operand's inner group is not innermost (a mapping einrt cannot read in place).
GemmCallPlan gemmCallPlan(const GemmSpec& spec, const NodeShape& shape, const std::vector<int64_t>& extent);

}  // namespace einrt::model
