// Mixed precision in one program (SPEC 8): a program of T (bf16 or f16) whose graph has f32
// tensors too — master weights, their optimizer state and update. Their blocks are held in
// the program's buffers as their own bytes (Buffer<T>::ofBytes, as ids are), moved by the
// collectives as f32, computed by the node's f32 kernels (ProgramSpec::wideKernels); a cast
// node converts its operand's blocks element by element. Host vectors of whole tensors
// (--inputs, --outputs, --check) hold an f32 tensor's bytes in a std::vector<T> likewise.
#pragma once

#include <cstring>
#include <vector>

#include "einrt/half.h"
#include "einrt/types.h"

namespace einrt::program::detail {

// The bytes of f32 values in a host vector of T (a whole number of T's: 4 bytes are two
// 2-byte elements).
template <class T>
std::vector<T> packFloats(const std::vector<float>& values) {
  std::vector<T> out((values.size() * sizeof(float) + sizeof(T) - 1) / sizeof(T));
  if (!values.empty()) std::memcpy(static_cast<void*>(out.data()), values.data(), values.size() * sizeof(float));
  return out;
}

template <class T>
std::vector<float> unpackFloats(const std::vector<T>& packed, std::size_t elements) {
  std::vector<float> out(elements);
  if (elements) std::memcpy(out.data(), static_cast<const void*>(packed.data()), elements * sizeof(float));
  return out;
}

// A cast's call: n elements of type `from` at `x` into type `to` at `z` (T or f32 each;
// computed through f32 and rounded once, SPEC 8).
template <class T>
void convertElements(DType from, const void* x, DType to, void* z, int64_t n) {
  const bool wideIn = from == DType::F32 && dtypeOf<T>() != DType::F32;
  const bool wideOut = to == DType::F32 && dtypeOf<T>() != DType::F32;
  for (int64_t i = 0; i < n; ++i) {
    const float v = wideIn ? static_cast<const float*>(x)[i] : static_cast<float>(loadElement(static_cast<const T*>(x), i));
    if (wideOut) static_cast<float*>(z)[i] = v;
    else storeElement(static_cast<T*>(z), i, v);
  }
}

}  // namespace einrt::program::detail
