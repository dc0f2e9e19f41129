// The 2-byte storage types (einrt/half.h, SPEC 8) against independent oracles: f16
// against the compiler's own _Float16 conversions (every one of the 65536 values, and a
// sweep of floats across every binade, halfway cases included), bf16 against the nearest
// of the two neighbouring bf16 values computed in double (ties to the even one); then the
// kernels that read and write them: the generic kernel (join and aggregation in f32,
// rounded once), permutations with accumulation, and the 2-byte GEMM — the f32-BLAS way
// and, where einrt was built with oneDNN, oneDNN's — against a naive f64 product.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <unistd.h>
#include <limits>
#include <random>
#include <vector>

#include "einrt/half.h"
#include "einrt/npy.h"
#include "einrt/program/elementwise.h"
#include "einrt/program/gemm.h"
#include "einrt/program/math.h"
#include "einrt/program/permute.h"
#if defined(EINRT_TEST_ONEDNN)
#include "einrt/program/dnnl_gemm.h"
#endif

using einrt::bf16;
using einrt::f16;

namespace {

float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// The nearest bf16 by exhaustive comparison with both neighbours, ties to even.
uint16_t nearestBf16(float f) {
  if (std::isnan(f)) return 0x7fc0;
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint32_t down = u & 0xffff0000u, up = down + 0x10000u;
  const double d = f, lo = floatOf(down), hi = (up & 0x7f800000u) == 0x7f800000u && (down & 0x7fffffffu) == 0x7f7f0000u
                                                   ? std::copysign(std::ldexp(1.0, 128), d)  // past the largest: infinity's place
                                                   : floatOf(up);
  const double dl = std::fabs(d - lo), dh = std::fabs(hi - d);
  if (dl < dh) return static_cast<uint16_t>(down >> 16);
  if (dh < dl) return static_cast<uint16_t>(up >> 16);
  return static_cast<uint16_t>(((down >> 16) & 1u) ? up >> 16 : down >> 16);
}

struct SumExp {
  template <class T> static T join(T x, T y) { return einrt::program::exp(x - y); }
  template <class T> static T combine(T a, T b) { return a + b; }
  template <class T> static T identity() { return T(0); }
};

}  // namespace

TEST_CASE("f16 conversions agree with _Float16 on every value and across every binade") {
  for (uint32_t b = 0; b < 65536; ++b) {
    f16 h;
    h.bits = static_cast<uint16_t>(b);
    _Float16 ref;
    std::memcpy(&ref, &h.bits, 2);
    const float got = static_cast<float>(h), want = static_cast<float>(ref);
    if (std::isnan(want)) {
      CHECK(std::isnan(got));
      continue;
    }
    REQUIRE(std::memcmp(&got, &want, 4) == 0);
    // Every f16 value survives the round trip, and so do its halfway points' neighbours.
    REQUIRE(f16(got).bits == h.bits);
  }
  std::mt19937 rng(5);
  for (int e = -30; e <= 17; ++e)
    for (int i = 0; i < 2000; ++i) {
      float f = std::ldexp(1.0f + static_cast<float>(rng() % (1u << 23)) / 8388608.0f, e);
      if (i % 3 == 0) f = std::ldexp(1.0f + static_cast<float>((rng() % 1024) * 2 + 1) / 2048.0f, e);  // halfway in f16's grid
      if (i % 2) f = -f;
      const _Float16 ref = static_cast<_Float16>(f);
      uint16_t want;
      std::memcpy(&want, &ref, 2);
      CAPTURE(f);
      REQUIRE(f16(f).bits == want);
    }
  CHECK(std::isinf(static_cast<float>(f16(65520.0f))));
  CHECK(static_cast<float>(f16(65519.0f)) == 65504.0f);
  CHECK(std::isnan(static_cast<float>(f16(std::numeric_limits<float>::quiet_NaN()))));
}

TEST_CASE("bf16 rounds to the nearest, ties to even, keeps NaN and overflows to infinity") {
  std::mt19937 rng(3);
  for (int i = 0; i < 200000; ++i) {
    uint32_t u = rng();
    if (i % 4 == 0) u = (u & 0xffff0000u) | 0x8000u;  // exactly halfway
    const float f = floatOf(u);
    CAPTURE(u);
    if (std::isnan(f)) {
      CHECK(std::isnan(static_cast<float>(bf16(f))));
      continue;
    }
    REQUIRE(bf16(f).bits == nearestBf16(f));
  }
  for (uint32_t b = 0; b < 65536; ++b) {
    bf16 h;
    h.bits = static_cast<uint16_t>(b);
    const float v = static_cast<float>(h);
    if (!std::isnan(v)) REQUIRE(bf16(v).bits == h.bits);
  }
  CHECK(std::isinf(static_cast<float>(bf16(std::numeric_limits<float>::max()))));
  CHECK(static_cast<float>(bf16(1.0f + 0x1p-8f)) == 1.0f);             // a tie goes to even (1.0)
  CHECK(static_cast<float>(bf16(1.0f + 3 * 0x1p-8f)) == 1.0f + 0x1p-6f);  // ... and up when odd
}

