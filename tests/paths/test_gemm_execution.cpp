// GEMM mapping (planner/paths/gemm_mapping.h) checked against a brute-force einsum: for
// every case the test executes the mapping the way the emitted program does (permute the
// operands where the mapping says so, run the (batched) row-major GEMM with the transpose
// flags, permute the result back) with naive loops written here, and compares with the
// einsum evaluated label by label. The table also pins which cases must avoid any
// permutation (the paper's point) and which are not GEMMs at all.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "planner/paths/gemm_mapping.h"
#include "planner/paths/internal_layouts.h"
#include "planner/paths/split_nary.h"
#include "planner/graph/load.h"

using namespace eindecomp;

namespace {

Labels split(const std::string& s) {
  Labels out;
  for (char c : s) out.push_back(std::string(1, c));
  return out;
}

Node contraction(const std::string& x, const std::string& y, const std::string& z) {
  Node n;
  n.name = "Z";
  n.inputs = {"X", "Y"};
  n.operandLabels = {split(x), split(y)};
  n.outputLabels = split(z);
  n.join = Expr::binary(Expr::Kind::Mul, Expr::x(), Expr::y());
  return n;
}

using Sizes = std::map<Label, int64_t>;

int64_t count(const Labels& ls, const Sizes& s) {
  int64_t n = 1;
  for (const auto& l : ls) n *= s.at(l);
  return n;
}

// Row-major offset of the element at `at` (label -> index) in a tensor labelled `ls`.
int64_t offset(const Labels& ls, const Sizes& s, const std::map<Label, int64_t>& at) {
  int64_t o = 0;
  for (const auto& l : ls) o = o * s.at(l) + at.at(l);
  return o;
}

// Brute-force einsum: every assignment of every label.
std::vector<double> einsum(const Node& n, const Sizes& s, const std::vector<double>& X, const std::vector<double>& Y) {
  Labels all = iterationLabels(n);
  std::vector<double> Z(count(n.outputLabels, s), 0.0);
  std::map<Label, int64_t> at;
  for (const auto& l : all) at[l] = 0;
  while (true) {
    Z[offset(n.outputLabels, s, at)] += X[offset(n.operandLabels[0], s, at)] * Y[offset(n.operandLabels[1], s, at)];
    std::size_t d = all.size();
    bool done = true;
    while (d-- > 0) {
      if (++at[all[d]] < s.at(all[d])) { done = false; break; }
      at[all[d]] = 0;
    }
    if (done) return Z;
  }
}

// Stored tensor -> canonical order given by the permutation (canonical i = stored perm[i]).
std::vector<double> permute(const std::vector<double>& in, const Labels& stored, const Permutation& perm, const Sizes& s) {
  Labels canonical;
  for (int p : perm) canonical.push_back(stored[p]);
  std::vector<double> out(in.size());
  std::map<Label, int64_t> at;
  for (const auto& l : stored) at[l] = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    out[offset(canonical, s, at)] = in[offset(stored, s, at)];
    for (std::size_t d = stored.size(); d-- > 0;) {
      if (++at[stored[d]] < s.at(stored[d])) break;
      at[stored[d]] = 0;
    }
  }
  return out;
}

// How the program reads a GEMM tensor (einrt's NodeKernel): where it is permuted, its
// canonical copy [C][first][second]; else its stored order, as a strided view — the
// outer group's stride is the leading dimension and every C label keeps its own stride.
struct View {
  int64_t ld = 1;
  std::map<Label, int64_t> stride;
};

View viewOf(const Labels& stored, const Permutation& perm, bool transposed, const Labels& first, const Labels& second,
            const Sizes& s) {
  Labels layout;
  if (perm.empty()) layout = stored;
  else for (int p : perm) layout.push_back(stored[p]);
  View v;
  int64_t st = 1;
  for (std::size_t d = layout.size(); d-- > 0;) {
    v.stride[layout[d]] = st;
    st *= s.at(layout[d]);
  }
  const Labels& outer = perm.empty() && transposed ? second : first;
  const Labels& inner = perm.empty() && transposed ? first : second;
  v.ld = outer.empty() ? count(inner, s) : v.stride.at(outer.back());
  return v;
}

