// The join expressions, one row per function or operator, against values computed by
// hand (or by the C library function the language names).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "planner/eval/scalar_expr_eval.h"

using eindecomp::Expr;
using K = Expr::Kind;

namespace {

struct ExprCase {
  const char* what;
  Expr expr;
  double x, y, expected;
};

Expr call1(const char* f, Expr a) { return Expr::call(f, {std::move(a)}); }
Expr call2(const char* f, Expr a, Expr b) { return Expr::call(f, {std::move(a), std::move(b)}); }

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
      {"absdiff abs(x-y)", call1("abs", Expr::binary(K::Sub, x, y)), 1, 4, 3},
      {"exp", call1("exp", x), 1, 0, std::exp(1.0)},
      {"log", call1("log", x), std::exp(2.0), 0, 2},
      {"sqrt", call1("sqrt", x), 16, 0, 4},
      {"rsqrt", call1("rsqrt", x), 16, 0, 0.25},
      {"abs", call1("abs", x), -2, 0, 2},
      {"tanh", call1("tanh", x), 0.5, 0, std::tanh(0.5)},
      {"sigmoid at 0", call1("sigmoid", x), 0, 0, 0.5},
      {"sigmoid", call1("sigmoid", x), 2, 0, 1 / (1 + std::exp(-2.0))},
      {"relu negative", call1("relu", x), -3, 0, 0},
      {"relu positive", call1("relu", x), 3, 0, 3},
      {"max", call2("max", x, y), 3, 4, 4},
      {"min", call2("min", x, y), 3, 4, 3},
      {"pow", call2("pow", x, y), 2, 10, 1024},
      {"exp(x - y), softmax's join", call1("exp", Expr::binary(K::Sub, x, y)), 3, 1, std::exp(2.0)},
      {"nested: x * 0.125 + min(x, -y)",
       Expr::binary(K::Add, Expr::binary(K::Mul, x, Expr::num(0.125)), call2("min", x, Expr::unary(K::Neg, y))), 8,
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
  CHECK(std::isnan(eindecomp::evaluateScalarExpr(call1("relu", Expr::x()), nan, 0)));
}

TEST_CASE("unknown functions are rejected") {
  CHECK_THROWS_AS(eindecomp::evaluateScalarExpr(call1("cosh", Expr::x()), 1, 0), std::invalid_argument);
  CHECK_THROWS_AS(eindecomp::evaluateScalarExpr(call2("exp", Expr::x(), Expr::y()), 1, 0), std::invalid_argument);
}
