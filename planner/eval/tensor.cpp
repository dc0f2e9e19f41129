#include "planner/eval/tensor.h"

#include <stdexcept>

namespace eindecomp {

Tensor makeTensor(DType dtype, const std::vector<int64_t>& shape, double fill) {
  Tensor t;
  t.dtype = dtype;
  t.shape = shape;
  t.values.assign(static_cast<std::size_t>(elementCount(shape)), roundToDType(fill, dtype));
  return t;
}

double roundToDType(double value, DType dtype) {
  return dtype == DType::F32 ? static_cast<double>(static_cast<float>(value)) : value;
}

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

int64_t flatIndex(const std::vector<int64_t>& shape, const std::vector<int64_t>& index) {
  if (index.size() != shape.size()) throw std::invalid_argument("flatIndex: index rank differs from the shape's");
  int64_t flat = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (index[d] < 0 || index[d] >= shape[d]) throw std::out_of_range("flatIndex: index outside the shape");
    flat = flat * shape[d] + index[d];
  }
  return flat;
}

}  // namespace eindecomp