// Offset of batch entry `b` (row-major over the C labels in mapping order) in a view; a
// batch label the tensor lacks (an M or N label promoted to a loop) steps by 0 in it.
int64_t batchOffset(const GemmMapping& g, const View& v, int64_t b, const Sizes& s) {
  int64_t o = 0;
  for (std::size_t i = g.batchLabels.size(); i-- > 0;) {
    const int64_t e = s.at(g.batchLabels[i]);
    const auto stride = v.stride.find(g.batchLabels[i]);
    o += (b % e) * (stride == v.stride.end() ? 0 : stride->second);
    b /= e;
  }
  return o;
}

std::vector<double> executeMapping(const Node& n, const GemmMapping& g, const Sizes& s, std::vector<double> X,
                                   std::vector<double> Y) {
  if (!g.permX.empty()) X = permute(X, n.operandLabels[0], g.permX, s);
  if (!g.permY.empty()) Y = permute(Y, n.operandLabels[1], g.permY, s);
  const bool tx = g.permX.empty() && g.transX, ty = g.permY.empty() && g.transY, tz = g.permZ.empty() && g.transZ;
  const View vx = viewOf(n.operandLabels[0], g.permX, g.transX, g.mLabels, g.kLabels, s);
  const View vy = viewOf(n.operandLabels[1], g.permY, g.transY, g.kLabels, g.nLabels, s);
  const View vz = viewOf(n.outputLabels, g.permZ, g.transZ, g.mLabels, g.nLabels, s);
  std::vector<double> Z(g.batch * g.m * g.n, 0.0);
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        double acc = 0;
        for (int64_t k = 0; k < g.k; ++k) {
          const double x = X[batchOffset(g, vx, b, s) + (tx ? k * vx.ld + i : i * vx.ld + k)];
          const double y = Y[batchOffset(g, vy, b, s) + (ty ? j * vy.ld + k : k * vy.ld + j)];
          acc += x * y;
        }
        Z[batchOffset(g, vz, b, s) + (tz ? j * vz.ld + i : i * vz.ld + j)] = acc;
      }
  if (g.permZ.empty()) return Z;
  // Z was computed in canonical order [C][M][N]; scatter back into the stored order.
  Labels canonical;
  for (int p : g.permZ) canonical.push_back(n.outputLabels[p]);
  Permutation inverse(g.permZ.size());
  for (std::size_t i = 0; i < g.permZ.size(); ++i)
    inverse[i] = static_cast<int>(std::find(canonical.begin(), canonical.end(), n.outputLabels[i]) - canonical.begin());
  return permute(Z, canonical, inverse, s);
}

struct Case {
  const char* x;
  const char* y;
  const char* z;
  bool gemm;                 // expected to map at all
  bool permutationFree;      // expected to need no permutation
  int64_t batch;
};

}  // namespace

