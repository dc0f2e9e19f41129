#include "planner/eval/tensor.h"

namespace eindecomp {

double roundToDType(double value, DType dtype) {
  return dtype == DType::F32 ? static_cast<double>(static_cast<float>(value)) : value;
}

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

}  // namespace eindecomp
