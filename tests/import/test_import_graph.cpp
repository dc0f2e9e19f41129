// The importer's graph with views (frontends/import/import_graph.h), without ONNX files:
// the common refinement of two factorisations, and the free shape operators — a Reshape
// that splits a computed tensor's dimension refines the weight behind it, a Slice is
// pushed into the producer, a model input's slice is a selection — each checked on the
// graph it writes and on its values through the reference evaluator.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <map>

#include "frontends/eval/graph_eval.h"
#include "planner/graph/expr_parser.h"
#include "planner/graph/identifiers.h"
#include "frontends/import/import_graph.h"

using namespace eindecomp;
using namespace eindecomp::onnx_import;

namespace {

HostTensor ramp(std::vector<int64_t> shape, double start = 1.0) {
  HostTensor t;
  t.shape = shape;
  int64_t n = 1;
  for (const int64_t d : shape) n *= d;
  for (int64_t i = 0; i < n; ++i) t.values.push_back(start + static_cast<double>(i));
  return t;
}

// Evaluates a finished graph with the given model inputs (by graph name) and its weights.
std::map<std::string, Tensor> run(const ImportGraph::Result& r, const std::map<std::string, HostTensor>& modelInputs) {
  std::map<std::string, Tensor> inputs;
  auto add = [&](const std::string& name, const HostTensor& h) {
    Tensor t;
    t.dtype = DType::F64;
    t.values = h.values;
    for (const auto& in : r.graph.inputs)
      if (in.name == name) t.shape = in.shape;
    inputs[name] = t;
  };
  for (const auto& [name, h] : r.weights) add(name, h);
  for (const auto& [name, h] : modelInputs) add(name, h);
  return evaluateGraph(r.graph, inputs);
}

}  // namespace

TEST_CASE("common refinement of two factorisations") {
  struct Row {
    std::vector<int64_t> a, b;
    std::optional<std::vector<int64_t>> want;
  };
  const std::vector<Row> rows = {
      {{6}, {2, 3}, std::vector<int64_t>{2, 3}},
      {{4, 6}, {24}, std::vector<int64_t>{4, 6}},
      {{4, 6}, {2, 12}, std::vector<int64_t>{2, 2, 6}},
      {{4, 6}, {6, 4}, std::nullopt},  // boundaries cross: a real data movement
      {{12, 5}, {3, 20}, std::vector<int64_t>{3, 4, 5}},
      {{7}, {7}, std::vector<int64_t>{7}},
      {{2, 3}, {7}, std::nullopt},
  };
  for (const auto& row : rows) {
    CAPTURE(row.a);
    CAPTURE(row.b);
    CHECK(commonRefinement(row.a, row.b) == row.want);
  }
}

TEST_CASE("identifiers from arbitrary names") {
  CHECK(identifierFrom("x") == "x");
  CHECK(identifierFrom("onnx::MatMul_12") == "onnx__MatMul_12");
  CHECK(identifierFrom("/l1/Gemm_output_0") == "_l1_Gemm_output_0");
  CHECK(identifierFrom("0weight") == "t_0weight");
  CHECK(identifierFrom("") == "t");
  CHECK(identifierFrom("a;rm -rf x\n") == "a_rm__rf_x_");
  const std::string longA(100, 'a'), longB = std::string(99, 'a') + "b";
  CHECK(identifierFrom(longA).size() == 64);
  CHECK(identifierFrom(longA) != identifierFrom(longB));
  CHECK(isIdentifier(identifierFrom("\xff\xfe")));
}

TEST_CASE("a Reshape into heads refines the weight behind it; a transposed merge is a file shape") {
  // y = reshape(x @ w, [2, 2, 3]) -> transpose(1, 0, 2); x [2, 4], w [4, 6].
  ImportGraph g;
  const View x = g.addModelInput("x", {2, 4});
  const View w = g.addWeight("w", ramp({4, 6}));
  const View p = g.einsum({{x, {0, 1}}, {w, {1, 2}}}, {0, 2}, parseExpr("x * y"), Reduce::Sum, "p");
  const View heads = g.reshape(p, {2, 2, 3});
  CHECK(g.shape(heads) == std::vector<int64_t>{2, 2, 3});
  const View t = g.transpose(heads, {1, 0, 2});
  const auto r = g.finish({{"y", t}}, DType::F64, "m");
  // The weight is written split, [4, 2, 3]; the product has a head label; one copy node
  // lays out the transpose (a real permutation of the output).
  REQUIRE(r.weights.count("w"));
  CHECK(r.weights.at("w").shape == std::vector<int64_t>{4, 2, 3});
  CHECK(r.graph.nodes.size() == 2);
  const auto out = run(r, {{"x", ramp({2, 4}, -3.0)}});
  // Oracle: the same arithmetic by hand.
  const HostTensor xv = ramp({2, 4}, -3.0), wv = ramp({4, 6});
  const Tensor& y = out.at("y");
  CHECK(y.shape == std::vector<int64_t>{2, 2, 3});
  for (int h = 0; h < 2; ++h)
    for (int b = 0; b < 2; ++b)
      for (int d = 0; d < 3; ++d) {
        double s = 0;
        for (int k = 0; k < 4; ++k) s += xv.values[b * 4 + k] * wv.values[k * 6 + h * 3 + d];
        CHECK(y.values[(h * 2 + b) * 3 + d] == doctest::Approx(s));
      }
}

