#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <vector>

#include "einrt/program/gemm.h"
#include "einrt/program/permute.h"

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
// rounded once into C (of T, or kept as f32: a widening contraction).
template <class T, class TC>
void viaSgemm(const GemmCall& g, const T* A, const T* B, TC* C, float alpha, float beta) {
  std::vector<float> a, b, c;
  const std::size_t spanA = g.transA ? span(g.k, g.m, g.lda) : span(g.m, g.k, g.lda);
  const std::size_t spanB = g.transB ? span(g.n, g.k, g.ldb) : span(g.k, g.n, g.ldb);
  for (int64_t bt = 0; bt < g.batch; ++bt) {
    widen(A + bt * g.strideA, spanA, a);
    widen(B + bt * g.strideB, spanB, b);
    TC* cb = C + bt * g.strideC;
    c.assign(static_cast<std::size_t>(g.m * g.n), 0.0f);
    if (beta != 0.0f)
      for (int64_t i = 0; i < g.m; ++i)
        for (int64_t j = 0; j < g.n; ++j) c[static_cast<std::size_t>(i * g.n + j)] = static_cast<float>(cb[i * g.ldc + j]);
    cblas_sgemm(CblasRowMajor, op(g.transA), op(g.transB), int(g.m), int(g.n), int(g.k), alpha, a.data(), int(g.lda),
                b.data(), int(g.ldb), beta, c.data(), int(g.n));
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) cb[i * g.ldc + j] = TC(c[static_cast<std::size_t>(i * g.n + j)]);
  }
}

