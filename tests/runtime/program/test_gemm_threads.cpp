// GEMM calls split among threads (gemm.h: scheduleGemm, HostGemm) and permutations split
// among threads (permute.h) against naive loops: a table of shapes covering both paths
// (the BLAS on bands of rows or columns, the primitive's tiles with full and edge tiles),
// transposes, batches, alpha and accumulation, on 1 and 2 threads, with and without the
// LIBXSMM primitive (where the test is built with einrt::xsmm). The schedule rule itself
// is checked on worked cases.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "einrt/program/gemm.h"
#include "einrt/program/parallel_for.h"
#include "einrt/program/permute.h"
#if defined(EINRT_TEST_LIBXSMM)
#include "einrt/program/xsmm_gemm.h"
#endif

namespace {

using namespace einrt::program;

GemmCall call(int64_t batch, int64_t m, int64_t n, int64_t k, bool ta, bool tb) {
  GemmCall g;
  g.batch = batch, g.m = m, g.n = n, g.k = k, g.transA = ta, g.transB = tb;
  g.lda = ta ? m : k;
  g.ldb = tb ? k : n;
  g.ldc = n;
  g.strideA = m * k, g.strideB = k * n, g.strideC = m * n;
  return g;
}

template <class T>
void checkCall(const GemmCall& g, double alpha, int threads, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> A(static_cast<std::size_t>(g.batch * g.strideA)), B(static_cast<std::size_t>(g.batch * g.strideB)),
      C(static_cast<std::size_t>(g.batch * g.strideC));
  for (T& v : A) v = static_cast<T>(u(rng));
  for (T& v : B) v = static_cast<T>(u(rng));
  std::vector<double> want(C.size());
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        double s = 0;
        for (int64_t k = 0; k < g.k; ++k)
          s += static_cast<double>(A[static_cast<std::size_t>(b * g.strideA + (g.transA ? k * g.lda + i : i * g.lda + k))]) *
               static_cast<double>(B[static_cast<std::size_t>(b * g.strideB + (g.transB ? j * g.ldb + k : k * g.ldb + j))]);
        want[static_cast<std::size_t>(b * g.strideC + i * g.ldc + j)] = alpha * s;
      }
  const HostGemm<T> gemm(g, alpha, threads, &parallelFor);
  const double tolerance = sizeof(T) == 4 ? 1e-4 : 1e-12;
  for (int pass = 0; pass < 2; ++pass) {  // overwrite, then accumulate (twice the result)
    gemm.run(A.data(), B.data(), C.data(), pass == 1);
    double worst = 0;
    for (std::size_t e = 0; e < C.size(); ++e)
      worst = std::max(worst, std::fabs(static_cast<double>(C[e]) - (pass + 1) * want[e]) / (1 + std::fabs(want[e])));
    CAPTURE(pass);
    CHECK(worst < tolerance * std::sqrt(static_cast<double>(g.k)));
  }
}

void checkShapes(std::mt19937& rng) {
  struct Shape {
    int64_t batch, m, n, k;
  };
  // Tiny (one thread), primitive-sized with edge tiles, wide (BLAS bands of columns),
  // tall (bands of rows), batches fewer and more than threads, long reductions (BLAS); on
  // the primitive B's panels packed all at once (67x200x48, 40x3000x20) and, past
  // kPackAllElements, column of tiles by column of tiles (100x1100x64).
  const Shape shapes[] = {{1, 3, 5, 7},     {1, 130, 70, 33},   {2, 67, 200, 48},  {1, 40, 3000, 20},
                          {3, 500, 40, 90}, {1, 96, 96, 600},   {5, 64, 64, 64},   {1, 1000, 130, 16},
                          {1, 70, 5000, 80}, {2, 129, 129, 129}, {1, 100, 1100, 64}};
  for (const Shape& s : shapes)
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (int threads : {1, 2})
          for (double alpha : {1.0, 0.125}) {
            const GemmCall g = call(s.batch, s.m, s.n, s.k, ta, tb);
            CAPTURE(s.batch);
            CAPTURE(s.m);
            CAPTURE(s.n);
            CAPTURE(s.k);
            CAPTURE(ta);
            CAPTURE(tb);
            CAPTURE(threads);
            CAPTURE(alpha);
            checkCall<float>(g, alpha, threads, rng);
            checkCall<double>(g, alpha, threads, rng);
          }
}

}  // namespace

