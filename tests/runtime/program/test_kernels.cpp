// GEMM nodes and permutations of the executor (runtime/src/program/node_kernel.h,
// host_permute.cpp) against naive loops: random contractions with transposed, batched and
// permuted layouts and alpha, run through the GEMM mapping the code generator emits;
// random permutations gathered and scattered (with accumulate). Seed printed.
#include <cstdlib>
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "einrt/program/parallel_for.h"
#include "einrt/program/permute.h"
#include "einrt/program/reference.h"
#include "runtime/src/program/node_kernel.h"

namespace {

using namespace einrt::program;

struct Scaled {
  static constexpr double kScale = 0.125;
  template <class T> static T join(T x, T y) { return T(kScale) * x * y; }
  template <class T> static T combine(T a, T b) { return a + b; }
  template <class T> static T identity() { return T(0); }
};

// A contraction over labels (b, i, j, k): X[b, i, j] (in the stored order `ox`), Y[b, j, k]
// (`oy`), Z[b, i, k] (`oz`); the GEMM spec the code generator would give for that layout.
struct Contraction {
  std::vector<int> ox, oy, oz;
  GemmSpec gemm;
};

std::vector<int> permutationTo(const std::vector<int>& stored, const std::vector<int>& canonical) {
  std::vector<int> p;
  for (int l : canonical) p.push_back(static_cast<int>(std::find(stored.begin(), stored.end(), l) - stored.begin()));
  return p;
}

Contraction randomContraction(std::mt19937& rng) {
  Contraction c;
  c.ox = {0, 1, 2};
  c.oy = {0, 2, 3};
  c.oz = {0, 1, 3};
  std::shuffle(c.ox.begin(), c.ox.end(), rng);
  std::shuffle(c.oy.begin(), c.oy.end(), rng);
  std::shuffle(c.oz.begin(), c.oz.end(), rng);
  c.gemm.batchLabels = {0};
  c.gemm.mLabels = {1};
  c.gemm.nLabels = {3};
  c.gemm.kLabels = {2};
  c.gemm.alpha = Scaled::kScale;
  // Canonical [C][M][K], [C][K][N], [C][M][N]; fitting stored orders are used directly
  // (transposes where the two inner groups are swapped), others permuted.
  auto fit = [](const std::vector<int>& stored, std::vector<int> canonical, bool& trans, std::vector<int>& perm) {
    if (stored == canonical) return;
    std::swap(canonical[1], canonical[2]);
    if (stored == canonical) {
      trans = true;
      return;
    }
    std::swap(canonical[1], canonical[2]);
    perm = permutationTo(stored, canonical);
  };
  fit(c.ox, {0, 1, 2}, c.gemm.transX, c.gemm.permX);
  fit(c.oy, {0, 2, 3}, c.gemm.transY, c.gemm.permY);
  fit(c.oz, {0, 1, 3}, c.gemm.transZ, c.gemm.permZ);
  return c;
}

}  // namespace

TEST_CASE("GEMM kernel calls (batched, transposed, permuted, alpha) equal the plain loops") {
  const unsigned seed = 11;
  std::printf("gemm seed %u\n", seed);
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 200; ++trial) {
    const Contraction c = randomContraction(rng);
    std::vector<int64_t> sizes;
    for (int l = 0; l < 4; ++l) sizes.push_back(1 + static_cast<int64_t>(rng() % 6));
    NodeTable node;
    node.sizes = sizes;
    node.parts = {1, 1, 1, 1};
    node.operandLabels = {c.ox, c.oy};
    node.outputLabels = c.oz;
    node.gemm = c.gemm;
    auto count = [&](const std::vector<int>& dims) {
      int64_t e = 1;
      for (int l : dims) e *= sizes[static_cast<std::size_t>(l)];
      return static_cast<std::size_t>(e);
    };
    std::vector<double> x(count(c.ox)), y(count(c.oy)), want(count(c.oz)), got(count(c.oz), 5.0);
    for (double& v : x) v = static_cast<double>(rng() % 17) - 8;
    for (double& v : y) v = static_cast<double>(rng() % 13) - 6;
    plainEinsum<double, Scaled>(sizes, node.operandLabels, node.outputLabels, x.data(), y.data(), want.data());
    detail::NodeKernel<double> kernel(node, {}, sizes, nullptr, 1, nullptr, nullptr);
    kernel.acquire();
    kernel.run(x.data(), y.data(), got.data(), false);
    CAPTURE(trial);
    for (std::size_t i = 0; i < want.size(); ++i) CHECK(got[i] == doctest::Approx(want[i]));
    kernel.run(x.data(), y.data(), got.data(), true);  // accumulate: twice the result
    for (std::size_t i = 0; i < want.size(); ++i) CHECK(got[i] == doctest::Approx(2 * want[i]));
  }
}

