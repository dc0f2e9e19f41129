// Box copies on the GPU: one thread per element, the index arithmetic of box_copy.h
// (shared with the host path), plus device and pinned host memory helpers. Errors turn
// into std::runtime_error naming the CUDA call.
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "copy_ops.h"

namespace einrt::detail {

namespace {
void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string("einrt: ") + what + ": " + cudaGetErrorString(status));
}

template <class T>
__global__ void boxCopyKernel(BoxCopy c, const T* from, T* to, CombineOp op) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t linear = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; linear < c.count; linear += stride) {
    int64_t f = 0, t = 0;
    elementOffsets(c, linear, f, t);
    to[t] = combine(op, to[t], from[f]);
  }
}
}  // namespace

void runCopiesCuda(const std::vector<CopyOp>& ops, DType dtype) {
  constexpr int threads = 256;
  for (const CopyOp& op : ops) {
    const int64_t count = op.geometry->count;
    if (count == 0) continue;
    const int blocks = static_cast<int>(std::min<int64_t>((count + threads - 1) / threads, 65535));
    if (dtype == DType::F32)
      boxCopyKernel<float><<<blocks, threads>>>(*op.geometry, reinterpret_cast<const float*>(op.from),
                                                reinterpret_cast<float*>(op.to), op.op);
    else
      boxCopyKernel<double><<<blocks, threads>>>(*op.geometry, reinterpret_cast<const double*>(op.from),
                                                 reinterpret_cast<double*>(op.to), op.op);
    check(cudaGetLastError(), "box copy kernel launch");
  }
  check(cudaDeviceSynchronize(), "box copy kernels");
}

void* cudaAllocDevice(std::size_t bytes) {
  void* p = nullptr;
  if (bytes) check(cudaMalloc(&p, bytes), "cudaMalloc");
  return p;
}
void cudaFreeDevice(void* p) {
  if (p) cudaFree(p);
}
void* cudaAllocPinned(std::size_t bytes) {
  void* p = nullptr;
  if (bytes) check(cudaMallocHost(&p, bytes), "cudaMallocHost");
  return p;
}
void cudaFreePinned(void* p) {
  if (p) cudaFreeHost(p);
}
void cudaCopyDeviceToHost(void* dst, const void* src, std::size_t bytes) {
  if (bytes) check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy device to host");
}
void cudaCopyHostToDevice(void* dst, const void* src, std::size_t bytes) {
  if (bytes) check(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy host to device");
}

}  // namespace einrt::detail
