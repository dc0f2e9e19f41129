// Single nodes on small tensors whose results were worked out by hand: one row per
// kind of EinSum (contractions, transposes, outer products, each aggregation, each
// named join, broadcasts, unary maps, n-ary contractions, multi-character labels), and
// n-ary contractions along their contraction path.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "graph_builder.h"
#include "frontends/eval/node_eval.h"

using eindecomp::Reduce;
using eindecomp::DType;
using eindecomp::Expr;
using eindecomp::ScalarFunction;
using eindecomp::Tensor;
using evaltest::GraphBuilder;
using evaltest::mulJoin;
using evaltest::tensor;
using K = Expr::Kind;

namespace {

struct NodeCase {
  const char* what;
  eindecomp::Graph graph;             // the node under test is graph.nodes[0]
  std::vector<Tensor> operands;
  std::vector<int64_t> expectedShape;
  std::vector<double> expected;
};

const Expr x = Expr::x(), y = Expr::y();
Expr named(K k) { return Expr::binary(k, x, y); }
Expr fn2(ScalarFunction f) { return Expr::call(f, {x, y}); }
Expr sqdiff() { return Expr::binary(K::Mul, named(K::Sub), named(K::Sub)); }
Expr absdiff() { return Expr::call(ScalarFunction::Abs, {named(K::Sub)}); }

Tensor f64(std::vector<int64_t> shape, std::vector<double> v) { return tensor(DType::F64, std::move(shape), std::move(v)); }

// A = [[1 2] [3 4]], B = [[5 6] [7 8]], M = [[1 -2 3] [4 5 -6]]
const Tensor A = f64({2, 2}, {1, 2, 3, 4});
const Tensor B = f64({2, 2}, {5, 6, 7, 8});
const Tensor M = f64({2, 3}, {1, -2, 3, 4, 5, -6});
const Tensor u = f64({2}, {1, 2});
const Tensor v3 = f64({3}, {3, 4, 5});

std::vector<NodeCase> nodeCases() {
  auto g2 = [](const char* einsum, Expr join, Reduce agg = Reduce::Sum) {
    return GraphBuilder().sizes({{"i", 2}, {"j", 2}, {"k", 2}}).node("Z", {"A", "B"}, einsum, std::move(join), agg).g;
  };
  auto g1 = [](const char* einsum, Expr join, Reduce agg, std::map<std::string, int64_t> sizes) {
    return GraphBuilder().sizes(sizes).node("Z", {"M"}, einsum, std::move(join), agg).g;
  };
  const std::map<std::string, int64_t> s23{{"i", 2}, {"j", 3}};
  return {
      {"matmul ij,jk->ik", g2("ij,jk->ik", mulJoin()), {A, B}, {2, 2}, {19, 22, 43, 50}},
      {"left transposed ji,jk->ik", g2("ji,jk->ik", mulJoin()), {A, B}, {2, 2}, {26, 30, 38, 44}},
      {"right transposed ij,kj->ik", g2("ij,kj->ik", mulJoin()), {A, B}, {2, 2}, {17, 23, 39, 53}},
      {"output transposed ij,jk->ki", g2("ij,jk->ki", mulJoin()), {A, B}, {2, 2}, {19, 43, 22, 50}},
      {"dot product ij,ij->", g2("ij,ij->", mulJoin()), {A, B}, {}, {70}},
      {"elementwise add", g2("ij,ij->ij", named(K::Add)), {A, B}, {2, 2}, {6, 8, 10, 12}},
      {"elementwise sub", g2("ij,ij->ij", named(K::Sub)), {A, B}, {2, 2}, {-4, -4, -4, -4}},
      {"elementwise div", g2("ij,ij->ij", named(K::Div)), {A, B}, {2, 2}, {0.2, 2.0 / 6, 3.0 / 7, 0.5}},
      {"elementwise max", g2("ij,ji->ij", fn2(ScalarFunction::Max)), {A, B}, {2, 2}, {5, 7, 6, 8}},
      {"elementwise min", g2("ij,ji->ij", fn2(ScalarFunction::Min)), {B, A}, {2, 2}, {1, 3, 2, 4}},
      {"sqdiff with sum: squared L2 distance", g2("ij,jk->ik", sqdiff()), {A, B}, {2, 2}, {41, 61, 13, 25}},
      {"absdiff with max: L-infinity distance", g2("ij,jk->ik", absdiff(), Reduce::Max), {A, B}, {2, 2}, {5, 6, 3, 4}},
      {"outer product i,j->ij",
       GraphBuilder().sizes({{"i", 2}, {"j", 3}}).node("Z", {"u", "v"}, "i,j->ij", mulJoin()).g,
       {u, v3}, {2, 3}, {3, 4, 5, 6, 8, 10}},
      {"sum ij->i", g1("ij->i", x, Reduce::Sum, s23), {M}, {2}, {2, 3}},
      {"max ij->i", g1("ij->i", x, Reduce::Max, s23), {M}, {2}, {3, 5}},
      {"min ij->i", g1("ij->i", x, Reduce::Min, s23), {M}, {2}, {-2, -6}},
      {"prod ij->i", g1("ij->i", x, Reduce::Prod, s23), {M}, {2}, {-6, -120}},
      {"sum over rows ij->j", g1("ij->j", x, Reduce::Sum, s23), {M}, {3}, {5, 3, -3}},
      {"full reduction ij->", g1("ij->", x, Reduce::Sum, s23), {M}, {}, {5}},
      {"max of negatives starts from -inf, not 0", g1("ij->i", x, Reduce::Max, s23),
       {f64({2, 3}, {-5, -2, -3, -9, -8, -7})}, {2}, {-2, -7}},
      {"min of positives starts from +inf, not 0", g1("ij->i", x, Reduce::Min, s23),
       {f64({2, 3}, {5, 2, 3, 9, 8, 7})}, {2}, {2, 7}},
      {"transpose ij->ji", g1("ij->ji", x, Reduce::Sum, s23), {M}, {3, 2}, {1, 4, -2, 5, 3, -6}},
      {"unary map relu", g1("ij->ij", Expr::call(ScalarFunction::Relu, {x}), Reduce::Sum, s23), {M}, {2, 3}, {1, 0, 3, 4, 5, 0}},
      {"unary map 2*x+1", g1("ij->ij", Expr::binary(K::Add, Expr::binary(K::Mul, Expr::num(2), x), Expr::num(1)),
                             Reduce::Sum, s23),
       {M}, {2, 3}, {3, -3, 7, 9, 11, -11}},
      {"broadcast i->ij", g1("i->ij", x, Reduce::Sum, {{"i", 2}, {"j", 3}}), {u}, {2, 3}, {1, 1, 1, 2, 2, 2}},
      {"broadcast to the front i->ki", g1("i->ki", x, Reduce::Sum, {{"i", 2}, {"k", 2}}), {u}, {2, 2}, {1, 2, 1, 2}},
      {"aggregate and broadcast ij->ik", g1("ij->ik", x, Reduce::Sum, {{"i", 2}, {"j", 3}, {"k", 2}}), {M}, {2, 2},
       {2, 2, 3, 3}},
      {"binary with broadcast i,i->ik", GraphBuilder().sizes({{"i", 2}, {"k", 3}}).node("Z", {"u", "w"}, "i,i->ik",
                                                                                         named(K::Add)).g,
       {u, f64({2}, {10, 20})}, {2, 3}, {11, 11, 11, 22, 22, 22}},
      {"softmax join exp(x - y) over ij,i->ij",
       GraphBuilder().sizes(s23).node("Z", {"M", "c"}, "ij,i->ij",
                                      Expr::call(ScalarFunction::Exp, {named(K::Sub)})).g,
       {M, f64({2}, {3, 5})}, {2, 3}, {std::exp(-2.0), std::exp(-5.0), 1, std::exp(-1.0), 1, std::exp(-11.0)}},
      {"3-input chain ij,jk,kl->il",
       GraphBuilder().sizes({{"i", 2}, {"j", 2}, {"k", 2}, {"l", 1}})
           .node("Z", {"A", "B", "c"}, "ij,jk,kl->il", mulJoin()).g,
       {A, B, f64({2, 1}, {1, -1})}, {2, 1}, {-3, -7}},
      {"3-input with a shared label ij,ij,j->i",
       GraphBuilder().sizes({{"i", 2}, {"j", 2}}).node("Z", {"A", "B", "u"}, "ij,ij,j->i", mulJoin()).g,
       {A, B, u}, {2}, {5 + 24, 21 + 64}},
      {"4-input scalar i,i,i,i->", GraphBuilder().sizes({{"i", 2}}).node("Z", {"a", "b", "c", "d"}, "i,i,i,i->",
                                                                         mulJoin()).g,
       {u, u, u, f64({2}, {3, 1})}, {}, {3 + 8}},
  };
}

}  // namespace

