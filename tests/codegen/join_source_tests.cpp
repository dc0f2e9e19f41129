// The join expression -> C++ source table: hand-written expected text per SPEC 1 join.
#include <doctest/doctest.h>

#include <cmath>

#include "codegen/kernels/join_source.h"

using namespace eindecomp;
using namespace eindecomp::codegen;
using F = ScalarFunction;
using K = Expr::Kind;

TEST_CASE("join expressions become einrt::program calls over x and y") {
  const struct {
    Expr e;
    const char* source;
  } cases[] = {
      {Expr::binary(K::Mul, Expr::x(), Expr::y()), "(x * y)"},
      {Expr::x(), "x"},
      {Expr::call(F::Exp, {Expr::binary(K::Sub, Expr::x(), Expr::y())}), "einrt::program::exp<T>((x - y))"},
      {Expr::unary(K::Neg, Expr::call(F::Relu, {Expr::x()})), "(-einrt::program::relu<T>(x))"},
      {Expr::call(F::Pow, {Expr::x(), Expr::num(0.5)}), "einrt::program::pow<T>(x, T(0.5))"},
      {Expr::binary(K::Div, Expr::num(1), Expr::call(F::Sigmoid, {Expr::y()})), "(T(1) / einrt::program::sigmoid<T>(y))"},
      {Expr::call(F::Max, {Expr::x(), Expr::num(-2.25)}), "einrt::program::max<T>(x, T(-2.25))"},
      {Expr::num(0.1), "T(0.10000000000000001)"},
      {Expr::call(F::Erf, {Expr::x()}), "einrt::program::erf<T>(x)"},
      {Expr::call(F::Where, {Expr::y(), Expr::x(), Expr::unary(K::Neg, Expr::num(HUGE_VAL))}),
       "einrt::program::where<T>(y, x, (-einrt::program::infinity<T>()))"},
      {Expr::num(-HUGE_VAL), "(-einrt::program::infinity<T>())"},
  };
  for (const auto& c : cases) CHECK(joinExpressionSource(c.e) == c.source);
  CHECK_THROWS_AS(joinExpressionSource(Expr::call(F::Where, {Expr::x()})), InputError);
  CHECK_THROWS_AS(joinExpressionSource(Expr::num(NAN)), InputError);
  CHECK(aggCombineSource(Reduce::Max) == "einrt::program::max<T>(a, b)");
  CHECK(aggIdentitySource(Reduce::Min) == "einrt::program::infinity<T>()");
}

TEST_CASE("every function of the table is emitted as its einrt::program template") {
  for (const ScalarFunctionInfo& f : scalarFunctions()) {
    CAPTURE(std::string(f.name));
    std::string expected = "einrt::program::" + std::string(f.name) + "<T>(";
    for (std::size_t i = 0; i < f.arity; ++i) expected += i ? ", x" : "x";
    CHECK(joinExpressionSource(Expr::call(f.function, std::vector<Expr>(f.arity, Expr::x()))) == expected + ")");
  }
}
