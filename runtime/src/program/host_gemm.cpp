#include <cblas.h>

#include <atomic>
#include <vector>

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

namespace {

std::atomic<LowPrecisionGemmFn> lowPrecision{nullptr};
const char* lowPrecisionName = "";
std::atomic<bool> ranProvider{false}, ranFallback{false};

// Elements a row-major operand of `rows` x `cols` (as stored) spans with leading dimension ld.
std::size_t span(int64_t rows, int64_t cols, int64_t ld) {
  return rows == 0 || cols == 0 ? 0 : static_cast<std::size_t>((rows - 1) * ld + cols);
}

template <class T>
void widen(const T* from, std::size_t n, std::vector<float>& to) {
  to.resize(n);
  for (std::size_t i = 0; i < n; ++i) to[i] = static_cast<float>(from[i]);
}

// The fallback: each batch's operands converted to f32, one sgemm, the m x n result
// rounded once into C.
template <class T>
void viaSgemm(const GemmCall& g, const T* A, const T* B, T* C, float alpha, float beta) {
  std::vector<float> a, b, c;
  const std::size_t spanA = g.transA ? span(g.k, g.m, g.lda) : span(g.m, g.k, g.lda);
  const std::size_t spanB = g.transB ? span(g.n, g.k, g.ldb) : span(g.k, g.n, g.ldb);
  for (int64_t bt = 0; bt < g.batch; ++bt) {
    widen(A + bt * g.strideA, spanA, a);
    widen(B + bt * g.strideB, spanB, b);
    T* cb = C + bt * g.strideC;
    c.assign(static_cast<std::size_t>(g.m * g.n), 0.0f);
    if (beta != 0.0f)
      for (int64_t i = 0; i < g.m; ++i)
        for (int64_t j = 0; j < g.n; ++j) c[static_cast<std::size_t>(i * g.n + j)] = static_cast<float>(cb[i * g.ldc + j]);
    cblas_sgemm(CblasRowMajor, op(g.transA), op(g.transB), int(g.m), int(g.n), int(g.k), alpha, a.data(), int(g.lda),
                b.data(), int(g.ldb), beta, c.data(), int(g.n));
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) cb[i * g.ldc + j] = T(c[static_cast<std::size_t>(i * g.n + j)]);
  }
}

template <class T>
void lowGemm(const GemmCall& g, const T* A, const T* B, T* C, float alpha, float beta) {
  const LowPrecisionGemmFn fn = lowPrecision.load();
  if (fn && fn(g, dtypeOf<T>(), A, B, C, alpha, beta)) {
    ranProvider = true;
    return;
  }
  ranFallback = true;
  viaSgemm(g, A, B, C, alpha, beta);
}

}  // namespace

void hostGemm(const GemmCall& g, const bf16* A, const bf16* B, bf16* C, float alpha, float beta) {
  lowGemm(g, A, B, C, alpha, beta);
}

void hostGemm(const GemmCall& g, const f16* A, const f16* B, f16* C, float alpha, float beta) {
  lowGemm(g, A, B, C, alpha, beta);
}

void setLowPrecisionGemm(LowPrecisionGemmFn fn, const char* name) {
  lowPrecisionName = name ? name : "";
  lowPrecision = fn;
}

std::string lowPrecisionGemmPath() {
  std::string path;
  if (ranProvider) path = lowPrecisionName;
  if (ranFallback) path += std::string(path.empty() ? "" : "+") + "f32-blas";
  return path;
}

namespace {
std::atomic<int> threadsSet{1};
}  // namespace

int blasThreads() { return threadsSet.load(); }

void setBlasThreads(int threads) {
  threadsSet = threads < 1 ? 1 : threads;
  if (openblas_set_num_threads) openblas_set_num_threads(threads);
  if (bli_thread_set_num_threads) bli_thread_set_num_threads(threads);
}

}  // namespace einrt::program
