// The join expressions, one row per function or operator, against values computed by
// hand (or by the C library function the language names); where's truth and infinities.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "frontends/eval/scalar_expr_eval.h"

using eindecomp::Expr;
using F = eindecomp::ScalarFunction;
using K = Expr::Kind;

namespace {

struct ExprCase {
  const char* what;
  Expr expr;
  double x, y, expected;
};

Expr call1(F f, Expr a) { return Expr::call(f, {std::move(a)}); }
Expr call2(F f, Expr a, Expr b) { return Expr::call(f, {std::move(a), std::move(b)}); }
Expr where(Expr c, Expr a, Expr b) { return Expr::call(F::Where, {std::move(c), std::move(a), std::move(b)}); }

}  // namespace

TEST_CASE("scalar expressions evaluate like their definitions") {
  const Expr x = Expr::x(), y = Expr::y();
  const ExprCase cases[] = {
      {"number", Expr::num(2.5), 1, 2, 2.5},
      {"x", x, 3, 4, 3},
      {"y", y, 3, 4, 4},
      {"neg", Expr::unary(K::Neg, x), 3, 0, -3},
      {"add", Expr::binary(K::Add, x, y), 3, 4, 7},
      {"sub", Expr::binary(K::Sub, x, y), 3, 4, -1},
      {"mul", Expr::binary(K::Mul, x, y), 3, 4, 12},
      {"div", Expr::binary(K::Div, x, y), 3, 4, 0.75},
      {"sqdiff (x-y)*(x-y)", Expr::binary(K::Mul, Expr::binary(K::Sub, x, y), Expr::binary(K::Sub, x, y)), 1, 4, 9},
      {"absdiff abs(x-y)", call1(F::Abs, Expr::binary(K::Sub, x, y)), 1, 4, 3},
      {"exp", call1(F::Exp, x), 1, 0, std::exp(1.0)},
      {"log", call1(F::Log, x), std::exp(2.0), 0, 2},
      {"sqrt", call1(F::Sqrt, x), 16, 0, 4},
      {"rsqrt", call1(F::Rsqrt, x), 16, 0, 0.25},
      {"abs", call1(F::Abs, x), -2, 0, 2},
      {"tanh", call1(F::Tanh, x), 0.5, 0, std::tanh(0.5)},
      {"sigmoid at 0", call1(F::Sigmoid, x), 0, 0, 0.5},
      {"sigmoid", call1(F::Sigmoid, x), 2, 0, 1 / (1 + std::exp(-2.0))},
      {"relu negative", call1(F::Relu, x), -3, 0, 0},
      {"relu positive", call1(F::Relu, x), 3, 0, 3},
      {"max", call2(F::Max, x, y), 3, 4, 4},
      {"min", call2(F::Min, x, y), 3, 4, 3},
      {"pow", call2(F::Pow, x, y), 2, 10, 1024},
      {"erf", call1(F::Erf, x), 0.5, 0, std::erf(0.5)},
      {"erf is odd", call1(F::Erf, x), -0.5, 0, -std::erf(0.5)},
      {"sin", call1(F::Sin, x), 0.5, 0, std::sin(0.5)},
      {"cos of a rotary angle", call1(F::Cos, x), 4000.25, 0, std::cos(4000.25)},
      {"where, true", where(y, x, Expr::num(7)), 3, 1, 3},
      {"where, false", where(y, x, Expr::num(7)), 3, 0, 7},
      {"where, negative is true", where(y, x, Expr::num(7)), 3, -2, 3},
      {"exp(x - y), softmax's join", call1(F::Exp, Expr::binary(K::Sub, x, y)), 3, 1, std::exp(2.0)},
      {"nested: x * 0.125 + min(x, -y)",
       Expr::binary(K::Add, Expr::binary(K::Mul, x, Expr::num(0.125)), call2(F::Min, x, Expr::unary(K::Neg, y))), 8,
       2, -1},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    CHECK(eindecomp::evaluateScalarExpr(c.expr, c.x, c.y) == doctest::Approx(c.expected).epsilon(1e-15));
  }
}

TEST_CASE("max, min and relu propagate NaN like NumPy") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(std::isnan(eindecomp::nanPropagatingMax(nan, 1.0)));
  CHECK(std::isnan(eindecomp::nanPropagatingMax(1.0, nan)));
  CHECK(std::isnan(eindecomp::nanPropagatingMin(nan, 1.0)));
  CHECK(std::isnan(eindecomp::nanPropagatingMin(1.0, nan)));
  CHECK(std::isnan(eindecomp::evaluateScalarExpr(call1(F::Relu, Expr::x()), nan, 0)));
}

TEST_CASE("where follows C's truth and infinities flow through") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const Expr x = Expr::x(), y = Expr::y(), negInf = Expr::unary(K::Neg, Expr::num(inf));
  CHECK(eindecomp::evaluateScalarExpr(where(y, x, negInf), 5, nan) == 5);  // NaN != 0: the first branch
  CHECK(eindecomp::evaluateScalarExpr(where(y, x, negInf), 5, -0.0) == -inf);
  CHECK(eindecomp::evaluateScalarExpr(where(y, x, negInf), 5, 0) == -inf);
  CHECK(std::isnan(eindecomp::evaluateScalarExpr(where(y, x, negInf), nan, 1)));
  CHECK(eindecomp::evaluateScalarExpr(call1(F::Exp, negInf), 0, 0) == 0);
  CHECK(eindecomp::evaluateScalarExpr(call1(F::Erf, Expr::num(inf)), 0, 0) == 1);
}

TEST_CASE("calls with the wrong number of arguments are rejected") {
  CHECK_THROWS_AS(eindecomp::evaluateScalarExpr(call2(F::Exp, Expr::x(), Expr::y()), 1, 0), std::invalid_argument);
  CHECK_THROWS_AS(eindecomp::evaluateScalarExpr(call1(F::Where, Expr::x()), 1, 0), std::invalid_argument);
}
