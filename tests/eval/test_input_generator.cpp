// The deterministic input generator (einrt/input_generator.h): a golden table computed
// by the independent NumPy reimplementation (tests/eval/input_generator_numpy.py, run
// as a script it prints this table), determinism, block filling, range, and f32 as the
// rounded f64 value.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "einrt/input_generator.h"

namespace {

struct GoldenRow {
  uint64_t seed;
  const char* name;
  uint64_t key;
  double f64[4];
  double f32[4];  // the float values, written as doubles
};

// From `python3 tests/eval/input_generator_numpy.py` (also listed in docs/evaluator.md).
const GoldenRow kGolden[] = {
    {0, "A", 0x4d435475fd1fef43ULL,
     {-0x1.1c708c2e1d624p-2, 0x1.4a79b44010794p-3, 0x1.b291452011a76p-1, 0x1.b76ffb16c384fp-1},
     {-0x1.1c708cp-2, 0x1.4a79b4p-3, 0x1.b29146p-1, 0x1.b76ffcp-1}},
    {7, "X", 0xccaff4a8df3040b0ULL,
     {-0x1.ba9e7cc198ea6p-1, -0x1.c5e6d9e226bccp-1, 0x1.9f8ca84ae804ap-2, -0x1.b0527cd497ea0p-5},
     {-0x1.ba9e7cp-1, -0x1.c5e6dap-1, 0x1.9f8ca8p-2, -0x1.b0527cp-5}},
    {42, "weights_1", 0x6e9638058f69adb3ULL,
     {-0x1.897bb116617cbp-1, -0x1.ed4fbed17aca3p-1, -0x1.3deaf4d9c9578p-3, 0x1.3fae2e4634007p-1},
     {-0x1.897bb2p-1, -0x1.ed4fbep-1, -0x1.3deaf4p-3, 0x1.3fae2ep-1}},
    {18446744073709551615ULL, "Q", 0x4bbd7d3b9d67123cULL,
     {-0x1.b6b64a357caaap-2, -0x1.be667ec9fa709p-1, 0x1.dbbbd78a1c76dp-1, 0x1.9800b93b45670p-3},
     {-0x1.b6b64ap-2, -0x1.be667ep-1, 0x1.dbbbd8p-1, 0x1.9800bap-3}},
};

}  // namespace

TEST_CASE("generator golden table (from the NumPy reimplementation)") {
  for (const auto& row : kGolden) {
    CAPTURE(row.seed);
    CAPTURE(row.name);
    CHECK(einrt::inputStreamKey(row.seed, row.name) == row.key);
    double d[4];
    float f[4];
    einrt::fillInput<double>(row.seed, row.name, 4, d);
    einrt::fillInput<float>(row.seed, row.name, 4, f);
    for (int i = 0; i < 4; ++i) {
      CAPTURE(i);
      CHECK(d[i] == row.f64[i]);
      CHECK(static_cast<double>(f[i]) == row.f32[i]);
    }
  }
}

TEST_CASE("the building blocks match their published reference values") {
  // FNV-1a 64 test vectors (Fowler/Noll/Vo): "" and "a".
  CHECK(einrt::fnv1a64("") == 0xcbf29ce484222325ULL);
  CHECK(einrt::fnv1a64("a") == 0xaf63dc4c8601ec8cULL);
  CHECK(einrt::fnv1a64("foobar") == 0x85944171f73967e8ULL);
  // SplitMix64 seeded with 1234567: its first outputs are splitmix64(1234567 + k*gamma).
  CHECK(einrt::splitmix64(1234567) == 6457827717110365317ULL);
  CHECK(einrt::splitmix64(1234567 + 0x9e3779b97f4a7c15ULL) == 3203168211198807973ULL);
}

