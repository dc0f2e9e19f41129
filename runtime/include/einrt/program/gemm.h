// A row-major (strided-batched) GEMM as a contraction's kernel call runs it:
//   C_b = alpha * op(A_b) * op(B_b) + beta * C_b   for b < batch,
// with element strides between batches. On the host every batch is one cblas call (any
// CBLAS: the emitted project links whatever BLAS CMake's FindBLAS finds); device memory
// goes through the device backend (device.h: cuBLAS in einrt::cuda).
#pragma once

#include <cstdint>

namespace einrt::program {

struct GemmCall {
  bool transA = false, transB = false;
  int64_t m = 1, n = 1, k = 1, lda = 1, ldb = 1, ldc = 1;
  int64_t batch = 1, strideA = 0, strideB = 0, strideC = 0;
};

void hostGemm(const GemmCall& g, const float* A, const float* B, float* C, float alpha, float beta);
void hostGemm(const GemmCall& g, const double* A, const double* B, double* C, double alpha, double beta);

// BLAS threads per rank (where the BLAS lets a program set them: OpenBLAS, BLIS, MKL
// through their own calls, found at link time; otherwise the environment decides).
void setBlasThreads(int threads);

}  // namespace einrt::program