TEST_CASE("GEMM mappings compute the einsum, and avoid permutations where a layout fits") {
  const Case cases[] = {
      {"ij", "jk", "ik", true, true, 1},     {"ji", "jk", "ik", true, true, 1},
      {"ij", "kj", "ik", true, true, 1},     {"ij", "jk", "ki", true, true, 1},
      {"ji", "kj", "ki", true, true, 1},     {"bij", "bjk", "bik", true, true, 3},
      {"ibj", "bjk", "bik", true, true, 3},  {"ij", "j", "i", true, true, 1},
      {"i", "k", "ik", true, true, 1},       {"ijk", "jkl", "il", true, true, 1},
      {"ikj", "jkl", "il", true, false, 1},  {"abij", "jk", "abik", true, true, 1},
      {"bhqd", "bhkd", "bhqk", true, true, 6}, {"bhqk", "bhkd", "bqhd", true, true, 6},
      // Strided views: C labels before or between the groups; a C label after the inner
      // group, or one splitting a group, still needs a permutation.
      {"bqhd", "bkhd", "bhqk", true, true, 6}, {"qhd", "khd", "hqk", true, true, 2},
      {"ijb", "bjk", "bik", true, false, 3}, {"ibaj", "bjk", "baik", true, false, 3},
      {"aibj", "bjk", "abik", true, false, 3},
      {"ij", "ik", "i", false, false, 1},    {"ij", "jk", "ikm", false, false, 1},
      {"ii", "ik", "ik", false, false, 1},
  };
  const Sizes sizes{{"i", 3}, {"j", 4}, {"k", 5}, {"l", 2}, {"b", 3}, {"a", 2}, {"m", 2},
                    {"h", 2}, {"q", 3}, {"d", 4}};
  for (const Case& c : cases) {
    CAPTURE(c.x);
    CAPTURE(c.y);
    CAPTURE(c.z);
    const Node n = contraction(c.x, c.y, c.z);
    std::vector<int64_t> extent;
    for (const auto& l : iterationLabels(n)) extent.push_back(sizes.at(l));
    const auto g = mapContractionToGemm(n, extent);
    REQUIRE(g.has_value() == c.gemm);
    if (!g) continue;
    CHECK((g->permutedElements == 0) == c.permutationFree);
    CHECK(g->batch == c.batch);
    std::mt19937 rng(12345);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> X(count(n.operandLabels[0], sizes)), Y(count(n.operandLabels[1], sizes));
    for (auto& v : X) v = u(rng);
    for (auto& v : Y) v = u(rng);
    // The call einrt's model makes of the mapping reads the leading dimensions this test's
    // executor finds (A is Y where Z is computed transposed).
    const einrt::model::GemmCallPlan call = gemmCallPlanOf(n, *g, extent);
    const int64_t ldX = viewOf(n.operandLabels[0], g->permX, g->transX, g->mLabels, g->kLabels, sizes).ld;
    const int64_t ldY = viewOf(n.operandLabels[1], g->permY, g->transY, g->kLabels, g->nLabels, sizes).ld;
    CHECK(call.call.lda == (call.swapped ? ldY : ldX));
    CHECK(call.call.ldb == (call.swapped ? ldX : ldY));
    CHECK(call.call.ldc == viewOf(n.outputLabels, g->permZ, g->transZ, g->mLabels, g->nLabels, sizes).ld);
    const auto want = einsum(n, sizes, X, Y);
    const auto got = executeMapping(n, *g, sizes, X, Y);
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-12));
  }
}

TEST_CASE("M and N labels leading Z become loops where that spares a permutation and the calls stay large") {
  // {x, y, z, sizes (per label, in order of first appearance), promoted labels or "" where
  // the mapping must keep its permutation}
  struct Loops {
    const char *x, *y, *z;
    std::vector<int64_t> sizes;
    const char* loops;
  };
  const Loops cases[] = {
      // syn's third step in its chosen layouts: d and g (M labels) loop around [f][e i].
      {"dbgei", "bf", "dgfei", {2, 64, 2, 8, 8, 64}, "dg"},
      // X splits M around K; with a as a loop X reads [a][k][m]: a C label that Y lacks.
      {"akm", "kn", "amn", {3, 64, 64, 64}, "a"},
      // An N label leading Z: X lacks it.
      {"mk", "bkn", "bmn", {64, 64, 3, 64}, "b"},
      // Calls of 8 rows would be too small: the permutation stays.
      {"akm", "kn", "amn", {3, 64, 8, 64}, ""},
  };
  for (const Loops& c : cases) {
    CAPTURE(c.z);
    const Node n = contraction(c.x, c.y, c.z);
    const Labels labels = iterationLabels(n);
    Sizes sizes;
    for (std::size_t i = 0; i < labels.size(); ++i) sizes[labels[i]] = c.sizes[i];
    const auto g = mapContractionToGemm(n, c.sizes);
    REQUIRE(g);
    const std::string loops = c.loops;
    CHECK((g->permutedElements == 0) == !loops.empty());
    if (!loops.empty()) {
      std::string batch;
      for (const auto& l : g->batchLabels) batch += l;
      CHECK(batch == loops);
    }
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> X(count(n.operandLabels[0], sizes)), Y(count(n.operandLabels[1], sizes));
    for (auto& v : X) v = u(rng);
    for (auto& v : Y) v = u(rng);
    const auto want = einsum(n, sizes, X, Y);
    const auto got = executeMapping(n, *g, sizes, X, Y);
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-12));
  }
}