TEST_CASE("generator is deterministic and depends on seed, name and index") {
  std::vector<double> a(100), b(100), otherSeed(100), otherName(100);
  einrt::fillInput<double>(3, "T", 100, a.data());
  einrt::fillInput<double>(3, "T", 100, b.data());
  einrt::fillInput<double>(4, "T", 100, otherSeed.data());
  einrt::fillInput<double>(3, "U", 100, otherName.data());
  CHECK(a == b);
  int sameSeed = 0, sameName = 0, repeated = 0;
  for (int i = 0; i < 100; ++i) {
    sameSeed += a[i] == otherSeed[i];
    sameName += a[i] == otherName[i];
    if (i) repeated += a[i] == a[i - 1];
  }
  CHECK(sameSeed == 0);
  CHECK(sameName == 0);
  CHECK(repeated == 0);
}

TEST_CASE("values lie in [-1, 1) and spread over it") {
  const std::size_t n = 200000;
  std::vector<double> v(n);
  einrt::fillInput<double>(0, "range", n, v.data());
  double lo = 1, hi = -1, mean = 0;
  int bins[4] = {0, 0, 0, 0};
  int outside = 0;
  for (double x : v) {
    if (x < -1.0 || x >= 1.0) {
      ++outside;
      continue;
    }
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    mean += x / n;
    bins[static_cast<int>((x + 1.0) * 2.0)]++;
  }
  CHECK(outside == 0);
  CHECK(lo < -0.999);
  CHECK(hi > 0.999);
  CHECK(std::fabs(mean) < 0.01);  // 0 +- 6 standard errors (0.0013 each)
  for (int b : bins) CHECK(std::abs(b - 50000) < 1500);
}

TEST_CASE("f32 elements are the f64 elements rounded to nearest") {
  std::vector<double> d(1000);
  std::vector<float> f(1000);
  einrt::fillInput<double>(9, "w", d.size(), d.data());
  einrt::fillInput<float>(9, "w", f.size(), f.data());
  for (std::size_t i = 0; i < d.size(); ++i) CHECK(f[i] == static_cast<float>(d[i]));
}

TEST_CASE("blocks hold the global tensor's elements") {
  std::mt19937_64 rng(20261122);
  MESSAGE("random blocks, seed 20261122");
  for (int trial = 0; trial < 50; ++trial) {
    const std::size_t rank = 1 + rng() % 4;
    std::vector<int64_t> global(rank), offset(rank), block(rank);
    std::size_t total = 1;
    for (std::size_t d = 0; d < rank; ++d) {
      global[d] = 1 + static_cast<int64_t>(rng() % 6);
      block[d] = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(global[d]));
      offset[d] = static_cast<int64_t>(rng() % static_cast<uint64_t>(global[d] - block[d] + 1));
      total *= static_cast<std::size_t>(global[d]);
    }
    std::vector<float> whole(total);
    einrt::fillInput<float>(17, "B", total, whole.data());
    std::size_t count = 1;
    for (int64_t e : block) count *= static_cast<std::size_t>(e);
    std::vector<float> part(count);
    einrt::fillInputBlock<float>(17, "B", global, offset, block, part.data());
    // Walk the block independently: multi-index from the flat block position.
    for (std::size_t n = 0; n < count; ++n) {
      std::size_t rest = n, flat = 0, scale = 1;
      std::vector<int64_t> idx(rank);
      for (std::size_t d = rank; d-- > 0;) {
        idx[d] = static_cast<int64_t>(rest % static_cast<std::size_t>(block[d]));
        rest /= static_cast<std::size_t>(block[d]);
      }
      for (std::size_t d = rank; d-- > 0;) {
        flat += static_cast<std::size_t>(offset[d] + idx[d]) * scale;
        scale *= static_cast<std::size_t>(global[d]);
      }
      CAPTURE(trial);
      CAPTURE(n);
      REQUIRE(part[n] == whole[flat]);
    }
  }
  float scalar = 0, direct = 0;
  einrt::fillInputBlock<float>(1, "s", {}, {}, {}, &scalar);
  einrt::fillInput<float>(1, "s", 1, &direct);
  CHECK(scalar == direct);
}