TEST_CASE("evaluateNode matches hand-computed results") {
  for (auto& c : nodeCases()) {
    CAPTURE(c.what);
    std::vector<const Tensor*> operands;
    for (const auto& t : c.operands) operands.push_back(&t);
    const Tensor out = eindecomp::evaluateNode(c.graph, c.graph.nodes[0], operands);
    CHECK(out.dtype == DType::F64);
    CHECK(out.shape == c.expectedShape);
    REQUIRE(out.values.size() == c.expected.size());
    for (std::size_t i = 0; i < c.expected.size(); ++i) {
      CAPTURE(i);
      CHECK(out.values[i] == doctest::Approx(c.expected[i]).epsilon(1e-14));
    }
  }
}

TEST_CASE("multi-character labels") {
  // Y[row, head] = sum_col X[row, col] * W[col, head]
  const auto g = GraphBuilder()
                     .sizes({{"row", 2}, {"col", 2}, {"head", 2}})
                     .node("Y", {"X", "W"}, {{"row", "col"}, {"col", "head"}}, {"row", "head"}, mulJoin())
                     .g;
  const Tensor out = eindecomp::evaluateNode(g, g.nodes[0], {&A, &B});
  CHECK(out.shape == std::vector<int64_t>{2, 2});
  CHECK(out.values == std::vector<double>{19, 22, 43, 50});
}