TEST_CASE("the permutation goes to the smaller operand when the K orders disagree") {
  // X is 2x4x3 = 24 elements (ikj), Y is 4x3x50 (jkl): permuting X is cheaper.
  const Node n = contraction("ikj", "jkl", "il");
  const Labels labels = iterationLabels(n);  // i k j l
  const auto g = mapContractionToGemm(n, {2, 3, 4, 50});
  REQUIRE(g);
  CHECK(!g->permX.empty());
  CHECK(g->permY.empty());
  CHECK(g->permutedElements == 24);
}

TEST_CASE("non-contractions are not mapped") {
  Node n = contraction("ij", "jk", "ik");
  n.join = Expr::binary(Expr::Kind::Add, Expr::x(), Expr::y());
  CHECK_FALSE(mapContractionToGemm(n, {2, 2, 2}).has_value());
  n = contraction("ij", "jk", "ik");
  n.agg = Reduce::Max;
  CHECK_FALSE(mapContractionToGemm(n, {2, 2, 2}).has_value());
}

TEST_CASE("intermediate layouts: split steps get orders that spare permutations; user nodes keep theirs") {
  // Tensor networks of the Einsum Trees paper's kind and an attention-like chain.
  const char* graphs[] = {
      "inputs: {A: [3, 4, 2, 3], B: [6, 4, 2, 3], C: [5, 2, 2, 2], D: [4, 3, 3, 2]}\n"
      "nodes:\n  - {name: F, einsum: \"a e f g, b e h i, c f h j, d g i j -> a b c d\", inputs: [A, B, C, D]}\n",
      "inputs: {T0: [5, 3], T1: [3, 4, 6], T2: [6, 2, 3], T3: [3, 4, 2]}\n"
      "nodes:\n  - {name: T, einsum: \"a f, f b g, g c h, h d i -> a b c d i\", inputs: [T0, T1, T2, T3]}\n",
  };
  for (const char* text : graphs) {
    const Graph split = splitNaryNodes(loadGraphText(text, "tn.yaml", GraphFormat::Yaml));
    const Graph chosen = chooseInternalLayouts(split);
    int64_t before = 0, after = 0;
    auto cost = [&](const Graph&, const Node& n) {
      auto m = mapContractionToGemm(n, iterationSizes(n));
      return m ? m->permutedElements : 0;
    };
    REQUIRE(chosen.nodes.size() == split.nodes.size());
    for (std::size_t i = 0; i < split.nodes.size(); ++i) {
      before += cost(split, split.nodes[i]);
      after += cost(chosen, chosen.nodes[i]);
      // The same contraction: every operand and output has the same label set.
      CHECK(std::set<Label>(split.nodes[i].outputLabels.begin(), split.nodes[i].outputLabels.end()) ==
            std::set<Label>(chosen.nodes[i].outputLabels.begin(), chosen.nodes[i].outputLabels.end()));
      if (split.nodes[i].name.find('.') == std::string::npos) CHECK(chosen.nodes[i].outputLabels == split.nodes[i].outputLabels);
    }
    CAPTURE(text);
    CHECK(after <= before);
  }
}