// Strided views (gemm_mapping.cpp's fitOperand): C labels b, h stored anywhere before or
// between the two groups of each tensor, read in place by the batch loops around the GEMM
// (no permutation), in every combination of transposes; against the plain loops.
TEST_CASE("GEMM kernel calls over strided views (C labels between the groups) equal the plain loops") {
  const unsigned seed = 17;
  std::printf("gemm view seed %u\n", seed);
  std::mt19937 rng(seed);
  // Labels: 0 = b, 1 = h (C), 2 = i (M), 3 = j (K), 4 = k (N).
  auto stored = [&](int first, int second, bool transposed) {
    std::vector<int> groups = transposed ? std::vector<int>{second, first} : std::vector<int>{first, second};
    // C labels before the first group or between the groups (never after the inner one).
    std::vector<int> out;
    std::vector<int> slots{static_cast<int>(rng() % 2), static_cast<int>(rng() % 2)};
    for (int pass = 0; pass < 2; ++pass) {
      std::vector<int> here;
      for (int c = 0; c < 2; ++c)
        if (slots[static_cast<std::size_t>(c)] == pass) here.push_back(c);
      if (rng() % 2) std::reverse(here.begin(), here.end());
      out.insert(out.end(), here.begin(), here.end());
      out.push_back(groups[static_cast<std::size_t>(pass)]);
    }
    return out;
  };
  for (int trial = 0; trial < 200; ++trial) {
    const bool tx = rng() % 2, ty = rng() % 2, tz = rng() % 2;
    NodeTable node;
    node.sizes = {1 + static_cast<int64_t>(rng() % 4), 1 + static_cast<int64_t>(rng() % 4), 1 + static_cast<int64_t>(rng() % 6),
                  1 + static_cast<int64_t>(rng() % 6), 1 + static_cast<int64_t>(rng() % 6)};
    node.parts = {1, 1, 1, 1, 1};
    node.operandLabels = {stored(2, 3, tx), stored(3, 4, ty)};
    node.outputLabels = stored(2, 4, tz);
    GemmSpec g;
    g.batchLabels = rng() % 2 ? std::vector<int>{0, 1} : std::vector<int>{1, 0};
    g.mLabels = {2};
    g.nLabels = {4};
    g.kLabels = {3};
    g.transX = tx, g.transY = ty, g.transZ = tz;
    g.alpha = Scaled::kScale;
    node.gemm = g;
    auto count = [&](const std::vector<int>& dims) {
      int64_t e = 1;
      for (int l : dims) e *= node.sizes[static_cast<std::size_t>(l)];
      return static_cast<std::size_t>(e);
    };
    std::vector<double> x(count(node.operandLabels[0])), y(count(node.operandLabels[1])), want(count(node.outputLabels)),
        got(want.size(), 5.0);
    for (double& v : x) v = static_cast<double>(rng() % 17) - 8;
    for (double& v : y) v = static_cast<double>(rng() % 13) - 6;
    plainEinsum<double, Scaled>(node.sizes, node.operandLabels, node.outputLabels, x.data(), y.data(), want.data());
    for (int threads : {1, 2}) {
      detail::NodeKernel<double> kernel(node, {}, node.sizes, nullptr, threads, &parallelFor, nullptr);
      kernel.acquire();
      kernel.run(x.data(), y.data(), got.data(), false);
      CAPTURE(trial);
      CAPTURE(threads);
      for (std::size_t i = 0; i < want.size(); ++i) CHECK(got[i] == doctest::Approx(want[i]));
    }
  }
}

// Large transposes stream whole tiles with non-temporal stores (destinations above 16 MiB):
// 32-byte stores where the destination's rows are 32-byte aligned, 16-byte ones where they
// are 16-byte aligned, plain stores otherwise; odd extents leave partial tiles and blocks
// at both edges.
template <class T>
struct AlignedVector {
  explicit AlignedVector(std::size_t n, T fill) : n_(n), p_(static_cast<T*>(std::aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64))) {
    std::fill(p_, p_ + n, fill);
  }
  ~AlignedVector() { std::free(p_); }
  T* data() const { return p_; }
  std::size_t size() const { return n_; }
  T& operator[](std::size_t i) { return p_[i]; }
  std::size_t n_;
  T* p_;
};

template <class T>
void checkLargeTranspose(int64_t rows, int64_t cols, std::size_t offset) {
  AlignedVector<T> src(static_cast<std::size_t>(rows * cols) + offset, T(0)), dst(src.size(), T(-1));
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<T>(i % 65521);
  hostPermute(reorder({rows, cols}, {1, 0}, false), src.data() + offset, dst.data() + offset, false);
  int64_t wrong = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      wrong += dst[offset + static_cast<std::size_t>(j * rows + i)] != src[offset + static_cast<std::size_t>(i * cols + j)];
  CAPTURE(rows);
  CAPTURE(cols);
  CHECK(wrong == 0);
  for (std::size_t i = 0; i < offset; ++i) CHECK(dst[i] == T(-1));
}