TEST_CASE("aggregations: identities and NaN") {
  CHECK(eindecomp::aggregationIdentity(Reduce::Sum) == 0.0);
  CHECK(eindecomp::aggregationIdentity(Reduce::Prod) == 1.0);
  CHECK(eindecomp::aggregationIdentity(Reduce::Max) == -std::numeric_limits<double>::infinity());
  CHECK(eindecomp::aggregationIdentity(Reduce::Min) == std::numeric_limits<double>::infinity());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(std::isnan(eindecomp::aggregate(Reduce::Max, 1.0, nan)));
  CHECK(std::isnan(eindecomp::aggregate(Reduce::Max, nan, 1.0)));
  CHECK(std::isnan(eindecomp::aggregate(Reduce::Min, nan, 1.0)));
}

TEST_CASE("f32 nodes accumulate in double and round once at the output") {
  // sum of 1 + 3 * 2^-24: float-by-float accumulation would stay at 1 (each 1 + 2^-24
  // is a tie rounding to even); the double sum 1 + 3 * 2^-24 rounds to 1 + 2^-22.
  const double e = std::ldexp(1.0, -24);
  const auto g = GraphBuilder(DType::F32).sizes({{"i", 4}}).node("s", {"v"}, "i->", x, Reduce::Sum).g;
  const Tensor v = tensor(DType::F32, {4}, {1, e, e, e});
  const Tensor out = eindecomp::evaluateNode(g, g.nodes[0], {&v});
  CHECK(out.dtype == DType::F32);
  CHECK(out.values[0] == 1.0 + std::ldexp(1.0, -22));

  // Each output element is a float: 1/3 is stored as float(1/3).
  const auto gd = GraphBuilder(DType::F32).sizes({{"i", 1}}).node("d", {"a", "b"}, "i,i->i", named(K::Div)).g;
  const Tensor one = tensor(DType::F32, {1}, {1}), three = tensor(DType::F32, {1}, {3});
  CHECK(eindecomp::evaluateNode(gd, gd.nodes[0], {&one, &three}).values[0] == static_cast<double>(1.0f / 3.0f));
}