TEST_CASE("a Slice of a computed tensor is pushed into its producer; of a model input it is a selection") {
  ImportGraph g;
  const View x = g.addModelInput("x", {3, 4});
  const View w = g.addWeight("w", ramp({4, 6}));
  const View p = g.einsum({{x, {0, 1}}, {w, {1, 2}}}, {0, 2}, parseExpr("x * y"), Reduce::Sum, "p");
  const View right = g.slice(p, 1, 2, 6);   // pushed: a product with w's columns 2..6
  const View xs = g.slice(x, 0, 1, 3);      // a model input: selection einsum
  const auto r = g.finish({{"a", right}, {"b", xs}}, DType::F64, "m");
  bool slicedWeight = false;
  for (const auto& [name, v] : r.weights) slicedWeight = slicedWeight || v.shape == std::vector<int64_t>{4, 4};
  CHECK(slicedWeight);
  for (const auto& n : r.graph.nodes) CHECK(n.name != "p");  // the whole product is gone
  const HostTensor xv = ramp({3, 4}, 0.5);
  const auto out = run(r, {{"x", xv}});
  const HostTensor wv = ramp({4, 6});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      double s = 0;
      for (int k = 0; k < 4; ++k) s += xv.values[i * 4 + k] * wv.values[k * 6 + 2 + j];
      CHECK(out.at("a").values[i * 4 + j] == doctest::Approx(s));
    }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) CHECK(out.at("b").values[i * 4 + j] == xv.values[(i + 1) * 4 + j]);
}

TEST_CASE("a selection passes every value through unchanged") {
  ImportGraph g;
  const View x = g.addModelInput("x", {4});
  const View s = g.select(x, 0, {3, 0, 2}, 3, 0, "s");
  const auto r = g.finish({{"s", s}}, DType::F64, "m");
  HostTensor xv;
  xv.shape = {4};
  xv.values = {1.5, -INFINITY, NAN, INFINITY};
  const auto out = run(r, {{"x", xv}});
  CHECK(out.at("s").values[0] == INFINITY);
  CHECK(out.at("s").values[1] == 1.5);
  CHECK(std::isnan(out.at("s").values[2]));
}

TEST_CASE("splitting dimensions the other way round is refused") {
  ImportGraph g;
  const View x = g.addModelInput("x", {4, 6});
  CHECK_THROWS_AS(g.reshape(x, {6, 4}), Unsupported);
}

TEST_CASE("an initializer that is an earlier weight transposed is that weight; equal constants stay apart") {
  // logits = h @ wt with wt = w^T (a tied lm_head as torch exports it), beside e = x @ w.
  ImportGraph g;
  const View x = g.addModelInput("x", {2, 3});
  const View h = g.addModelInput("h", {2, 4});
  const HostTensor wv = ramp({3, 4}, -5.0);
  const View w = g.addWeight("w", wv);
  HostTensor wt = wv;
  wt.shape = {4, 3};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) wt.values[static_cast<std::size_t>(i * 3 + j)] = wv.values[static_cast<std::size_t>(j * 4 + i)];
  const View tied = g.addWeight("wt", wt);
  HostTensor almost = wt;  // one element off: a weight of its own
  almost.values[5] += 1;
  const View other = g.addWeight("almost", almost);
  HostTensor ones = ramp({4, 3}), onesT = ramp({3, 4});  // ones both: no evidence of a tie
  for (auto* t : {&ones, &onesT}) std::fill(t->values.begin(), t->values.end(), 1.0);
  const View one = g.addWeight("ones", onesT);
  const View oneT = g.addWeight("onesT", ones);
  const View e = g.einsum({{x, {0, 1}}, {w, {1, 2}}}, {0, 2}, parseExpr("x * y"), Reduce::Sum, "e");
  const View logits = g.einsum({{h, {0, 1}}, {tied, {1, 2}}}, {0, 2}, parseExpr("x * y"), Reduce::Sum, "logits");
  const View f = g.einsum({{h, {0, 1}}, {other, {1, 2}}}, {0, 2}, parseExpr("x * y"), Reduce::Sum, "f");
  const View k = g.einsum({{x, {0, 1}}, {one, {1, 2}}}, {0, 2}, parseExpr("x * y"), Reduce::Sum, "k");
  const View l = g.einsum({{h, {0, 1}}, {oneT, {1, 2}}}, {0, 2}, parseExpr("x * y"), Reduce::Sum, "l");
  const auto r = g.finish({{"E", e}, {"L", logits}, {"F", f}, {"K", k}, {"M", l}}, DType::F64, "m");
  CHECK(r.tied == std::vector<std::pair<std::string, std::string>>{{"wt", "w"}});
  CHECK(r.weights.count("w") == 1);
  CHECK(r.weights.count("wt") == 0);
  CHECK(r.weights.count("almost") == 1);
  CHECK(r.weights.count("ones") == 1);
  CHECK(r.weights.count("onesT") == 1);
  const HostTensor hv = ramp({2, 4}, 0.5);
  const auto out = run(r, {{"x", ramp({2, 3})}, {"h", hv}});
  for (int b = 0; b < 2; ++b)
    for (int v = 0; v < 3; ++v) {
      double s = 0;
      for (int d = 0; d < 4; ++d) s += hv.values[static_cast<std::size_t>(b * 4 + d)] * wt.values[static_cast<std::size_t>(d * 3 + v)];
      CHECK(out.at("L").values[static_cast<std::size_t>(b * 3 + v)] == doctest::Approx(s));
    }
}
