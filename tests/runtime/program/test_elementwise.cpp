// The generic kernel (einrt/program/elementwise.h over loop_nest.h) against the plain
// reference loops (reference.h, point by point) on random nodes: 1-5 labels of sizes 1-7,
// operands over random label subsets in random orders (repeated labels, broadcasts),
// outputs over random subsets, joins and aggregations of every kind, accumulate on and
// off, one and two threads, in the planned loop order and with the aggregated loops
// outermost (a pool's order). Also the vectorizable exp against std::exp, and erf, sin, cos
// and where against their C definitions. Seed printed.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "einrt/program/elementwise.h"
#include "einrt/program/math.h"
#include "einrt/program/reference.h"
#include "einrt/program/streaming_stores.h"

namespace {

using namespace einrt::program;

struct SumMul {
  template <class T> static T join(T x, T y) { return x * y; }
  template <class T> static T combine(T a, T b) { return a + b; }
  template <class T> static T identity() { return T(0); }
};
struct MaxExp {
  template <class T> static T join(T x, T y) { return einrt::program::exp<T>(x - y); }
  template <class T> static T combine(T a, T b) { return einrt::program::max<T>(a, b); }
  template <class T> static T identity() { return -einrt::program::infinity<T>(); }
};
struct ProdAdd {
  template <class T> static T join(T x, T y) { return T(1) + T(0.1) * (x + y); }
  template <class T> static T combine(T a, T b) { return a * b; }
  template <class T> static T identity() { return T(1); }
};
struct MinUnary {
  template <class T> static T join(T x, T) { return einrt::program::sigmoid<T>(x); }
  template <class T> static T combine(T a, T b) { return einrt::program::min<T>(a, b); }
  template <class T> static T identity() { return einrt::program::infinity<T>(); }
};

struct RandomNode {
  std::vector<int64_t> sizes;
  std::vector<std::vector<int>> operands;
  std::vector<int> output;
};

RandomNode randomNode(std::mt19937& rng, bool unary) {
  RandomNode n;
  const int labels = 1 + static_cast<int>(rng() % 5);
  for (int l = 0; l < labels; ++l) n.sizes.push_back(1 + static_cast<int64_t>(rng() % 7));
  auto subset = [&](bool allowEmpty) {
    std::vector<int> all(labels);
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), rng);
    const std::size_t k = (allowEmpty ? 0 : 1) + rng() % (allowEmpty ? labels + 1 : labels);
    return std::vector<int>(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k));
  };
  for (int k = 0; k < (unary ? 1 : 2); ++k) n.operands.push_back(subset(false));
  n.output = subset(true);
  return n;
}

template <class T, class Ops>
void checkAgainstPlain(std::mt19937& rng, const RandomNode& n, int threads) {
  auto elements = [&](const std::vector<int>& dims) {
    int64_t e = 1;
    for (int l : dims) e *= n.sizes[static_cast<std::size_t>(l)];
    return e;
  };
  std::uniform_real_distribution<double> value(-1, 1);
  std::vector<T> x(static_cast<std::size_t>(elements(n.operands[0]))), y;
  for (T& v : x) v = static_cast<T>(value(rng));
  if (n.operands.size() > 1) {
    y.resize(static_cast<std::size_t>(elements(n.operands[1])));
    for (T& v : y) v = static_cast<T>(value(rng));
  }
  const std::size_t outputs = static_cast<std::size_t>(elements(n.output));
  std::vector<T> want(outputs), got(outputs, T(7)), twice(outputs);
  const T* Y = y.empty() ? nullptr : y.data();
  plainEinsum<T, Ops>(n.sizes, n.operands, n.output, x.data(), Y, want.data());
  const LoopNest nest = planLoopNest(n.sizes, n.operands, n.output);
  elementwise<T, Ops>(nest, x.data(), Y, got.data(), false, threads);
  twice = got;
  elementwise<T, Ops>(nest, x.data(), Y, twice.data(), true, threads);  // combine a second time
  // The same node with its aggregated loops outermost (a pool's order: model::callLoopNest).
  const bool hasY = n.operands.size() > 1;
  const LoopNest outside = planLoopNest(n.sizes, labelStrides(n.operands[0], n.sizes),
                                        hasY ? labelStrides(n.operands[1], n.sizes) : std::vector<int64_t>(n.sizes.size(), 0),
                                        labelStrides(n.output, n.sizes), hasY, true);
  if (outside.depth > 1 && outside.aggregates && std::any_of(outside.strideZ, outside.strideZ + outside.depth, [](int64_t z) { return z != 0; }))
    CHECK(outside.strideZ[outside.depth - 1] != 0);  // an output loop inside
  std::vector<T> reordered(outputs, T(7));
  elementwise<T, Ops>(outside, x.data(), Y, reordered.data(), false, threads);
  const double tol = sizeof(T) == 4 ? 1e-5 : 1e-12;
  for (std::size_t i = 0; i < outputs; ++i) {
    CHECK(static_cast<double>(got[i]) == doctest::Approx(static_cast<double>(want[i])).epsilon(tol));
    CHECK(static_cast<double>(reordered[i]) == doctest::Approx(static_cast<double>(want[i])).epsilon(tol));
    CHECK(static_cast<double>(twice[i]) ==
          doctest::Approx(static_cast<double>(Ops::template combine<T>(want[i], want[i]))).epsilon(tol));
  }
}

}  // namespace