TEST_CASE("permutations: large transposes (blocked, streamed) equal naive index loops") {
  checkLargeTranspose<float>(2048, 2112, 0);   // destination rows 32-byte aligned
  checkLargeTranspose<float>(2100, 2061, 0);   // 16-byte aligned
  checkLargeTranspose<float>(1031, 4099, 1);   // unaligned: plain stores
  checkLargeTranspose<double>(1536, 1408, 0);  // 32
  checkLargeTranspose<double>(1538, 1403, 0);  // 16
  checkLargeTranspose<double>(1537, 1403, 0);  // unaligned
  checkLargeTranspose<double>(37, 60000, 1);
}

TEST_CASE("permutations: gather and scatter equal naive index loops, tiled or not") {
  const unsigned seed = 5;
  std::printf("permutation seed %u\n", seed);
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 300; ++trial) {
    // Up to 6 dimensions: runs copied in blocks of two further dimensions and walked over the rest.
    const int dims = 1 + static_cast<int>(rng() % 6);
    const unsigned bound = trial % 3 == 0 && dims <= 3 ? 70 : dims > 4 ? 6 : 9;
    std::vector<int64_t> extent;
    for (int d = 0; d < dims; ++d) extent.push_back(1 + static_cast<int64_t>(rng() % bound));
    std::vector<int> order(static_cast<std::size_t>(dims));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    int64_t n = 1;
    for (int64_t e : extent) n *= e;
    std::vector<float> stored(static_cast<std::size_t>(n));
    std::iota(stored.begin(), stored.end(), 0.0f);
    // The naive gather: new row-major index j over extents in `order`.
    std::vector<float> want(stored.size());
    std::vector<int64_t> newExtent;
    for (int o : order) newExtent.push_back(extent[static_cast<std::size_t>(o)]);
    for (int64_t j = 0; j < n; ++j) {
      std::vector<int64_t> idx(static_cast<std::size_t>(dims)), storedIdx(static_cast<std::size_t>(dims));
      int64_t rest = j;
      for (int d = dims - 1; d >= 0; --d) {
        idx[static_cast<std::size_t>(d)] = rest % newExtent[static_cast<std::size_t>(d)];
        rest /= newExtent[static_cast<std::size_t>(d)];
      }
      for (int d = 0; d < dims; ++d) storedIdx[static_cast<std::size_t>(order[static_cast<std::size_t>(d)])] = idx[static_cast<std::size_t>(d)];
      int64_t s = 0;
      for (int d = 0; d < dims; ++d) s = s * extent[static_cast<std::size_t>(d)] + storedIdx[static_cast<std::size_t>(d)];
      want[static_cast<std::size_t>(j)] = stored[static_cast<std::size_t>(s)];
    }
    std::vector<float> got(stored.size(), -1.0f);
    hostPermute(reorder(extent, order, false), stored.data(), got.data(), false);
    CAPTURE(trial);
    CHECK(got == want);
    std::vector<float> back(stored.size(), 1.0f);
    hostPermute(reorder(extent, order, true), got.data(), back.data(), true);
    for (std::size_t i = 0; i < back.size(); ++i) CHECK(back[i] == stored[i] + 1.0f);
  }
}

TEST_CASE("permutations: short runs waste their lines only where the walk does not come back to them") {
  // Worked by hand from the walk (runs along the run's next dimension, then the rest, the
  // last fastest): a line comes back while cached if some loop of the walk steps within it
  // and the lines the loops inside it touch fit 256 KiB.
  struct Case {
    std::vector<int64_t> extent;
    std::vector<int> order;
    int64_t elementBytes, runs, wasted;
  };
  const std::vector<Case> cases{
      // tw's last step, [a f c g d j] as [a c d f g j]: runs of j (16 B) along g, f; d steps
      // 16 B within the 36 lines g and f touched.
      {{40, 6, 20, 6, 20, 4}, {0, 2, 4, 1, 3, 5}, 4, 576000, 0},
      // Rows of 4 read 160 B apart, 56,250 of them (3.6 MB of lines) before the next
      // pass steps 16 B: each run reads a line of its own, 48 B of it wasted (32 with f64).
      {{56250, 10, 4}, {1, 0, 2}, 4, 562500, 562500 * 48},
      {{56250, 10, 4}, {1, 0, 2}, 8, 562500, 562500 * 32},
      // The same with 100 rows: 6.4 KB of lines between passes, kept.
      {{100, 10, 4}, {1, 0, 2}, 4, 1000, 0},
      // Runs of a line or more waste nothing; transposes are counted in tiles.
      {{100, 10, 16}, {1, 0, 2}, 4, 1000, 0},
      {{300, 200}, {1, 0}, 4, 0, 0},
  };
  for (const Case& c : cases) {
    CAPTURE(c.extent.size());
    CAPTURE(c.elementBytes);
    const PermutationWork w = permutationWork(reorder(c.extent, c.order, false), c.elementBytes);
    CHECK(w.runs == c.runs);
    CHECK(w.wastedBytes == c.wasted);
  }
}
