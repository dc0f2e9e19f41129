#include "planner/eval/tensor_npy.h"

#include "einrt/npy.h"

namespace eindecomp {

std::string encodeTensorNpy(const Tensor& t) {
  if (t.dtype == DType::F64) return einrt::encodeNpy<double>(t.shape, t.values.data());
  const std::vector<float> f32(t.values.begin(), t.values.end());
  return einrt::encodeNpy<float>(t.shape, f32.data());
}

Tensor readTensorNpy(const std::string& path, DType dtype, const std::vector<int64_t>& shape) {
  Tensor t;
  t.dtype = dtype;
  t.shape = shape;
  if (dtype == DType::F64) {
    t.values = einrt::readNpy<double>(path, shape);
  } else {
    const std::vector<float> f32 = einrt::readNpy<float>(path, shape);
    t.values.assign(f32.begin(), f32.end());
  }
  return t;
}

}  // namespace eindecomp
