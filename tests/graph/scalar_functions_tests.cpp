// The one table of scalar functions (planner/graph/scalar_functions.h): every row parses
// with its arity and is refused with one argument too many or too few, lookups agree with
// the rows, the new rows (erf, where) and the inf literal evaluate as documented, and an
// expression using them prints and parses back to the same tree.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "planner/graph/expr_parser.h"
#include "planner/graph/scalar_functions.h"

using eindecomp::Expr;
using eindecomp::InputError;
using eindecomp::parseExpr;
using eindecomp::ScalarFunction;
using eindecomp::ScalarFunctionInfo;
using eindecomp::scalarFunctions;

namespace {

// "name(x, x, ...)" with `count` arguments.
std::string callText(const ScalarFunctionInfo& f, std::size_t count) {
  std::string s = std::string(f.name) + "(";
  for (std::size_t i = 0; i < count; ++i) s += i ? ", x" : "x";
  return s + ")";
}

double evaluate(ScalarFunction f, std::vector<double> args) { return eindecomp::scalarFunctionInfo(f).evaluate(args); }

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

TEST_CASE("every function of the table parses with its arity and no other") {
  REQUIRE(scalarFunctions().size() == eindecomp::scalarFunctionNames().size());
  for (const ScalarFunctionInfo& f : scalarFunctions()) {
    CAPTURE(std::string(f.name));
    CHECK(&eindecomp::scalarFunctionInfo(f.function) == &f);
    CHECK(eindecomp::findScalarFunction(f.name) == &f);
    CHECK(eindecomp::isExpressionWord(std::string(f.name)));
    CHECK(f.emittedName == "einrt::program::" + std::string(f.name));
    const Expr e = parseExpr(callText(f, f.arity));
    CHECK(e.kind == Expr::Kind::Call);
    CHECK(e.function == f.function);
    CHECK(e.args.size() == f.arity);
    for (const std::size_t wrong : {f.arity - 1, f.arity + 1}) {
      if (wrong == 0) continue;  // "f()" fails earlier, at the missing argument
      CAPTURE(wrong);
      try {
        parseExpr(callText(f, wrong));
        FAIL("accepted a call with the wrong number of arguments");
      } catch (const InputError& err) {
        const std::string expected = "takes " + std::to_string(f.arity) + " argument" + (f.arity == 1 ? "" : "s") +
                                     ", not " + std::to_string(wrong);
        CHECK(err.diagnostic().message.find(expected) != std::string::npos);
      }
    }
  }
  CHECK(eindecomp::findScalarFunction("cosh") == nullptr);
  CHECK(eindecomp::findScalarFunction("") == nullptr);
}

TEST_CASE("erf, where and inf evaluate as documented") {
  using F = ScalarFunction;
  CHECK(evaluate(F::Sin, {0.5}) == std::sin(0.5));
  CHECK(evaluate(F::Cos, {-3.0}) == std::cos(-3.0));
  CHECK(evaluate(F::Erf, {0.5}) == std::erf(0.5));
  CHECK(evaluate(F::Erf, {-kInf}) == -1);
  CHECK(evaluate(F::Where, {1, 2, 3}) == 2);
  CHECK(evaluate(F::Where, {-0.5, 2, 3}) == 2);
  CHECK(evaluate(F::Where, {0, 2, 3}) == 3);
  CHECK(evaluate(F::Where, {-0.0, 2, 3}) == 3);
  CHECK(evaluate(F::Where, {kNaN, 2, 3}) == 2);  // NaN != 0, as in C
  CHECK(evaluate(F::Where, {1, -kInf, 3}) == -kInf);

  const Expr inf = parseExpr("inf");
  CHECK(inf.kind == Expr::Kind::Number);
  CHECK(inf.number == kInf);
  const Expr negInf = parseExpr("-inf");
  REQUIRE(negInf.kind == Expr::Kind::Neg);
  CHECK(negInf.args.at(0).number == kInf);
  CHECK(eindecomp::isExpressionWord("inf"));
  CHECK_FALSE(eindecomp::isExpressionWord("nan"));
  CHECK_THROWS_AS(parseExpr("nan"), InputError);
  CHECK_THROWS_AS(parseExpr("inf(x)"), InputError);
  CHECK_THROWS_AS(parseExpr("2inf"), InputError);
}

TEST_CASE("expressions with where, erf and infinities print and parse back") {
  struct Case {
    const char* text;
    const char* canonical;
  };
  const std::vector<Case> cases = {
      {"where(y, x, -inf)", "where(y, x, (-inf))"},
      {"erf(x / 1.4142135623730951) * 0.5", "(erf((x / 1.4142135623730951)) * 0.5)"},
      {"where(x - y, erf(x), inf) + -inf", "(where((x - y), erf(x), inf) + (-inf))"},
      {"max(x, -inf)", "max(x, (-inf))"},
  };
  for (const auto& c : cases) {
    CAPTURE(std::string(c.text));
    const Expr e = parseExpr(c.text);
    CHECK(eindecomp::toString(e) == c.canonical);
    CHECK((parseExpr(eindecomp::toString(e)) == e));
  }
  // Numbers built by hand print as text the parser reads back to the same value.
  CHECK(eindecomp::toString(Expr::num(kInf)) == "inf");
  CHECK(eindecomp::toString(Expr::num(-kInf)) == "-inf");
  // The grammar has no NaN literal; 0 / 0 is NaN wherever it is evaluated.
  CHECK(eindecomp::toString(Expr::num(kNaN)) == "(0 / 0)");
  CHECK((parseExpr("(0 / 0)") == Expr::binary(Expr::Kind::Div, Expr::num(0), Expr::num(0))));
}
