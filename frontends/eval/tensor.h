// The evaluator's tensor value type: a dtype, a shape and the elements in contiguous
// C (row-major) order. Elements are stored as double for every dtype so the reference
// evaluator has a single code path; a tensor of dtype F32, BF16 or F16 only ever holds
// values that are exactly representable in it (every producer rounds through
// roundToDType), so converting it to its storage is exact. Arithmetic is in double and
// each node's results are rounded once (SPEC 8 asks f32 arithmetic for the 2-byte types;
// double differs from it by less than one f32 rounding, far below theirs).
#pragma once

#include <cstdint>
#include <vector>

#include "planner/graph/graph.h"

namespace eindecomp {

struct Tensor {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;   // empty for a 0-d (scalar) tensor
  std::vector<double> values;   // C order, elementCount(shape) entries
};

// The value as the dtype stores it: unchanged for F64, rounded to nearest even for the
// others (bf16 and f16 through f32, as the programs round their f32 results).
double roundToDType(double value, DType dtype);

// Row-major strides in elements: the last dimension has stride 1.
std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& shape);

}  // namespace eindecomp
