#include "frontends/eval/tensor_npy.h"

#include "einrt/npy.h"

namespace eindecomp {

namespace {

template <class T>
std::vector<T> narrowed(const std::vector<double>& values) {
  std::vector<T> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<T>(values[i]);
  return out;
}

template <class T>
std::vector<double> widened(const std::vector<T>& values) {
  std::vector<double> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<double>(static_cast<einrt::Compute<T>>(values[i]));
  return out;
}

}  // namespace

std::string encodeTensorNpy(const Tensor& t) {
  switch (t.dtype) {
    case DType::F64: return einrt::encodeNpy<double>(t.shape, t.values.data());
    case DType::BF16: return einrt::encodeNpy(t.shape, narrowed<einrt::bf16>(t.values).data());
    case DType::F16: return einrt::encodeNpy(t.shape, narrowed<einrt::f16>(t.values).data());
    case DType::I32: return einrt::encodeNpy(t.shape, narrowed<int32_t>(t.values).data());
    case DType::I64: return einrt::encodeNpy(t.shape, narrowed<int64_t>(t.values).data());
    case DType::F32: break;
  }
  return einrt::encodeNpy(t.shape, narrowed<float>(t.values).data());
}

Tensor readTensorNpy(const std::string& path, DType dtype, const std::vector<int64_t>& shape) {
  Tensor t;
  t.dtype = dtype;
  t.shape = shape;
  switch (dtype) {
    case DType::F64: t.values = einrt::readNpy<double>(path, shape); break;
    case DType::F32: t.values = widened(einrt::readNpy<float>(path, shape)); break;
    case DType::BF16: t.values = widened(einrt::readNpy<einrt::bf16>(path, shape)); break;
    case DType::F16: t.values = widened(einrt::readNpy<einrt::f16>(path, shape)); break;
    case DType::I32:
    case DType::I64:
      for (int64_t id : einrt::readNpyIndices(path, shape)) t.values.push_back(static_cast<double>(id));
      break;
  }
  return t;
}

}  // namespace eindecomp