TEST_CASE("the elementwise kernel equals the plain loops on random nodes") {
  const unsigned seed = 2026;
  std::printf("elementwise seed %u\n", seed);
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 400; ++trial) {
    CAPTURE(trial);
    const int threads = 1 + trial % 2;
    const RandomNode binary = randomNode(rng, false), unary = randomNode(rng, true);
    switch (trial % 4) {
      case 0: checkAgainstPlain<float, SumMul>(rng, binary, threads); break;
      case 1: checkAgainstPlain<double, MaxExp>(rng, binary, threads); break;
      case 2: checkAgainstPlain<double, ProdAdd>(rng, binary, threads); break;
      default: checkAgainstPlain<float, MinUnary>(rng, unary, threads); break;
    }
  }
}

namespace {
struct ExpTimes {
  template <class T> static T join(T x, T y) { return einrt::program::exp<T>(x) * y; }
  template <class T> static T combine(T a, T b) { return a + b; }
  template <class T> static T identity() { return T(0); }
};

// Z[i, j] = exp(X[i, j]) * W[j] over rows of `row` elements: an output over streamBytes()
// (16 MiB), so its rows are streamed; rows after the first start off the store alignment.
template <class T>
void checkStreamed(int64_t row, int threads) {
  CAPTURE(sizeof(T));
  CAPTURE(threads);
  const std::vector<int64_t> sizes = {3, row};
  const std::vector<std::vector<int>> operands = {{0, 1}, {1}};
  const std::size_t n = static_cast<std::size_t>(3 * row);
  REQUIRE(static_cast<int64_t>(n * sizeof(T)) > streamBytes());
  std::vector<T> x(n), w(static_cast<std::size_t>(row)), want(n), got(n, T(7));
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<T>(static_cast<double>(i % 1000) / 250.0 - 2.0);
  for (std::size_t j = 0; j < w.size(); ++j) w[j] = static_cast<T>(0.5 + static_cast<double>(j % 7) / 8.0);
  plainEinsum<T, ExpTimes>(sizes, operands, {0, 1}, x.data(), w.data(), want.data());
  const LoopNest nest = planLoopNest(sizes, operands, {0, 1});
  elementwise<T, ExpTimes, false>(nest, x.data(), w.data(), got.data(), false, threads);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += !(static_cast<double>(got[i]) == static_cast<double>(want[i]));
  CHECK(wrong == 0);
}
}  // namespace

TEST_CASE("the elementwise kernel streams outputs over streamBytes(), every element stored") {
  for (int threads : {1, 2}) {
    checkStreamed<float>(1400003, threads);
    checkStreamed<double>(700003, threads);
    checkStreamed<einrt::bf16>(2800003, threads);
  }
}

