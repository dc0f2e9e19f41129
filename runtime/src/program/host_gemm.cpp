#include <cblas.h>

#include "einrt/program/gemm.h"

// OpenBLAS and BLIS export a call that sets their thread count; other BLAS libraries do
// not, and then the environment (OMP_NUM_THREADS, ...) decides. Weak so that linking any
// CBLAS works.
extern "C" void openblas_set_num_threads(int) __attribute__((weak));
extern "C" void bli_thread_set_num_threads(long) __attribute__((weak));

namespace einrt::program {

namespace {

CBLAS_TRANSPOSE op(bool t) { return t ? CblasTrans : CblasNoTrans; }

}  // namespace

void hostGemm(const GemmCall& g, const float* A, const float* B, float* C, float alpha, float beta) {
  for (int64_t b = 0; b < g.batch; ++b)
    cblas_sgemm(CblasRowMajor, op(g.transA), op(g.transB), int(g.m), int(g.n), int(g.k), alpha, A + b * g.strideA,
                int(g.lda), B + b * g.strideB, int(g.ldb), beta, C + b * g.strideC, int(g.ldc));
}

void hostGemm(const GemmCall& g, const double* A, const double* B, double* C, double alpha, double beta) {
  for (int64_t b = 0; b < g.batch; ++b)
    cblas_dgemm(CblasRowMajor, op(g.transA), op(g.transB), int(g.m), int(g.n), int(g.k), alpha, A + b * g.strideA,
                int(g.lda), B + b * g.strideB, int(g.ldb), beta, C + b * g.strideC, int(g.ldc));
}

void setBlasThreads(int threads) {
  if (openblas_set_num_threads) openblas_set_num_threads(threads);
  if (bli_thread_set_num_threads) bli_thread_set_num_threads(threads);
}

}  // namespace einrt::program