TEST_CASE("scheduleGemm: the path and the items of worked calls") {
  struct Case {
    GemmCall g;
    int threads;
    bool primitive;
    GemmPath path;
    int64_t rowTile, colTile, items;
    int threadsUsed;
  };
  const Case cases[] = {
      // A large square call: the BLAS, one band of rows per thread.
      {call(1, 2048, 2048, 2048, false, false), 2, true, GemmPath::Blas, 1024, 2048, 2, 2},
      // Wider than tall: bands of columns.
      {call(1, 512, 2500, 196, false, false), 2, true, GemmPath::Blas, 512, 1250, 2, 2},
      // Batches at least as many as threads: whole entries.
      {call(32, 256, 256, 256, false, false), 2, false, GemmPath::Blas, 256, 256, 32, 2},
      // Tall and skinny: the primitive's 64-row tiles, all 64 columns in one tile.
      {call(1, 114688, 64, 48, false, false), 2, true, GemmPath::Primitive, 64, 64, 1792, 2},
      // Up to 128 columns stay one tile; edges count as items. A reduction longer than
      // 192 over them goes to the BLAS.
      {call(1, 1000, 100, 16, false, false), 2, true, GemmPath::Primitive, 64, 100, 16, 2},
      {call(1, 6400, 50, 200, false, false), 2, true, GemmPath::Blas, 3200, 50, 2, 2},
      // Short reductions over wide operands: 64 x 64 tiles (B's panels copied).
      {call(1, 921600, 384, 32, false, false), 2, true, GemmPath::Primitive, 64, 64, 86400, 2},
      // A transposed B is packed, panel by panel; a long reduction over wide operands goes
      // to the BLAS.
      {call(1, 1000, 100, 16, false, true), 2, true, GemmPath::Primitive, 64, 100, 16, 2},
      {call(32, 256, 256, 64, false, true), 2, true, GemmPath::Primitive, 64, 64, 512, 2},
      {call(1, 480, 25600, 700, false, false), 2, true, GemmPath::Blas, 480, 12800, 2, 2},
      // Without a primitive, the BLAS; a tiny call runs on one thread.
      {call(1, 114688, 64, 48, false, false), 2, false, GemmPath::Blas, 57344, 64, 2, 2},
      {call(1, 8, 8, 8, false, false), 2, true, GemmPath::Primitive, 8, 8, 1, 1},
  };
  for (const Case& c : cases) {
    const GemmSchedule s = scheduleGemm(c.g, einrt::DType::F32, c.threads, c.primitive);
    CAPTURE(c.g.m);
    CAPTURE(c.g.n);
    CAPTURE(c.g.k);
    CHECK(s.path == c.path);
    CHECK(s.rowTile == c.rowTile);
    CHECK(s.colTile == c.colTile);
    CHECK(s.items == c.items);
    CHECK(s.threads == c.threadsUsed);
    // Panels are copied where B is transposed, its rows are wider than a tile, or its
    // tiles are padded.
    CHECK(s.packB == (s.path == GemmPath::Primitive && (c.g.transB || c.g.ldb != s.colTile || s.padCols)));
  }
  // B's panels packed all at once where they fit kPackAllElements: tt's last step (32 x 384),
  // not 64 x 1100 (18 panels of 64 x 64).
  CHECK(scheduleGemm(call(1, 921600, 384, 32, false, false), einrt::DType::F32, 2, true).packAll);
  CHECK(!scheduleGemm(call(1, 100, 1100, 64, false, false), einrt::DType::F32, 2, true).packAll);
  CHECK(scheduleGemm(call(1, 100, 1100, 64, false, false), einrt::DType::F32, 2, true).packB);
  // Tiles padded to whole vectors of 8: where the tile's columns (100; 350 = 5 x 64 + 30:
  // the last tile's) are not a multiple of 8, and only on the primitive's path.
  const std::pair<GemmCall, bool> padded[] = {{call(1, 1000, 100, 16, false, false), true},
                                              {call(1, 1000, 350, 16, false, false), true},
                                              {call(1, 3000, 30, 64, false, true), true},
                                              {call(1, 1000, 384, 16, false, false), false},
                                              {call(1, 114688, 64, 48, false, false), false},
                                              {call(1, 6400, 50, 200, false, false), false}};
  for (const auto& [g, pad] : padded) {
    const GemmSchedule s = scheduleGemm(g, einrt::DType::F32, 2, true);
    CAPTURE(g.n);
    CHECK(s.padCols == pad);
    CHECK(paddedCols(s, 30) == (pad ? 32 : 30));
  }
  // 2-byte types run whole calls (oneDNN or the f32 fallback), on the provider's threads.
  CHECK(scheduleGemm(call(1, 114688, 64, 48, false, false), einrt::DType::BF16, 2, true).path == GemmPath::Blas);
}

TEST_CASE("GEMM calls split among threads equal naive loops, through the BLAS and the primitive") {
  const unsigned seed = 29;
  std::printf("threaded gemm seed %u\n", seed);
  std::mt19937 rng(seed);
  setGemmPrimitive(nullptr);
  checkShapes(rng);
#if defined(EINRT_TEST_LIBXSMM)
  useLibxsmmGemm();
  REQUIRE(gemmPrimitive() != nullptr);
  CHECK(HostGemm<float>(call(1, 130, 70, 33, false, false), 1.0, 2, &parallelFor).schedule().path == GemmPath::Primitive);
  checkShapes(rng);
  setGemmPrimitive(nullptr);
#endif
}

TEST_CASE("permutations split among threads equal the single-threaded ones") {
  const unsigned seed = 31;
  std::printf("threaded permutation seed %u\n", seed);
  std::mt19937 rng(seed);
  // Large enough (256 KiB and more) to be split: transposes with edge blocks, copies of rows.
  // The last like tw's intermediate: runs of 4 copied in blocks of two further dimensions.
  const std::vector<std::vector<int64_t>> extents{{700, 530}, {3, 300, 257}, {90, 40, 33}, {4, 5, 60, 70},
                                                  {12, 6, 20, 6, 20, 4}};
  for (const auto& extent : extents)
    for (int trial = 0; trial < 4; ++trial) {
      std::vector<int> order(extent.size());
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), rng);
      if (extent.size() == 6 && trial == 0) order = {0, 2, 4, 1, 3, 5};  // tw's: [a f c g d j] read as [a c d f g j]
      int64_t n = 1;
      for (int64_t e : extent) n *= e;
      std::vector<float> src(static_cast<std::size_t>(n));
      std::iota(src.begin(), src.end(), 0.0f);
      for (bool scatter : {false, true})
        for (bool accumulate : {false, true}) {
          const Permutation p = reorder(extent, order, scatter);
          std::vector<float> one(src.size(), 2.0f), two(src.size(), 2.0f);
          hostPermute(p, src.data(), one.data(), accumulate);
          hostPermute(p, src.data(), two.data(), accumulate, 2, &parallelFor);
          CAPTURE(trial);
          CAPTURE(scatter);
          CAPTURE(accumulate);
          CHECK(one == two);
        }
    }
}