TEST_CASE("the generic kernel over bf16 and f16 joins and aggregates in f32 and rounds once") {
  using namespace einrt::program;
  const int64_t rows = 37, cols = 301;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-2, 2);
  std::vector<float> x(rows * cols), y(rows);
  for (float& v : x) v = static_cast<float>(bf16(u(rng)));
  for (float& v : y) v = static_cast<float>(bf16(u(rng)));
  // Z[i] = sum_j exp(X[i, j] - Y[i]): labels i (0), j (1).
  const LoopNest nest = planLoopNest({rows, cols}, {{0, 1}, {0}}, {0});
  auto run = [&](auto element) {
    using T = decltype(element);
    std::vector<T> X(x.size()), Y(y.size()), Z(rows);
    for (std::size_t k = 0; k < x.size(); ++k) X[k] = T(x[k]);
    for (std::size_t k = 0; k < y.size(); ++k) Y[k] = T(y[k]);
    for (int threads : {1, 2}) {
      elementwise<T, SumExp>(nest, X.data(), Y.data(), Z.data(), false, threads);
      for (int64_t i = 0; i < rows; ++i) {
        double want = 0;
        for (int64_t j = 0; j < cols; ++j) want += std::exp(static_cast<double>(static_cast<float>(X[i * cols + j])) - static_cast<float>(Y[i]));
        // One rounding of the type after f32 arithmetic (a few f32 ulps per term).
        const double got = static_cast<float>(Z[i]);
        CHECK(std::fabs(got - want) <= std::fabs(want) * (einrt::dtypeEpsilon(einrt::dtypeOf<T>()) + cols * 4e-7));
        CHECK(Z[i].bits == T(static_cast<float>(got)).bits);
      }
    }
  };
  run(bf16{});
  run(f16{});
}

TEST_CASE("2-byte permutations move bits and accumulate in f32") {
  using namespace einrt::program;
  const std::vector<int64_t> extent{33, 70};
  const Permutation p = reorder(extent, {1, 0}, false);
  std::vector<bf16> src(33 * 70), dst(33 * 70);
  for (std::size_t k = 0; k < src.size(); ++k) src[k] = bf16(static_cast<float>(k % 97) * 0.25f - 7.0f);
  hostPermute(p, src.data(), dst.data(), false);
  for (int64_t i = 0; i < 33; ++i)
    for (int64_t j = 0; j < 70; ++j) REQUIRE(dst[j * 33 + i].bits == src[i * 70 + j].bits);
  hostPermute(p, src.data(), dst.data(), true);
  for (int64_t i = 0; i < 33; ++i)
    for (int64_t j = 0; j < 70; ++j) {
      const float v = static_cast<float>(src[i * 70 + j]);
      REQUIRE(dst[j * 33 + i].bits == bf16(v + v).bits);
    }
}

