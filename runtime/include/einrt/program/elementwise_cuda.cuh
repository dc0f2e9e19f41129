// The generic kernel of elementwise.h for device memory (emitted CUDA programs, compiled by
// nvcc): one thread per output element, looping over the aggregated points of its loop
// nest. The same LoopNest and functor as the host kernel, so both backends compute the same
// einsum; launched on the default stream (the executor synchronizes after each node).
// bf16 and f16 storage is read into f32, aggregated in f32 and rounded once (einrt/half.h).
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "einrt/half.h"
#include "einrt/program/loop_nest.h"

namespace einrt::program {

namespace cuda_detail {

template <class T, class Ops>
__global__ void elementwiseKernel(LoopNest n, const T* X, const T* Y, T* Z, bool accumulate) {
  const int64_t out = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (out >= n.outputElements) return;
  // Decode the output element over the output loops (innermost last), then walk the
  // aggregated loops.
  int64_t rest = out, ox = 0, oy = 0, oz = 0, aggPoints = 1;
  for (int d = n.depth - 1; d >= 0; --d) {
    if (n.strideZ[d] == 0) {
      aggPoints *= n.extent[d];
      continue;
    }
    const int64_t i = rest % n.extent[d];
    rest /= n.extent[d];
    ox += i * n.strideX[d];
    oy += i * n.strideY[d];
    oz += i * n.strideZ[d];
  }
  using C = Compute<T>;
  C acc = accumulate ? static_cast<C>(Z[oz]) : Ops::template identity<C>();
  for (int64_t a = 0; a < aggPoints; ++a) {
    int64_t r = a, px = ox, py = oy;
    for (int d = n.depth - 1; d >= 0; --d) {
      if (n.strideZ[d] != 0) continue;
      const int64_t i = r % n.extent[d];
      r /= n.extent[d];
      px += i * n.strideX[d];
      py += i * n.strideY[d];
    }
    const C v = Ops::template join<C>(static_cast<C>(X[px]), Y ? static_cast<C>(Y[py]) : C(0));
    acc = (a == 0 && !accumulate && !n.aggregates) ? v : Ops::template combine<C>(acc, v);
  }
  Z[oz] = T(acc);
}

}  // namespace cuda_detail

template <class T, class Ops, bool Reduces = true>
void cudaElementwise(const LoopNest& n, const T* X, const T* Y, T* Z, bool accumulate, int) {
  constexpr int kThreads = 256;
  const int64_t blocks = (n.outputElements + kThreads - 1) / kThreads;
  if (blocks > 0) cuda_detail::elementwiseKernel<T, Ops><<<static_cast<unsigned>(blocks), kThreads>>>(n, X, Y, Z, accumulate);
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) throw std::runtime_error(std::string("einrt: elementwise kernel launch: ") + cudaGetErrorString(status));
}

}  // namespace einrt::program
