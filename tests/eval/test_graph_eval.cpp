// Whole graphs: the paper's softmax (EinDecomp section 3) against a softmax written
// directly in C++, a chain whose intermediate is consumed twice, and the input checks.
#include <doctest/doctest.h>

#include <cmath>

#include "graph_builder.h"
#include "frontends/eval/generate_inputs.h"
#include "frontends/eval/graph_eval.h"

using eindecomp::Reduce;
using eindecomp::DType;
using eindecomp::Expr;
using eindecomp::Tensor;
using evaltest::GraphBuilder;
using evaltest::mulJoin;
using evaltest::tensor;
using K = Expr::Kind;

namespace {

// C_i = max_j X_ij; E_ij = exp(X_ij - C_i); S_i = sum_j E_ij; Y_ij = E_ij / S_i
eindecomp::Graph softmaxGraph(DType dtype, int64_t rows, int64_t cols) {
  return GraphBuilder(dtype)
      .sizes({{"i", rows}, {"j", cols}})
      .input("X", {rows, cols})
      .node("C", {"X"}, "ij->i", Expr::x(), Reduce::Max)
      .node("E", {"X", "C"}, "ij,i->ij", Expr::call(eindecomp::ScalarFunction::Exp, {Expr::binary(K::Sub, Expr::x(), Expr::y())}))
      .node("S", {"E"}, "ij->i", Expr::x(), Reduce::Sum)
      .node("Y", {"E", "S"}, "ij,i->ij", Expr::binary(K::Div, Expr::x(), Expr::y()))
      .g;
}

}  // namespace

TEST_CASE("the paper's softmax equals a direct softmax") {
  for (DType dtype : {DType::F64, DType::F32}) {
    CAPTURE(eindecomp::dtypeName(dtype));
    const auto g = softmaxGraph(dtype, 3, 5);
    const auto inputs = eindecomp::generateInputs(g, 11);
    const auto results = eindecomp::evaluateGraph(g, inputs);
    CHECK(results.size() == 4);  // every node's output
    const Tensor& X = inputs.at("X");
    const Tensor& Y = results.at("Y");
    CHECK(Y.shape == std::vector<int64_t>{3, 5});
    for (int i = 0; i < 3; ++i) {
      double rowMax = -INFINITY, total = 0;
      for (int j = 0; j < 5; ++j) rowMax = std::max(rowMax, X.values[i * 5 + j]);
      for (int j = 0; j < 5; ++j) total += std::exp(X.values[i * 5 + j] - rowMax);
      double rowSum = 0;
      for (int j = 0; j < 5; ++j) {
        const double expected = std::exp(X.values[i * 5 + j] - rowMax) / total;
        CHECK(Y.values[i * 5 + j] == doctest::Approx(expected).epsilon(dtype == DType::F32 ? 1e-6 : 1e-14));
        rowSum += Y.values[i * 5 + j];
      }
      CHECK(rowSum == doctest::Approx(1.0).epsilon(1e-6));
    }
  }
}

TEST_CASE("an intermediate consumed twice: Z = (A B) + (A B)^T") {
  const auto g = GraphBuilder()
                     .sizes({{"i", 2}, {"j", 2}, {"k", 2}})
                     .input("A", {2, 2})
                     .input("B", {2, 2})
                     .node("AB", {"A", "B"}, "ij,jk->ik", mulJoin())
                     .node("Z", {"AB", "AB"}, "ik,ki->ik", Expr::binary(K::Add, Expr::x(), Expr::y()))
                     .g;
  const std::map<std::string, Tensor> inputs{{"A", tensor(DType::F64, {2, 2}, {1, 2, 3, 4})},
                                             {"B", tensor(DType::F64, {2, 2}, {5, 6, 7, 8})}};
  const auto results = eindecomp::evaluateGraph(g, inputs);
  CHECK(results.at("AB").values == std::vector<double>{19, 22, 43, 50});
  CHECK(results.at("Z").values == std::vector<double>{38, 65, 65, 100});
}

TEST_CASE("evaluateGraph checks its inputs") {
  const auto g = softmaxGraph(DType::F32, 2, 3);
  const Tensor good = tensor(DType::F32, {2, 3}, {0, 0, 0, 0, 0, 0});
  struct Row {
    const char* what;
    std::map<std::string, Tensor> inputs;
    const char* words;
  };
  const Row rows[] = {
      {"missing input", {}, "no value given for graph input 'X'"},
      {"wrong dtype", {{"X", tensor(DType::F64, {2, 3}, {0, 0, 0, 0, 0, 0})}}, "'X' is f64, declared f32"},
      {"wrong shape", {{"X", tensor(DType::F32, {3, 2}, {0, 0, 0, 0, 0, 0})}}, "'X' does not have its declared shape"},
      {"unknown input", {{"X", good}, {"W", good}}, "'W' is not an input of the graph"},
  };
  for (const auto& r : rows) {
    CAPTURE(r.what);
    try {
      eindecomp::evaluateGraph(g, r.inputs);
      FAIL("no exception");
    } catch (const std::invalid_argument& e) {
      CHECK(std::string(e.what()).find(r.words) != std::string::npos);
    }
  }
}

TEST_CASE("generateInput rounds to the graph's dtype and fills the declared shape") {
  const auto g64 = softmaxGraph(DType::F64, 2, 3), g32 = softmaxGraph(DType::F32, 2, 3);
  const Tensor a = eindecomp::generateInput(g64, g64.inputs[0], 5);
  const Tensor b = eindecomp::generateInput(g32, g32.inputs[0], 5);
  CHECK(a.shape == std::vector<int64_t>{2, 3});
  CHECK(b.dtype == DType::F32);
  REQUIRE(a.values.size() == 6);
  for (std::size_t i = 0; i < 6; ++i) CHECK(b.values[i] == static_cast<double>(static_cast<float>(a.values[i])));
}