TEST_CASE("2-byte GEMMs, into their type or widening into f32: the f32-BLAS way and oneDNN's against a naive f64 product") {
  using namespace einrt::program;
  // The f32 way first, whatever an earlier test registered (the convolution table
  // registers oneDNN's, which takes bf16 where the processor has avx512_bf16).
  setLowPrecisionGemm(nullptr, "");
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-1, 1);
  // `result`: C's type, T or f32 (a widening contraction: no rounding to T).
  auto check = [&](auto element, auto result, const char* expectedPath) {
    using T = decltype(element);
    using TC = decltype(result);
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        GemmCall g;
        g.transA = ta;
        g.transB = tb;
        g.m = 19, g.n = 23, g.k = 67, g.batch = 3;
        g.lda = ta ? g.m : g.k;
        g.ldb = tb ? g.k : g.n;
        g.ldc = g.n;
        g.strideA = g.m * g.k, g.strideB = g.k * g.n, g.strideC = g.m * g.n;
        std::vector<T> A(g.batch * g.strideA), B(g.batch * g.strideB);
        std::vector<TC> C(g.batch * g.strideC);
        for (T& v : A) v = T(u(rng));
        for (T& v : B) v = T(u(rng));
        for (TC& v : C) v = TC(u(rng));
        const std::vector<TC> C0 = C;
        const float alpha = 0.5f, beta = 1.0f;
        hostGemm(g, A.data(), B.data(), C.data(), alpha, beta);
        for (int64_t b = 0; b < g.batch; ++b)
          for (int64_t i = 0; i < g.m; ++i)
            for (int64_t j = 0; j < g.n; ++j) {
              double want = 0, mag = 0;
              for (int64_t k = 0; k < g.k; ++k) {
                const double a = static_cast<float>(A[b * g.strideA + (ta ? k * g.lda + i : i * g.lda + k)]);
                const double c = static_cast<float>(B[b * g.strideB + (tb ? j * g.ldb + k : k * g.ldb + j)]);
                want += a * c;
                mag += std::fabs(a * c);
              }
              const double c0 = static_cast<float>(C0[b * g.strideC + i * g.ldc + j]);
              want = alpha * want + beta * c0;
              const double got = static_cast<float>(C[b * g.strideC + i * g.ldc + j]);
              // f32 accumulation, then one rounding to C's type.
              REQUIRE(std::fabs(got - want) <=
                      (std::fabs(want) + 1e-30) * einrt::dtypeEpsilon(einrt::dtypeOf<TC>()) + (alpha * mag + std::fabs(c0)) * 1e-5);
            }
      }
    CHECK(lowPrecisionGemmPath().find(expectedPath) != std::string::npos);
  };
  check(bf16{}, bf16{}, "f32-blas");
  check(f16{}, f16{}, "f32-blas");
  check(bf16{}, float{}, "f32-blas");
  check(f16{}, float{}, "f32-blas");
#if defined(EINRT_TEST_ONEDNN)
  useOneDnnGemm();
  // oneDNN multiplies bf16 on processors with AVX-512's core subset (natively where they
  // have avx512_bf16 or AMX); elsewhere it declines and the call goes the f32 way, which
  // the report names (SPEC 8).
  const bool avx512Core = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  check(bf16{}, bf16{}, avx512Core ? "onednn" : "f32-blas");
  check(bf16{}, float{}, avx512Core ? "onednn" : "f32-blas");
#endif
}

TEST_CASE(".npy: f16 as <f2 exactly, bf16 written as float32 and read back rounded with a note") {
  const std::vector<int64_t> shape{3, 2};
  const std::vector<f16> h{f16(1.5f), f16(-2.0f), f16(65504.0f), f16(0x1p-24f), f16(0.1f), f16(-0.0f)};
  const std::string text = einrt::encodeNpy(shape, h.data());
  CHECK(text.find("'descr': '<f2'") != std::string::npos);
  const std::vector<bf16> b{bf16(1.0f), bf16(3.140625f), bf16(-1e30f), bf16(0.0f), bf16(7.0f), bf16(-0.5f)};
  const std::string wide = einrt::encodeNpy(shape, b.data());
  CHECK(wide.find("'descr': '<f4'") != std::string::npos);
  const auto dir = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/einrt_half_npy_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  einrt::writeNpy(dir + "/h.npy", shape, h.data());
  einrt::writeNpy(dir + "/b.npy", shape, b.data());
  std::string note = "unset";
  const auto h2 = einrt::readNpy<f16>(dir + "/h.npy", shape, &note);
  CHECK(note == "unset");  // same type: no conversion, no note
  for (std::size_t i = 0; i < h.size(); ++i) CHECK(h2[i].bits == h[i].bits);
  const auto b2 = einrt::readNpy<bf16>(dir + "/b.npy", shape, &note);
  CHECK(note == dir + "/b.npy: float32 data converted to bfloat16");  // bf16 values: exact
  for (std::size_t i = 0; i < b.size(); ++i) CHECK(b2[i].bits == b[i].bits);
  const std::vector<float> f{1.0f, 1.00390625f, 3.0f, 0.1f, 2.0f, 5.0f};
  einrt::writeNpy(dir + "/f.npy", shape, f.data());
  const auto b3 = einrt::readNpy<bf16>(dir + "/f.npy", shape, &note);
  CHECK(note == dir + "/f.npy: float32 data rounded to bfloat16 (2 of 6 values changed)");
  CHECK(static_cast<float>(b3[1]) == 1.0f);
  std::filesystem::remove_all(dir);
}
