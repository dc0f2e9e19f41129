// The evaluator's tensor value type: a dtype, a shape and the elements in contiguous
// C (row-major) order. Elements are stored as double for both dtypes so the reference
// evaluator has a single code path; a tensor of dtype F32 only ever holds values that
// are exactly representable as float (every producer rounds through roundToDType), so
// converting it to float storage is exact.
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

// The value as the dtype stores it: unchanged for F64, rounded to nearest float for F32.
double roundToDType(double value, DType dtype);

// Row-major strides in elements: the last dimension has stride 1.
std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& shape);

}  // namespace eindecomp
