#include "calibrate_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <einrt/half.h>
#include <einrt/program/elementwise.h>
#include <einrt/model/fused_tiles.h>
#include <einrt/program/gemm.h>
#include <einrt/program/math.h>
#include <einrt/program/permute.h>
#include <einrt/program/streaming_stores.h>

#include "calibrate_timing.h"

namespace einrt::calibrate {

namespace {

using program::GemmCall;

std::string number(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

// ---- GEMM: FLOP/s of one call at every (m, n, k) of the grid, m slowest -----------------
// Through HostGemm on one thread, as a rank of a program runs it, on one path: the BLAS
// (2-byte types: the low-precision GEMM or the f32 fallback), or the GEMM primitive's tiles
// (f32, f64, where one is registered). One grid per path, so that the model prices a call
// on the path scheduleGemm sends it to without mixing the two near the boundary.

// Sizes beyond `squareTop` (where the BLAS reaches its large-matrix rate) are for tall and
// wide calls, whose operands outgrow the caches: tw's 16000x40x144 and 240x9600x24 run at
// 0.5-0.7 of the rate of the same calls clamped to 2048 (bench/RESULTS.md, "Tall calls").
// Such a point is measured where its call is short at the clamped point's rate and its
// operands fit kTallElements; elsewhere (large in two or three dimensions) it takes the
// clamped point's rate, as the model did before the grid grew. The 2-byte grids take the
// clamped rates throughout: measuring their tall points as well would take the calibration
// past a minute at p = 2 (their two grids alone take 30 s of it here).
constexpr double kTallSeconds = 0.03;
constexpr int64_t kTallElements = int64_t{16384} * 512;

// `first`: the same grid from a first pass, or empty. A second pass measures the points
// the first measured (its decisions on tall points are the first's) and keeps, per point,
// the faster of the two: on a shared machine a stretch of other tenants' work slowed a
// whole grid by 1.5x in one calibration of several (bench/RESULTS.md, "Tall calls").
// `transA`: A stored column by column (lda = m), as backward passes and some contraction
// steps read it; `transB`: B stored row by row of its columns (ldb = k), as contraction
// steps whose summed labels trail both operands read it.
template <class T>
std::vector<double> gemmGrid(const std::vector<int64_t>& sizes, int64_t squareTop, bool quick, program::GemmPath path,
                             const std::vector<double>& first = {}, bool transA = false, bool transB = false) {
  const std::size_t s = sizes.size();
  const std::size_t top = static_cast<std::size_t>(std::find(sizes.begin(), sizes.end(), squareTop) - sizes.begin());
  const std::size_t elements = static_cast<std::size_t>(std::max(squareTop * squareTop, s > top + 1 ? kTallElements : 0));
  std::vector<T> a(elements, T(0.5f)), b(a), c(a);
  std::vector<double> rates;
  for (std::size_t i = 0; i < s; ++i)
    for (std::size_t j = 0; j < s; ++j)
      for (std::size_t l = 0; l < s; ++l) {
        const int64_t m = sizes[i], n = sizes[j], k = sizes[l];
        const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
        if (i > top || j > top || l > top) {  // the clamped point precedes this one (m slowest)
          const std::size_t at = (std::min(i, top) * s + std::min(j, top)) * s + std::min(l, top);
          const double clamped = first.empty() ? rates[at] : first[at];
          if (sizeof(T) < 4 || flops / clamped > kTallSeconds || std::max({m * k, k * n, m * n}) > kTallElements) {
            rates.push_back(rates[at]);
            continue;
          }
        }
        GemmCall g;
        g.m = m, g.n = n, g.k = k, g.lda = transA ? m : k, g.ldb = transB ? k : n, g.ldc = n, g.transA = transA,
        g.transB = transB;
        g.strideA = m * k, g.strideB = k * n, g.strideC = m * n;
        // Enough calls per timing (0.2-1 ms at the rates seen), each pass timing them once
        // after a warm-up (which brings a tall call's operands to where a program's
        // repeated calls find them), except big shapes: their time is long and steady, and
        // they are timed once, in the first pass, without one.
        // (2-byte types, at 0.05-0.8 GFLOP/s on small shapes without a native GEMM, a
        // quarter as many: 6-25 ms a timing.)
        const double target = (quick ? 1e7 : 2e7) / (sizeof(T) < 4 ? 4 : 1);
        const int calls = static_cast<int>(std::clamp(std::ceil(target / flops), 1.0, 4096.0));
        const bool big = flops * calls > 4e9;
        if (big && !first.empty()) {
          rates.push_back(first[rates.size()]);
          continue;
        }
        const program::HostGemm<T> gemm(g, 1.0, nullptr, program::splitGemm(g, path, 1));
        const double seconds = medianSeconds(1, [&] {
          for (int r = 0; r < calls; ++r) gemm.run(a.data(), b.data(), c.data(), false);
        }, big ? 0 : 1);
        const double rate = flops * calls / std::max(seconds, 1e-9);
        rates.push_back(first.empty() ? rate : std::max(rate, first[rates.size()]));
      }
  return rates;
}

// ---- GEMM: what a result beyond the grid's costs ----------------------------------------
// The grid's points reuse one C, at most kTallElements of it, which the caches keep between
// calls; a program's call whose C is larger writes it to memory. Past the grid (a C of 4x
// its largest) calls slow by about a fixed time per element of C on top of their in-cache
// rate: m x 384 x 32 on LIBXSMM's tiles ran at 135.8 GFLOP/s with m = 16384, 70 at 65536
// and 67 at 921600 (tt's last step), 25000 x 1000 x 40 (getd.2) at 72 (bench/RESULTS.md,
// "Results beyond the cache"). The extra seconds per element of C: a call of m x 256 x 32
// with C of 4 x `gridElements` less the same call with an m an eighth of that (in cache),
// each per element of its C. Zero where the caches hold the larger call as well.
template <class T>
double gemmSpillSeconds(int64_t gridElements, program::GemmPath path) {
  constexpr int64_t n = 256, k = 32;
  const int64_t bigRows = 4 * gridElements / n, smallRows = std::max<int64_t>(1, bigRows / 8);
  std::vector<T> a(static_cast<std::size_t>(bigRows * k), T(0.5f)), b(static_cast<std::size_t>(k * n), T(0.25f)),
      c(static_cast<std::size_t>(bigRows * n));
  auto perElement = [&](int64_t m, int calls, int reps) {
    GemmCall g;
    g.m = m, g.n = n, g.k = k, g.lda = k, g.ldb = n, g.ldc = n;
    g.strideA = m * k, g.strideB = k * n, g.strideC = m * n;
    const program::HostGemm<T> gemm(g, 1.0, nullptr, program::splitGemm(g, path, 1));
    const double seconds = medianSeconds(reps, [&] {
      for (int r = 0; r < calls; ++r) gemm.run(a.data(), b.data(), c.data(), false);
    });
    return seconds / calls / static_cast<double>(m * n);
  };
  const double small = perElement(smallRows, 4, 5), big = perElement(bigRows, 1, 3);
  return std::max(0.0, big - small);
}

std::string list(const std::vector<double>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + number(v[i]);
  return s + "]";
}

// ---- The elementwise kernel with each scalar function -----------------------------------

// A node functor (as codegen emits them) joining with `F`, aggregating by sum.
#define EINRT_CALIBRATE_OPS(NAME, EXPR)                                        \
  struct NAME {                                                               \
    template <class T> static T join(T x, T y) { (void)x; (void)y; return EXPR; } \
    template <class T> static T combine(T a, T b) { return a + b; }           \
    template <class T> static T identity() { return T(0); }                   \
  };
EINRT_CALIBRATE_OPS(CopyOps, x)
EINRT_CALIBRATE_OPS(AddOps, x + y)
EINRT_CALIBRATE_OPS(DivOps, x / y)
#undef EINRT_CALIBRATE_OPS

// Each scalar function of einrt's list (einrt/model/scalar_functions.h) as a join, named
// ExpOps, LogOps, ...: unary functions of x, binary ones of x and y, where(x, y, x).
template <std::size_t Arity, class T, class F>
T applyArity(F f, T x, T y) {
  if constexpr (Arity == 1) return f(x);
  else if constexpr (Arity == 2) return f(x, y);
  else return f(x, y, x);
}
#define EINRT_CALIBRATE_FUNCTION_OPS(E, name, arity)                                                           \
  struct E##Ops {                                                                                              \
    template <class T> static T join(T x, T y) {                                                               \
      (void)y;                                                                                                 \
      return applyArity<arity>([](auto... a) { return program::name<T>(a...); }, x, y);                      \
    }                                                                                                          \
    template <class T> static T combine(T a, T b) { return a + b; }                                            \
    template <class T> static T identity() { return T(0); }                                                    \
  };
EINRT_SCALAR_FUNCTIONS(EINRT_CALIBRATE_FUNCTION_OPS)
#undef EINRT_CALIBRATE_FUNCTION_OPS
// Reductions by max and min (NaN-propagating, as the emitted functors aggregate).
struct AggMaxOps {
  template <class T> static T join(T x, T) { return x; }
  template <class T> static T combine(T a, T b) { return program::max<T>(a, b); }
  template <class T> static T identity() { return -program::infinity<T>(); }
};
struct AggMinOps {
  template <class T> static T join(T x, T) { return x; }
  template <class T> static T combine(T a, T b) { return program::min<T>(a, b); }
  template <class T> static T identity() { return program::infinity<T>(); }
};

template <class T>
struct Streams {
  int64_t n;
  std::vector<T> x, y, z;
  explicit Streams(int64_t elements) : n(elements), x(static_cast<std::size_t>(n)), y(x.size()), z(x.size()) {
    // In every function's domain (log, sqrt, pow need positive arguments).
    for (std::size_t i = 0; i < x.size(); ++i) {
      x[i] = T(0.5f + static_cast<float>(i % 1000) / 1000.0f);
      y[i] = T(1.5f - static_cast<float>(i % 777) / 1000.0f);
    }
  }
};

// Seconds per point of the elementwise kernel over all n elements (z = join(x[, y])),
// called `repeat` times in a row (small n: the data stays in cache).
template <class T, class Ops>
double pointSeconds(Streams<T>& s, bool binary, int reps, int repeat) {
  const program::LoopNest nest = binary ? program::planLoopNest({s.n}, {{0}, {0}}, {0}) : program::planLoopNest({s.n}, {{0}}, {0});
  return medianSeconds(reps, [&] {
    for (int r = 0; r < repeat; ++r)
      program::elementwise<T, Ops, false>(nest, s.x.data(), binary ? s.y.data() : nullptr, s.z.data(), false, 1);
  }) / (static_cast<double>(s.n) * repeat);
}

// Seconds per point of the elementwise kernel's inner loop over contiguous operands (a
// unary join reads y as a broadcast zero: stride 0), the loop elementwise() picks for the
// one-dimensional nest pointSeconds runs, called directly: a scalar function's cost is what
// this loop adds per point, and instantiating only it (not the nine stride shapes the
// dispatch compiles per functor) builds this file in 42 s of CPU instead of 190 (of the
// project's 910 s of compilation before).
template <class T, class Ops>
double innerPointSeconds(Streams<T>& s, bool binary, int reps, int repeat) {
  using namespace program::elementwise_detail;
  static const T zero = T(0);
  return medianSeconds(reps, [&] {
    for (int r = 0; r < repeat; ++r) {
      if (binary) innerOutput<T, Ops, Unit, Unit>(s.n, s.x.data(), 1, s.y.data(), 1, s.z.data(), 1, false, false);
      else innerOutput<T, Ops, Unit, Zero>(s.n, s.x.data(), 1, &zero, 0, s.z.data(), 1, false, false);
    }
  }) / (static_cast<double>(s.n) * repeat);
}

// The elementwise kernel out of cache — its bandwidth (a copy: bytes read and written per
// second) and its reduction's (a sum over rows of 256 contiguous elements: bytes read per
// second) — and in cache, where it is bounded by its arithmetic: seconds per point of a
// copy (`point`), of the reduction (`reduce_point`; `agg_max`, `agg_min`: what those
// aggregations add to it), of starting each inner run of the
// loop nest (`run`), and what each scalar function and a division add to them (over the copy, or over x + y for two-argument functions). A call
// takes the longer of its bytes over the bandwidth and its points times their cost.
template <class T>
std::string elementwiseModel(bool quick, int reps) {
  // "In cache" is the size of a fused group's tile (einrt/model/fused_tiles.h): x, y and z
  // together about kTileBytes, in the second-level cache as the members' tiles are.
  // Out of cache: an output of streamBytes() (the largest einrt writes with plain stores),
  // and (not --quick) one of twice that, which einrt streams (streaming_stores.h).
  const int64_t plainElements = program::streamBytes() / static_cast<int64_t>(sizeof(T));
  Streams<T> big(quick ? (int64_t(1) << 20) : plainElements),
      small(std::max<int64_t>(4096, model::kTileBytes / (3 * static_cast<int64_t>(sizeof(T))) / 4096 * 4096));
  const double n = static_cast<double>(big.n);
  const int repeat = quick ? 16 : 64;
  const double copy = pointSeconds<T, CopyOps>(big, false, reps, 1);
  const program::LoopNest rows = program::planLoopNest({big.n / 256, 256}, {{0, 1}}, {0});
  const double reduce = medianSeconds(reps, [&] {
    program::elementwise<T, CopyOps, true>(rows, big.x.data(), nullptr, big.z.data(), false, 1);
  });
  const program::LoopNest smallRows = program::planLoopNest({small.n / 256, 256}, {{0, 1}}, {0});
  auto reducePointSeconds = [&](auto ops) {
    using Ops = decltype(ops);
    return medianSeconds(reps, [&] {
      for (int r = 0; r < repeat; ++r) program::elementwise<T, Ops, true>(smallRows, small.x.data(), nullptr, small.z.data(), false, 1);
    }) / (static_cast<double>(small.n) * repeat);
  };
  const double reducePoint = reducePointSeconds(CopyOps{});
  const double aggMax = std::max(0.0, reducePointSeconds(AggMaxOps{}) - reducePoint);
  const double aggMin = std::max(0.0, reducePointSeconds(AggMinOps{}) - reducePoint);
  const double point = pointSeconds<T, CopyOps>(small, false, reps, repeat), add = pointSeconds<T, AddOps>(small, true, reps, repeat);
  // An inner run's own cost: x + y over rows of 16 (y repeated for every row, so the rows
  // cannot merge into one run) against one run of the same points.
  const program::LoopNest shortRows = program::planLoopNest({small.n / 16, 16}, {16, 1}, {0, 1}, {16, 1}, true);
  const double shortRun = medianSeconds(reps, [&] {
    for (int r = 0; r < repeat; ++r) program::elementwise<T, AddOps, false>(shortRows, small.x.data(), small.y.data(), small.z.data(), false, 1);
  }) / repeat;
  const double run = std::max(0.0, (shortRun - add * static_cast<double>(small.n)) / static_cast<double>(small.n / 16));
  std::string streamed;
  if (!quick) {
    Streams<T> huge(2 * plainElements);
    streamed = ", stream_bandwidth: " + number(2.0 * sizeof(T) / pointSeconds<T, CopyOps>(huge, false, reps, 1));
  }
  std::string out = "{bandwidth: " + number(2.0 * sizeof(T) / copy) + streamed + ", reduce_bandwidth: " + number(n * sizeof(T) / reduce) +
                    ", point: " + number(point) + ", reduce_point: " + number(reducePoint) + ", agg_max: " + number(aggMax) + ", agg_min: " + number(aggMin) +
                    ", run: " + number(run);
  // What each function adds: its inner loop against the same loop's copy (x + y for two
  // arguments).
  const double innerCopy = innerPointSeconds<T, CopyOps>(small, false, reps, repeat),
               innerAdd = innerPointSeconds<T, AddOps>(small, true, reps, repeat);
  auto cost = [&](const char* name, double seconds, bool binary) {
    out += std::string(", ") + name + ": " + number(std::max(0.0, seconds - (binary ? innerAdd : innerCopy)));
  };
  // Every function of einrt's list, in its order (the kernel model reads them by name).
#define EINRT_CALIBRATE_FUNCTION(E, name, arity) \
  cost(#name, innerPointSeconds<T, E##Ops>(small, (arity) > 1, reps, repeat), (arity) > 1);
  EINRT_SCALAR_FUNCTIONS(EINRT_CALIBRATE_FUNCTION)
#undef EINRT_CALIBRATE_FUNCTION
  cost("div", innerPointSeconds<T, DivOps>(small, true, reps, repeat), true);
  return out + "}";
}

// ---- Permutations: einrt's tiled copy ----------------------------------------------------

struct Timed {
  double seconds, count;  // and the tiles (a transpose) or rows (a copy) einrt walked
  double bytes;           // read and written, with the lines short runs waste
};

Timed permuteSeconds(const std::vector<int64_t>& extent, const std::vector<int>& order, int reps) {
  const program::Permutation p = program::reorder(extent, order, false);
  const program::PermutationWork w = program::permutationWork(p, sizeof(float));
  std::vector<float> src(static_cast<std::size_t>(p.elements), 1.0f), dst(src.size());
  return {medianSeconds(reps, [&] { program::hostPermute(p, src.data(), dst.data(), false); }),
          static_cast<double>(w.transposes ? w.tiles : w.runs),
          2.0 * static_cast<double>(p.elements) * sizeof(float) + static_cast<double>(w.wastedBytes)};
}

// time = bytes / bandwidth + count * each (a tile or a run), fitted to two permutations of
// the same elements: one of few, one of many tiles (runs; those of the short rows waste
// their lines: they read more bytes). Returns the bandwidth and `each`.
std::pair<double, double> fitPermutation(Timed few, Timed many) {
  const double det = few.bytes * many.count - many.bytes * few.count;
  double perByte = (few.seconds * many.count - many.seconds * few.count) / det;
  double each = (few.bytes * many.seconds - many.bytes * few.seconds) / det;
  if (each < 0) each = 0, perByte = few.seconds / few.bytes;
  return {1.0 / std::max(perByte, 1e-15), each};
}

}  // namespace

std::string measureKernelModel(bool quick) {
  const int reps = quick ? 3 : 7;
  const std::vector<int64_t> sizes =
      quick ? std::vector<int64_t>{1, 16, 128, 1024} : std::vector<int64_t>{1, 8, 32, 128, 512, 1024, 2048, 16384};
  const int64_t squareTop = quick ? 1024 : 2048;
  std::string sizeList = "[";
  for (std::size_t i = 0; i < sizes.size(); ++i) sizeList += (i ? ", " : "") + std::to_string(sizes[i]);
  sizeList += "]";
  // Everything measured first: the GEMM paths a program takes are chosen process-wide.
  using program::GemmPath;
  // Two passes over the GEMM grids (one with --quick), a first of every grid and then a
  // second: each point's two timings half a minute apart.
  const program::GemmPrimitive* primitive = program::gemmPrimitive();
  std::vector<double> grid[6];
  for (int pass = 0; pass < (quick ? 1 : 2); ++pass) {
    grid[0] = gemmGrid<float>(sizes, squareTop, quick, GemmPath::Blas, grid[0]);
    grid[1] = gemmGrid<double>(sizes, squareTop, quick, GemmPath::Blas, grid[1]);
    grid[2] = gemmGrid<einrt::bf16>(sizes, squareTop, quick, GemmPath::Blas, grid[2]);
    grid[3] = gemmGrid<einrt::f16>(sizes, squareTop, quick, GemmPath::Blas, grid[3]);
    if (primitive) {
      grid[4] = gemmGrid<float>(sizes, squareTop, quick, GemmPath::Primitive, grid[4]);
      grid[5] = gemmGrid<double>(sizes, squareTop, quick, GemmPath::Primitive, grid[5]);
    }
  }
  const std::string f32 = list(grid[0]), f64 = list(grid[1]), bf16 = list(grid[2]), f16 = list(grid[3]);
  // A transposed A, on a coarser grid (three of its sizes, one pass): the model scales the
  // main grid by the ratio of the two at these points. How a path copes with A^T varies
  // by shape: ffnn's dW1 (1024x2048x1024) ran at 191 GFLOP/s on the BLAS and 95 on the
  // tiles, syn/2's last step (42x8192x28) at 88 and 106 (bench/RESULTS.md, "A transposed A").
  const std::vector<int64_t> atSizes = quick ? std::vector<int64_t>{16, 1024} : std::vector<int64_t>{8, 128, 2048};
  std::vector<double> atGrid[4];
  atGrid[0] = gemmGrid<float>(atSizes, atSizes.back(), quick, GemmPath::Blas, {}, true);
  atGrid[1] = gemmGrid<double>(atSizes, atSizes.back(), quick, GemmPath::Blas, {}, true);
  if (primitive) {
    atGrid[2] = gemmGrid<float>(atSizes, atSizes.back(), quick, GemmPath::Primitive, {}, true);
    atGrid[3] = gemmGrid<double>(atSizes, atSizes.back(), quick, GemmPath::Primitive, {}, true);
  }
  // A transposed B on the BLAS, on the same coarse grid (the primitive's tiles never read
  // one: HostGemm packs it first, which the model prices as a permutation). OpenBLAS runs
  // trn / 2's 50x50x25 at 82 GFLOP/s with B^T and 100 without, 25x50x25 at 62 and 91
  // (bench/RESULTS.md, "Microsecond nodes").
  std::vector<double> btGrid[2];
  btGrid[0] = gemmGrid<float>(atSizes, atSizes.back(), quick, GemmPath::Blas, {}, false, true);
  btGrid[1] = gemmGrid<double>(atSizes, atSizes.back(), quick, GemmPath::Blas, {}, false, true);
  // The largest C the grid measured (its tall points' bound, or its square top).
  const int64_t gridElements = sizes.back() > squareTop ? kTallElements : squareTop * squareTop;
  std::vector<double> spillF32{gemmSpillSeconds<float>(gridElements, GemmPath::Blas)},
      spillF64{gemmSpillSeconds<double>(gridElements, GemmPath::Blas)};
  if (primitive) {
    spillF32.push_back(gemmSpillSeconds<float>(gridElements, GemmPath::Primitive));
    spillF64.push_back(gemmSpillSeconds<double>(gridElements, GemmPath::Primitive));
  }
  const std::string primitiveF32 = primitive ? list(grid[4]) : "", primitiveF64 = primitive ? list(grid[5]) : "";
  // Per size of block (in cache, out of cache): transposes, a square one (whole blocks)
  // against one of 8-wide blocks, and copies of rows, long rows against rows of 4 elements.
  // Sides are not powers of two, whose strides alias in the caches and are not typical.
  std::vector<int64_t> permuteSizes;
  std::vector<double> transpose, tile, rows, run;
  for (const int64_t side : quick ? std::vector<int64_t>{500, 1000} : std::vector<int64_t>{1000, 3000}) {
    const int64_t elements = side * side;
    const auto [tb, te] = fitPermutation(permuteSeconds({side, side}, {1, 0}, reps), permuteSeconds({elements / 8, 8}, {1, 0}, reps));
    const auto [rb, re] = fitPermutation(permuteSeconds({side / 10, 10, side}, {1, 0, 2}, reps),
                                         permuteSeconds({elements / 40, 10, 4}, {1, 0, 2}, reps));
    permuteSizes.push_back(elements);
    transpose.push_back(tb), tile.push_back(te), rows.push_back(rb), run.push_back(re);
  }
  auto ints = [](const std::vector<int64_t>& v) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
    return out + "]";
  };
  const std::string primitiveLines =
      primitive ? "  gemm_primitive: " + std::string(primitive->name) + "   # small and skinny GEMM tiles\n"
                  "  primitive_flops_f32: " + primitiveF32 + "   # the same calls on the primitive's tiles\n"
                  "  primitive_flops_f64: " + primitiveF64 + "\n"
                : "";
  return primitiveLines + "  gemm_sizes: " + sizeList + "   # m, n and k of the grid\n"
         "  gemm_flops_f32: " + f32 + "   # FLOP/s of one GEMM call on the BLAS per (m, n, k), m slowest, k fastest\n"
         "  gemm_flops_f64: " + f64 + "\n"
         "  gemm_flops_bf16: " + bf16 + "\n"
         "  gemm_at_sizes: " + ints(atSizes) + "   # m, n and k of the grids of calls with A (or B) transposed\n"
         "  gemm_at_flops_f32: " + list(atGrid[0]) + "   # FLOP/s of such calls on the BLAS, m slowest\n"
         "  gemm_at_flops_f64: " + list(atGrid[1]) + "\n"
         "  gemm_bt_flops_f32: " + list(btGrid[0]) + "   # FLOP/s of calls with B transposed on the BLAS, same sizes\n"
         "  gemm_bt_flops_f64: " + list(btGrid[1]) + "\n" +
         (primitive ? "  primitive_at_flops_f32: " + list(atGrid[2]) + "   # and on the primitive's tiles\n"
                      "  primitive_at_flops_f64: " + list(atGrid[3]) + "\n"
                    : std::string()) +
         "  gemm_spill_from: " + std::to_string(gridElements) + "   # elements of C past which a call's result leaves the cache\n"
         "  gemm_spill_f32: " + list(spillF32) + "   # s per element of such a C on top of the grid's rate (BLAS, primitive)\n"
         "  gemm_spill_f64: " + list(spillF64) + "\n"
         "  gemm_flops_f16: " + f16 + "\n"
         "  permute_sizes: " + ints(permuteSizes) + "   # elements of the permuted blocks below\n"
         "  permute_bandwidth: " + list(transpose) + "   # bytes read + written per s, a transpose\n"
         "  permute_tile: " + list(tile) + "   # s per transposed block (up to 64 x 64)\n"
         "  permute_rows_bandwidth: " + list(rows) + "   # bytes read + written per s, a copy of rows\n"
         "  permute_run: " + list(run) + "   # s per row copied\n"
         "  elementwise_f32: " + elementwiseModel<float>(quick, reps) + "\n"
         "  elementwise_f64: " + elementwiseModel<double>(quick, reps) + "\n"
         "  elementwise_bf16: " + elementwiseModel<einrt::bf16>(quick, reps) + "\n"
         "  elementwise_f16: " + elementwiseModel<einrt::f16>(quick, reps) + "\n";
}

}  // namespace einrt::calibrate