TEST_CASE("loop nests: the inner loop walks unit strides, contiguous loops merge") {
  // Z[i, k] = sum_j X[i, j] (row sums over j: a reduction inner loop over j)
  LoopNest n = planLoopNest({4, 8}, {{0, 1}}, {0});
  CHECK(n.depth == 2);
  CHECK(n.strideZ[1] == 0);
  CHECK(n.strideX[1] == 1);
  // Column sums Z[j] = sum_i X[i, j]: the inner loop runs along j in X and Z.
  n = planLoopNest({4, 8}, {{0, 1}}, {1});
  CHECK(n.strideX[1] == 1);
  CHECK(n.strideZ[1] == 1);
  // An elementwise op over [a, b, c] is one loop of a*b*c.
  n = planLoopNest({3, 4, 5}, {{0, 1, 2}, {0, 1, 2}}, {0, 1, 2});
  CHECK(n.depth == 1);
  CHECK(n.extent[0] == 60);
  CHECK(!n.aggregates);
}

// The float exp's error in units of the last place of the correctly rounded result.
static double expUlps(float f) {
  const double want = std::exp(static_cast<double>(f));
  const float rounded = static_cast<float>(want);
  const double ulp = static_cast<double>(std::nextafter(rounded, INFINITY)) - rounded;
  return std::fabs(static_cast<double>(einrt::program::exp(f)) - want) / ulp;
}

TEST_CASE("exp: within 1 ulp of exp in double wherever the result is a normal float") {
  // Every 4099th bit pattern of the positive and negative floats (about a million values,
  // all exponents), then the edges: the last finite results and the smallest normal ones.
  double worst = 0;
  float worstAt = 0;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 4099) {
    float f;
    const uint32_t b = static_cast<uint32_t>(bits);
    std::memcpy(&f, &b, sizeof f);
    const double want = std::exp(static_cast<double>(f));
    if (!(want >= 1.1754944e-38 && want <= 3.4028234e38)) continue;
    const double e = expUlps(f);
    if (!(e <= worst)) worst = e, worstAt = f;
  }
  for (float edge : {88.7228f, -87.3365f, 0.0f, 0.34657359f, -0.34657359f}) {
    float f = edge;
    for (int i = 0; i < 64; ++i, f = std::nextafter(f, 0.0f)) {
      const double want = std::exp(static_cast<double>(f));
      if (want >= 1.1754944e-38 && want <= 3.4028234e38 && !(expUlps(f) <= worst)) worst = expUlps(f), worstAt = f;
    }
  }
  INFO("worst at x = " << worstAt);
  CHECK(worst <= 1.0);
}

TEST_CASE("exp: NaN and infinities as IEEE says; double within a few ulp") {
  for (double v = -100; v < 100; v += 0.001) {
    const double wd = std::exp(v);
    CHECK(std::fabs(einrt::program::exp(v) - wd) <= 4e-16 * wd);
  }
  CHECK(std::isnan(einrt::program::exp(NAN)));
  CHECK(einrt::program::exp(INFINITY) == INFINITY);
  CHECK(einrt::program::exp(-INFINITY) == 0.0f);
  CHECK(einrt::program::exp(1e4) == INFINITY);
  CHECK(einrt::program::exp(88.7228394f) == INFINITY);  // the first float above ln(FLT_MAX)
  CHECK(einrt::program::exp(88.7228317f) == doctest::Approx(3.40280e38).epsilon(1e-5));  // the last below
  CHECK(einrt::program::exp(-87.3366f) == 0.0f);         // below the smallest normal result: flushed
  CHECK(std::isnan(einrt::program::exp(-NAN)));
  CHECK(einrt::program::exp(88.72f) == doctest::Approx(std::exp(static_cast<double>(88.72f))).epsilon(1e-6));
  CHECK(einrt::program::exp(-87.33f) == doctest::Approx(std::exp(static_cast<double>(-87.33f))).epsilon(1e-6));
}

