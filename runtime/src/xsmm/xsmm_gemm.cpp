#include "einrt/program/xsmm_gemm.h"

#include <libxsmm.h>

#include "einrt/program/gemm.h"

namespace einrt::program {

namespace {

// Row-major C (rows x cols) = op(A) (rows x k) * B (k x cols) is, read column-major,
// C' (cols x rows) = B' (cols x k) * op(A)' (k x rows): LIBXSMM's m = cols, n = rows, its
// A is our B (leading dimension ldb, never transposed: LIBXSMM 1.17 cannot transpose its
// A, which scheduleGemm knows) and its B our A, transposed exactly when ours is not
// stored row by row.
void* prepare(DType t, int64_t rows, int64_t cols, int64_t k, int64_t lda, int64_t ldb, int64_t ldc, bool transA,
              bool beta1) {
  const libxsmm_blasint m = cols, n = rows, kk = k, la = ldb, lb = lda, lc = ldc;
  const int flags = (transA ? LIBXSMM_GEMM_FLAG_TRANS_B : 0) | (beta1 ? 0 : LIBXSMM_GEMM_FLAG_BETA_0);
  const int prefetch = LIBXSMM_GEMM_PREFETCH_NONE;
  if (t == DType::F32) {
    const float alpha = 1, beta = beta1 ? 1 : 0;
    return reinterpret_cast<void*>(libxsmm_smmdispatch(m, n, kk, &la, &lb, &lc, &alpha, &beta, &flags, &prefetch));
  }
  if (t == DType::F64) {
    const double alpha = 1, beta = beta1 ? 1 : 0;
    return reinterpret_cast<void*>(libxsmm_dmmdispatch(m, n, kk, &la, &lb, &lc, &alpha, &beta, &flags, &prefetch));
  }
  return nullptr;
}

void run(DType t, void* kernel, const void* A, const void* B, void* C) {
  if (t == DType::F32)
    reinterpret_cast<libxsmm_smmfunction>(kernel)(static_cast<const float*>(B), static_cast<const float*>(A),
                                                  static_cast<float*>(C));
  else
    reinterpret_cast<libxsmm_dmmfunction>(kernel)(static_cast<const double*>(B), static_cast<const double*>(A),
                                                  static_cast<double*>(C));
}

const GemmPrimitive kLibxsmm{"libxsmm", &prepare, &run};

}  // namespace

void useLibxsmmGemm() {
  libxsmm_init();
  setGemmPrimitive(&kLibxsmm);
}

}  // namespace einrt::program
