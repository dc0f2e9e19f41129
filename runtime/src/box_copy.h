// The index arithmetic of pack, unpack and local copies, shared by the host path and the
// CUDA kernels: a BoxCopy describes how the elements of one box sit in two row-major
// containers (a block and a pack buffer, or two blocks), after merging dimensions that
// are contiguous on both sides. Functions are __host__ __device__ when nvcc compiles
// them and plain inline C++ otherwise, so the CPU tests exercise the same code the GPU
// runs.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define EINRT_HOST_DEVICE __host__ __device__
#else
#define EINRT_HOST_DEVICE
#endif

#include "einrt/half.h"
#include "einrt/limits.h"

namespace einrt::detail {

constexpr int kMaxDims = kMaxTensorRank;  // einrt/limits.h

// How a copied element is written: overwrite, or combine with the value already there.
enum class CombineOp : int { Assign, Sum, Max, Min, Prod };

struct BoxCopy {
  int ndims = 1;                   // after merging; >= 1
  int64_t count = 0;               // elements copied
  int64_t extent[kMaxDims] = {};   // box extent per merged dimension
  int64_t fromStride[kMaxDims] = {};
  int64_t toStride[kMaxDims] = {};
  int64_t fromOffset = 0;          // element offset of the box origin in the source container
  int64_t toOffset = 0;            // ... in the destination container
};

// Element offsets in source and destination of the `linear`-th element of the box
// (row-major order over the box).
EINRT_HOST_DEVICE inline void elementOffsets(const BoxCopy& c, int64_t linear, int64_t& from, int64_t& to) {
  from = c.fromOffset;
  to = c.toOffset;
  for (int k = c.ndims - 1; k >= 0; --k) {
    const int64_t i = linear % c.extent[k];
    linear /= c.extent[k];
    from += i * c.fromStride[k];
    to += i * c.toStride[k];
  }
}

template <class T>
EINRT_HOST_DEVICE inline T combine(CombineOp op, T current, T incoming) {
  // 2-byte storage combines in f32 and rounds once (einrt/half.h).
  using C = Compute<T>;
  const C a = static_cast<C>(current), b = static_cast<C>(incoming);
  switch (op) {
    case CombineOp::Assign: return incoming;
    case CombineOp::Sum: return T(a + b);
    case CombineOp::Max: return a < b ? incoming : current;
    case CombineOp::Min: return b < a ? incoming : current;
    case CombineOp::Prod: return T(a * b);
  }
  return incoming;
}

}  // namespace einrt::detail