TEST_CASE("exp: a vectorized loop gives the scalar results, special values included") {
  // The float exp computes garbage for NaN and out-of-range x and replaces it by selects
  // at the end (math.h); in the programs' loops those selects run as vector blends.
  std::vector<float> x = {NAN, -NAN, INFINITY, -INFINITY, 1e30f, -1e30f, 3e9f, -3e9f, 88.7228394f, 88.7228317f,
                          88.72283f, -87.3366f, -87.3365f, -103.97f, -150.0f, 0.0f, -0.0f, 1e-30f, 0.34657359f};
  for (uint32_t bits : {0x7f800001u, 0xffc00003u, 0x7fffffffu}) {  // NaNs whose payload reaches t's low bits
    float f;
    std::memcpy(&f, &bits, sizeof f);
    x.push_back(f);
  }
  for (float v = -100.0f; v < 100.0f; v += 0.173f) x.push_back(v);
  std::vector<float> vectorized(x.size()), scalar(x.size());
#pragma omp simd
  for (size_t i = 0; i < x.size(); ++i) vectorized[i] = einrt::program::exp(x[i]);
  for (size_t i = 0; i < x.size(); ++i) {
    volatile float one = x[i];  // keeps this loop scalar
    scalar[i] = einrt::program::exp(static_cast<float>(one));
  }
  for (size_t i = 0; i < x.size(); ++i) {
    INFO("x = " << x[i]);
    if (std::isnan(scalar[i])) {
      CHECK(std::isnan(vectorized[i]));
    } else {
      CHECK(vectorized[i] == scalar[i]);
    }
  }
  CHECK(einrt::program::exp(3e9f) == INFINITY);
  CHECK(einrt::program::exp(-3e9f) == 0.0f);
  CHECK(std::isnan(einrt::program::exp(std::nanf("3"))));
}

TEST_CASE("erf, sin and cos are the C library's; where follows C's truth, NaN condition included") {
  for (double v : {-3.0, -0.5, 0.0, 0.25, 1.0, 4.0, 4095.5}) {
    CHECK(einrt::program::erf(v) == std::erf(v));
    CHECK(einrt::program::erf(static_cast<float>(v)) == std::erf(static_cast<float>(v)));
    CHECK(einrt::program::sin(v) == std::sin(v));
    CHECK(einrt::program::cos(static_cast<float>(v)) == std::cos(static_cast<float>(v)));
  }
  CHECK(einrt::program::erf(-INFINITY) == -1.0f);
  CHECK(einrt::program::where(1.0f, 2.0f, 3.0f) == 2.0f);
  CHECK(einrt::program::where(-0.5, 2.0, 3.0) == 2.0);
  CHECK(einrt::program::where(0.0f, 2.0f, 3.0f) == 3.0f);
  CHECK(einrt::program::where(-0.0, 2.0, 3.0) == 3.0);
  CHECK(einrt::program::where(NAN, 2.0f, 3.0f) == 2.0f);
  CHECK(einrt::program::where(0.0f, 2.0f, -einrt::program::infinity<float>()) == -INFINITY);
}

TEST_CASE("the comparisons give 1 or 0 as C compares, a NaN comparing false") {
  const double values[] = {-INFINITY, -1.5, -0.0, 0.0, 1e-45, 2.0, INFINITY, NAN};
  for (double a : values)
    for (double b : values) {
      CAPTURE(a);
      CAPTURE(b);
      CHECK(einrt::program::lt(a, b) == (a < b ? 1.0 : 0.0));
      CHECK(einrt::program::le(static_cast<float>(a), static_cast<float>(b)) == (static_cast<float>(a) <= static_cast<float>(b) ? 1.0f : 0.0f));
      CHECK(einrt::program::gt(a, b) == (a > b ? 1.0 : 0.0));
      CHECK(einrt::program::ge(a, b) == (a >= b ? 1.0 : 0.0));
      CHECK(einrt::program::eq(static_cast<float>(a), static_cast<float>(b)) == (static_cast<float>(a) == static_cast<float>(b) ? 1.0f : 0.0f));
    }
  CHECK(einrt::program::eq(-0.0, 0.0) == 1.0);
  CHECK(einrt::program::lt(static_cast<double>(NAN), 1.0) == 0.0);
  CHECK(einrt::program::ge(static_cast<double>(NAN), static_cast<double>(NAN)) == 0.0);
}
