// einrt::cuda: the DeviceOps of a CUDA GPU (cuda_device.h). Box copies run one thread per
// element with the index arithmetic of box_copy.h (shared with the host path); GEMMs are
// cuBLAS strided-batched calls on the row-major layout (C^T = B^T A^T); permutations one
// thread per element. Errors become std::runtime_error naming the CUDA call.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "copy_ops.h"
#include "einrt/cuda_device.h"
#include "einrt/program/gemm.h"
#include "einrt/program/permute.h"

namespace einrt {

namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string("einrt: ") + what + ": " + cudaGetErrorString(status));
}

void checkBlas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string("einrt: ") + what + " failed (cuBLAS)");
}

constexpr int kThreads = 256;

int gridFor(int64_t count) { return static_cast<int>(std::min<int64_t>((count + kThreads - 1) / kThreads, 65535)); }

template <class T>
__global__ void boxCopyKernel(detail::BoxCopy c, const T* from, T* to, detail::CombineOp op) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t linear = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; linear < c.count; linear += stride) {
    int64_t f = 0, t = 0;
    detail::elementOffsets(c, linear, f, t);
    to[t] = detail::combine(op, to[t], from[f]);
  }
}

void runCopies(const detail::CopyOp* ops, std::size_t count, DType dtype) {
  for (std::size_t i = 0; i < count; ++i) {
    const detail::CopyOp& op = ops[i];
    if (op.geometry->count == 0) continue;
    const int blocks = gridFor(op.geometry->count);
    withElementType(dtype, [&](auto element) {
      using T = decltype(element);
      boxCopyKernel<T><<<blocks, kThreads>>>(*op.geometry, reinterpret_cast<const T*>(op.from), reinterpret_cast<T*>(op.to),
                                             op.op);
    });
    check(cudaGetLastError(), "box copy kernel launch");
  }
  check(cudaDeviceSynchronize(), "box copy kernels");
}

void* allocate(std::size_t bytes) {
  void* p = nullptr;
  if (bytes) check(cudaMalloc(&p, bytes), "cudaMalloc");
  return p;
}
void release(void* p) {
  if (p) cudaFree(p);
}
void* allocatePinned(std::size_t bytes) {
  void* p = nullptr;
  if (bytes) check(cudaMallocHost(&p, bytes), "cudaMallocHost");
  return p;
}
void releasePinned(void* p) {
  if (p) cudaFreeHost(p);
}
void copyToHost(void* host, const void* device, std::size_t bytes) {
  if (bytes) check(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy device to host");
}
void copyToDevice(void* device, const void* host, std::size_t bytes) {
  if (bytes) check(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy host to device");
}
void synchronize() { check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }

cublasHandle_t handle() {
  static cublasHandle_t h = nullptr;  // one per process: one GPU per rank
  if (!h) checkBlas(cublasCreate(&h), "cublasCreate");
  return h;
}

void gemm(const program::GemmCall& g, DType dtype, const void* A, const void* B, void* C, double alpha, double beta) {
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
  const cublasOperation_t opA = g.transA ? CUBLAS_OP_T : CUBLAS_OP_N, opB = g.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  if (dtype == DType::F32) {
    const float a = static_cast<float>(alpha), b = static_cast<float>(beta);
    checkBlas(cublasSgemmStridedBatched(handle(), opB, opA, int(g.n), int(g.m), int(g.k), &a, static_cast<const float*>(B),
                                        int(g.ldb), g.strideB, static_cast<const float*>(A), int(g.lda), g.strideA, &b,
                                        static_cast<float*>(C), int(g.ldc), g.strideC, int(g.batch)),
              "cublasSgemmStridedBatched");
  } else if (isTwoByte(dtype)) {
    // 2-byte storage, f32 accumulation and scalars, the result rounded once (SPEC 8).
    const float a = static_cast<float>(alpha), b = static_cast<float>(beta);
    const cudaDataType_t t = dtype == DType::BF16 ? CUDA_R_16BF : CUDA_R_16F;
    checkBlas(cublasGemmStridedBatchedEx(handle(), opB, opA, int(g.n), int(g.m), int(g.k), &a, B, t, int(g.ldb), g.strideB, A, t,
                                         int(g.lda), g.strideA, &b, C, t, int(g.ldc), g.strideC, int(g.batch),
                                         CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              "cublasGemmStridedBatchedEx");
  } else {
    checkBlas(cublasDgemmStridedBatched(handle(), opB, opA, int(g.n), int(g.m), int(g.k), &alpha, static_cast<const double*>(B),
                                        int(g.ldb), g.strideB, static_cast<const double*>(A), int(g.lda), g.strideA, &beta,
                                        static_cast<double*>(C), int(g.ldc), g.strideC, int(g.batch)),
              "cublasDgemmStridedBatched");
  }
}

template <class T>
__global__ void permuteKernel(program::Permutation p, const T* src, T* dst, bool accumulate) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; j < p.elements; j += stride) {
    int64_t rest = j, s = 0, t = 0;
    for (int d = p.dims - 1; d >= 0; --d) {
      const int64_t i = rest % p.extent[d];
      rest /= p.extent[d];
      s += i * p.srcStride[d];
      t += i * p.dstStride[d];
    }
    dst[t] = accumulate ? T(static_cast<Compute<T>>(dst[t]) + static_cast<Compute<T>>(src[s])) : src[s];
  }
}

void permute(const program::Permutation& p, DType dtype, const void* src, void* dst, bool accumulate) {
  if (p.elements == 0) return;
  withElementType(dtype, [&](auto element) {
    using T = decltype(element);
    permuteKernel<T><<<gridFor(p.elements), kThreads>>>(p, static_cast<const T*>(src), static_cast<T*>(dst), accumulate);
  });
  check(cudaGetLastError(), "permutation kernel launch");
}

template <class T>
__global__ void fillKernel(T* p, int64_t count, T value) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < count; i += stride) p[i] = value;
}

void fill(void* p, std::size_t count, DType dtype, double value) {
  if (count == 0) return;
  const int64_t n = static_cast<int64_t>(count);
  withElementType(dtype, [&](auto element) {
    using T = decltype(element);
    fillKernel<T><<<gridFor(n), kThreads>>>(static_cast<T*>(p), n, T(value));
  });
  check(cudaGetLastError(), "fill kernel launch");
}

}  // namespace

const DeviceOps& cudaDevice() {
  static const DeviceOps ops{"cuda",     &allocate, &release, &allocatePinned, &releasePinned, &copyToHost, &copyToDevice,
                             &synchronize, &runCopies, &gemm,    &permute,        &fill};
  return ops;
}

}  // namespace einrt