TEST_CASE("evaluateNode rejects operands that do not fit the node") {
  const auto g = GraphBuilder().sizes({{"i", 2}, {"j", 2}, {"k", 2}}).node("Z", {"A", "B"}, "ij,jk->ik", mulJoin()).g;
  CHECK_THROWS_AS(eindecomp::evaluateNode(g, g.nodes[0], {&A}), std::invalid_argument);
  CHECK_THROWS_AS(eindecomp::evaluateNode(g, g.nodes[0], {&A, &M}), std::invalid_argument);
  const auto nary = GraphBuilder().sizes({{"i", 2}}).node("Z", {"a", "b", "c"}, "i,i,i->i", named(K::Add)).g;
  CHECK_THROWS_AS(eindecomp::evaluateNode(nary, nary.nodes[0], {&u, &u, &u}), std::invalid_argument);
}

TEST_CASE("n-ary contractions run along their path, intermediates in double") {
  // (1 + 2^-23)^3 - 1 = 3 * 2^-23 + 3 * 2^-46 + 2^-69, which rounds to the float
  // 3 * 2^-23 + 2^-44. Any pairwise product rounded to float on the way, (1 + 2^-22 + 2^-46)
  // -> 1 + 2^-22, would end at 3 * 2^-23 + 2^-45 instead, whatever the path's order.
  const auto g = GraphBuilder(DType::F32).sizes({{"j", 2}}).node("Z", {"a", "b", "c"}, "j,j,j->", mulJoin()).g;
  const Tensor t = tensor(DType::F32, {2}, {1 + std::ldexp(1.0, -23), -1});
  const Tensor out = eindecomp::evaluateNode(g, g.nodes[0], {&t, &t, &t});
  const double exact = std::ldexp(3.0, -23) + std::ldexp(3.0, -46) + std::ldexp(1.0, -69);
  CHECK(out.values[0] == static_cast<double>(static_cast<float>(exact)));
  CHECK(out.values[0] == std::ldexp(3.0, -23) + std::ldexp(1.0, -44));
}

TEST_CASE("a 4-matrix chain at 256 costs the path's FLOPs, not 256^5 points") {
  // ij,jk,kl,lm->im walked as one loop nest is 256^5 = 1.1e12 points (it did not finish in
  // 20 s); along its path it is three 256^3 products. The reference: the products in
  // order, by plain loops here.
  const int64_t n = 256;
  const auto g = GraphBuilder()
                     .sizes({{"i", n}, {"j", n}, {"k", n}, {"l", n}, {"m", n}})
                     .node("Y", {"A", "B", "C", "D"}, "ij,jk,kl,lm->im", mulJoin())
                     .g;
  std::vector<Tensor> m;
  for (int t = 0; t < 4; ++t) {
    std::vector<double> v(static_cast<std::size_t>(n * n));
    for (std::size_t e = 0; e < v.size(); ++e) v[e] = static_cast<double>((e * 7 + static_cast<std::size_t>(t) * 13) % 17) / 8 - 1;
    m.push_back(tensor(DType::F64, {n, n}, v));
  }
  auto matmul = [n](const std::vector<double>& x, const std::vector<double>& y) {
    std::vector<double> z(static_cast<std::size_t>(n * n), 0.0);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < n; ++k)
        for (int64_t j = 0; j < n; ++j) z[i * n + j] += x[i * n + k] * y[k * n + j];
    return z;
  };
  const std::vector<double> expected = matmul(matmul(matmul(m[0].values, m[1].values), m[2].values), m[3].values);
  const Tensor out = eindecomp::evaluateNode(g, g.nodes[0], {&m[0], &m[1], &m[2], &m[3]});
  REQUIRE(out.values.size() == expected.size());
  double worst = 0, scale = 1;
  for (std::size_t e = 0; e < expected.size(); ++e) {
    worst = std::max(worst, std::abs(out.values[e] - expected[e]));
    scale = std::max(scale, std::abs(expected[e]));
  }
  CHECK(worst <= 1e-12 * scale);
}
