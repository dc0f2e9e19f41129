// The join expression -> C++ source table: hand-written expected text per SPEC 1 join.
#include <doctest/doctest.h>

#include "codegen/kernels/join_source.h"

using namespace eindecomp;
using namespace eindecomp::codegen;
using K = Expr::Kind;

TEST_CASE("join expressions become einrt::program calls over x and y") {
  const struct {
    Expr e;
    const char* source;
  } cases[] = {
      {Expr::binary(K::Mul, Expr::x(), Expr::y()), "(x * y)"},
      {Expr::x(), "x"},
      {Expr::call("exp", {Expr::binary(K::Sub, Expr::x(), Expr::y())}), "einrt::program::exp<T>((x - y))"},
      {Expr::unary(K::Neg, Expr::call("relu", {Expr::x()})), "(-einrt::program::relu<T>(x))"},
      {Expr::call("pow", {Expr::x(), Expr::num(0.5)}), "einrt::program::pow<T>(x, T(0.5))"},
      {Expr::binary(K::Div, Expr::num(1), Expr::call("sigmoid", {Expr::y()})), "(T(1) / einrt::program::sigmoid<T>(y))"},
      {Expr::call("max", {Expr::x(), Expr::num(-2.25)}), "einrt::program::max<T>(x, T(-2.25))"},
      {Expr::num(0.1), "T(0.10000000000000001)"},
  };
  for (const auto& c : cases) CHECK(joinExpressionSource(c.e) == c.source);
  CHECK_THROWS_AS(joinExpressionSource(Expr::call("system", {Expr::x()})), InputError);
  CHECK(aggCombineSource(AggOp::Max) == "einrt::program::max<T>(a, b)");
  CHECK(aggIdentitySource(AggOp::Min) == "einrt::program::infinity<T>()");
}