template <class T, class TC>
void lowGemm(const GemmCall& g, const T* A, const T* B, TC* C, float alpha, float beta) {
  // A batch that shares an operand (stride 0: a loop over an M or N label) goes entry by
  // entry: oneDNN's strided batch descriptors broadcast only through dimensions of one.
  if (g.batch > 1 && (g.strideA == 0 || g.strideB == 0)) {
    GemmCall one = g;
    one.batch = 1;
    for (int64_t b = 0; b < g.batch; ++b) lowGemm(one, A + b * g.strideA, B + b * g.strideB, C + b * g.strideC, alpha, beta);
    return;
  }
  const LowPrecisionGemmFn fn = lowPrecision.load();
  if (fn && fn(g, dtypeOf<T>(), dtypeOf<TC>(), A, B, C, alpha, beta)) {
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

void hostGemm(const GemmCall& g, const bf16* A, const bf16* B, float* C, float alpha, float beta) {
  lowGemm(g, A, B, C, alpha, beta);
}

void hostGemm(const GemmCall& g, const f16* A, const f16* B, float* C, float alpha, float beta) {
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

// ---- the split among threads ------------------------------------------------------------

namespace {

std::atomic<const GemmPrimitive*> primitiveRegistered{nullptr};
std::atomic<bool> ranPrimitive{false};

}  // namespace

void setGemmPrimitive(const GemmPrimitive* primitive) { primitiveRegistered = primitive; }

std::string hostGemmPath() {
  const GemmPrimitive* primitive = gemmPrimitive();
  return ranPrimitive && primitive ? std::string(primitive->name) + "+blas" : "blas";
}
const GemmPrimitive* gemmPrimitive() { return primitiveRegistered.load(); }

template <class T>
HostGemm<T>::HostGemm(const GemmCall& g, double alpha, int threads, ParallelForFn parallelFor, GemmPlanned planned)
    : HostGemm(g, alpha, parallelFor,
               scheduleGemm(g, dtypeOf<T>(), parallelFor ? threads : 1, gemmPrimitive() != nullptr, planned)) {}

template <class T>
HostGemm<T>::HostGemm(const GemmCall& g, double alpha, ParallelForFn parallelFor, const GemmSchedule& schedule)
    : call_(g), alpha_(alpha), parallelFor_(parallelFor), schedule_(schedule) {
  const GemmPrimitive* primitive = gemmPrimitive();
  if (schedule_.path != GemmPath::Primitive) return;
  if (!primitive) throw std::logic_error("einrt: a GEMM scheduled on the primitive's path, but no primitive is registered");
  const GemmSchedule& s = schedule_;
  const int64_t lastRows = g.m - (s.rowTiles - 1) * s.rowTile, lastCols = lastTileCols(s, g.n);
  for (int beta1 = 0; beta1 < 2; ++beta1)
    for (int fullRows = 0; fullRows < 2; ++fullRows)
      for (int fullCols = 0; fullCols < 2; ++fullCols) {
        const int64_t cols = fullCols ? s.colTile : lastCols, padded = paddedCols(s, cols);
        kernels_[beta1][fullRows][fullCols] =
            primitive->prepare(dtypeOf<T>(), fullRows ? s.rowTile : lastRows, padded, g.k, g.lda,
                               s.packB ? paddedCols(s, s.colTile) : g.ldb, padded != cols ? padded : g.ldc, g.transA,
                               beta1 != 0 && padded == cols);
      }
}

template <class T>
void HostGemm<T>::runItems(int64_t begin, int64_t end, const T* A, const T* B, T* C, bool accumulate) const {
  const GemmCall& g = call_;
  const GemmSchedule& s = schedule_;
  const GemmPrimitive* primitive = s.path == GemmPath::Primitive ? gemmPrimitive() : nullptr;
  const T alpha = static_cast<T>(alpha_);
  // packB: this thread's copy of the B panel of one column of tiles (k x colTile, rows
  // padded with zeros to paddedCols), or with packAll of every column's panel, one after
  // another; padCols: its scratch tile for a padded tile of C.
  std::vector<T> panel, scratch;
  const int64_t panelCols = paddedCols(s, s.colTile);
  const int64_t panelElements = g.k * panelCols;
  int64_t panelOf = -1;
  const bool columnMajor = s.packB && !s.packAll;
  for (int64_t item = begin; item < end; ++item) {
    const int64_t b = item / (s.rowTiles * s.colTiles);
    const int64_t i = columnMajor ? item % s.rowTiles : item / s.colTiles % s.rowTiles;
    const int64_t j = columnMajor ? item / s.rowTiles % s.colTiles : item % s.colTiles;
    const int64_t r0 = i * s.rowTile, c0 = j * s.colTile;
    GemmCall tile = g;
    tile.batch = 1;
    tile.m = std::min(s.rowTile, g.m - r0);
    tile.n = std::min(s.colTile, g.n - c0);
    const T* a = A + b * g.strideA + (g.transA ? r0 : r0 * g.lda);
    const T* bb = B + b * g.strideB + (g.transB ? c0 * g.ldb : c0);
    T* c = C + b * g.strideC + r0 * g.ldc + c0;
    // The primitive multiplies with alpha 1: a scaled call overwrites C and scales the
    // tile after (in cache); a scaled accumulation takes the BLAS.
    void* kernel = primitive && (alpha_ == 1.0 || !accumulate)
                       ? kernels_[accumulate ? 1 : 0][tile.m == s.rowTile ? 1 : 0][tile.n == s.colTile ? 1 : 0]
                       : nullptr;
    if (kernel && s.packB) {
      // The panel of column of tiles q: k rows of its columns, row stride panelCols (the
      // columns beyond them stay zero). A transposed B's rows (k long) become its columns;
      // another B's k rows are copied.
      auto pack = [&](int64_t q, T* to) {
        const int64_t q0 = q * s.colTile, cols = std::min(s.colTile, g.n - q0);
        Permutation t;
        t.dims = 2;
        t.extent[0] = g.transB ? cols : g.k, t.extent[1] = g.transB ? g.k : cols;
        t.srcStride[0] = g.ldb, t.srcStride[1] = 1;
        t.dstStride[0] = g.transB ? 1 : panelCols, t.dstStride[1] = g.transB ? panelCols : 1;
        t.elements = cols * g.k;
        hostPermute(t, B + b * g.strideB + (g.transB ? q0 * g.ldb : q0), to, false);
      };
      // Keyed by B's offset, not the batch entry: a batch sharing B (stride 0) packs once.
      const int64_t blockOf = b * g.strideB;
      if (s.packAll && panelOf != blockOf) {
        panel.assign(static_cast<std::size_t>(s.colTiles * panelElements), T(0));
        for (int64_t q = 0; q < s.colTiles; ++q) pack(q, panel.data() + q * panelElements);
        panelOf = blockOf;
      } else if (!s.packAll && panelOf != blockOf * s.colTiles + j) {
        panel.assign(static_cast<std::size_t>(panelElements), T(0));
        pack(j, panel.data());
        panelOf = blockOf * s.colTiles + j;
      }
      bb = panel.data() + (s.packAll ? j * panelElements : 0);
    }
    const int64_t padded = paddedCols(s, tile.n);
    if (kernel && padded != tile.n) {
      // A padded tile: computed into the scratch tile, its first tile.n columns stored.
      scratch.resize(static_cast<std::size_t>(tile.m * padded));
      primitive->run(dtypeOf<T>(), kernel, a, bb, scratch.data());
      if (!ranPrimitive.load(std::memory_order_relaxed)) ranPrimitive = true;
      for (int64_t r = 0; r < tile.m; ++r) {
        T* row = c + r * g.ldc;
        const T* from = scratch.data() + r * padded;
        if (accumulate)
          for (int64_t q = 0; q < tile.n; ++q) row[q] += alpha * from[q];
        else
          for (int64_t q = 0; q < tile.n; ++q) row[q] = alpha * from[q];
      }
    } else if (kernel) {
      primitive->run(dtypeOf<T>(), kernel, a, bb, c);
      if (!ranPrimitive.load(std::memory_order_relaxed)) ranPrimitive = true;
      if (alpha_ != 1.0)
        for (int64_t r = 0; r < tile.m; ++r)
          for (int64_t q = 0; q < tile.n; ++q) c[r * g.ldc + q] *= alpha;
    } else {
      hostGemm(tile, a, bb, c, alpha, accumulate ? T(1) : T(0));
    }
  }
}

template <class T>
void HostGemm<T>::run(const T* A, const T* B, T* C, bool accumulate) const {
  if constexpr (kIsTwoByte<T>) {
    hostGemm(call_, A, B, C, static_cast<float>(alpha_), accumulate ? 1.0f : 0.0f);
  } else {
    if (schedule_.threads <= 1 || !parallelFor_) {
      runItems(0, schedule_.items, A, B, C, accumulate);
      return;
    }
    struct Context {
      const HostGemm* self;
      const T *A, *B;
      T* C;
      bool accumulate;
    } context{this, A, B, C, accumulate};
    parallelFor_(
        schedule_.items, schedule_.threads,
        [](void* p, int64_t begin, int64_t end, int) {
          const auto* c = static_cast<const Context*>(p);
          c->self->runItems(begin, end, c->A, c->B, c->C, c->accumulate);
        },
        &context);
  }
}

template <>
void HostGemm<bf16>::runItems(int64_t, int64_t, const bf16*, const bf16*, bf16*, bool) const {}
template <>
void HostGemm<f16>::runItems(int64_t, int64_t, const f16*, const f16*, f16*, bool) const {}

template class HostGemm<float>;
template class HostGemm<double>;
template class HostGemm<bf16>;
template class HostGemm<f16>;

namespace {
std::atomic<int> threadsSet{1};
}  // namespace

int gemmThreads() { return threadsSet.load(); }

void setGemmThreads(int threads) {
  threadsSet = threads < 1 ? 1 : threads;
  // einrt splits calls among the program's threads; the BLAS runs each piece on one.
  if (openblas_set_num_threads) openblas_set_num_threads(1);
  if (bli_thread_set_num_threads) bli_thread_set_num_threads(1);
}

}  // namespace einrt::program
