#include "frontends/eval/tensor.h"

#include "einrt/half.h"

namespace eindecomp {

double roundToDType(double value, DType dtype) {
  switch (dtype) {
    case DType::F64: return value;
    case DType::F32: return static_cast<float>(value);
    // Through f32, as the programs round their f32 results (SPEC 8).
    case DType::BF16: return static_cast<float>(einrt::bf16(static_cast<float>(value)));
    case DType::F16: return static_cast<float>(einrt::f16(static_cast<float>(value)));
    case DType::I32:
    case DType::I64: return value;  // ids, read from files or generated: never computed
  }
  return value;
}

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

}  // namespace eindecomp
