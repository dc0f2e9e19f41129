// A row-major (strided-batched) GEMM as a contraction's kernel call runs it:
//   C_b = alpha * op(A_b) * op(B_b) + beta * C_b   for b < batch,
// with element strides between batches. On the host every batch is one cblas call (any
// CBLAS: the emitted project links whatever BLAS CMake's FindBLAS finds); device memory
// goes through the device backend (device.h: cuBLAS in einrt::cuda).
#pragma once

#include <cstdint>
#include <string>

#include "einrt/half.h"

namespace einrt::program {

struct GemmCall {
  bool transA = false, transB = false;
  int64_t m = 1, n = 1, k = 1, lda = 1, ldb = 1, ldc = 1;
  int64_t batch = 1, strideA = 0, strideB = 0, strideC = 0;
};

void hostGemm(const GemmCall& g, const float* A, const float* B, float* C, float alpha, float beta);
void hostGemm(const GemmCall& g, const double* A, const double* B, double* C, double alpha, double beta);
// 2-byte storage, f32 accumulation, the result rounded once: through the program's
// low-precision GEMM (lowPrecisionGemm(), oneDNN where the program was built with it),
// else converted to f32 and multiplied by the BLAS.
void hostGemm(const GemmCall& g, const bf16* A, const bf16* B, bf16* C, float alpha, float beta);
void hostGemm(const GemmCall& g, const f16* A, const f16* B, f16* C, float alpha, float beta);

// A GEMM over 2-byte storage that a program may provide (the emitted program registers
// oneDNN's, einrt/program/dnnl_gemm.h, when its build found oneDNN); it returns false for
// a call it does not take, which then goes the f32 way.
using LowPrecisionGemmFn = bool (*)(const GemmCall& g, DType dtype, const void* A, const void* B, void* C, float alpha,
                                    float beta);
void setLowPrecisionGemm(LowPrecisionGemmFn fn, const char* name);
// What ran the 2-byte GEMMs so far: "" (none ran), or the provider's name, "f32-blas" (the
// fallback), or both joined by '+'; for the program's report.
std::string lowPrecisionGemmPath();

// BLAS threads per rank (where the BLAS lets a program set them: OpenBLAS, BLIS, MKL
// through their own calls, found at link time; otherwise the environment decides).
void setBlasThreads(int threads);
// The count last set (1 before any), for GEMM providers that size their own threads.
int blasThreads();

}  // namespace einrt::program
