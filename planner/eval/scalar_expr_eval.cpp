#include "planner/eval/scalar_expr_eval.h"

#include <cmath>
#include <stdexcept>

namespace eindecomp {

double nanPropagatingMax(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::nan("");
  return a < b ? b : a;
}

double nanPropagatingMin(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::nan("");
  return b < a ? b : a;
}

static double callFunction(const Expr& e, double x, double y) {
  const std::string& f = e.function;
  const std::size_t arity = e.args.size();
  auto arg = [&](std::size_t i) { return evaluateScalarExpr(e.args[i], x, y); };
  if (arity == 1) {
    const double a = arg(0);
    if (f == "exp") return std::exp(a);
    if (f == "log") return std::log(a);
    if (f == "sqrt") return std::sqrt(a);
    if (f == "rsqrt") return 1.0 / std::sqrt(a);
    if (f == "abs") return std::fabs(a);
    if (f == "tanh") return std::tanh(a);
    if (f == "sigmoid") return 1.0 / (1.0 + std::exp(-a));
    if (f == "relu") return nanPropagatingMax(a, 0.0);
  } else if (arity == 2) {
    const double a = arg(0), b = arg(1);
    if (f == "max") return nanPropagatingMax(a, b);
    if (f == "min") return nanPropagatingMin(a, b);
    if (f == "pow") return std::pow(a, b);
  }
  throw std::invalid_argument("no scalar function '" + f + "' of " + std::to_string(arity) + " argument(s)");
}

double evaluateScalarExpr(const Expr& e, double x, double y) {
  switch (e.kind) {
    case Expr::Kind::Number: return e.number;
    case Expr::Kind::VarX: return x;
    case Expr::Kind::VarY: return y;
    case Expr::Kind::Neg: return -evaluateScalarExpr(e.args.at(0), x, y);
    case Expr::Kind::Add: return evaluateScalarExpr(e.args.at(0), x, y) + evaluateScalarExpr(e.args.at(1), x, y);
    case Expr::Kind::Sub: return evaluateScalarExpr(e.args.at(0), x, y) - evaluateScalarExpr(e.args.at(1), x, y);
    case Expr::Kind::Mul: return evaluateScalarExpr(e.args.at(0), x, y) * evaluateScalarExpr(e.args.at(1), x, y);
    case Expr::Kind::Div: return evaluateScalarExpr(e.args.at(0), x, y) / evaluateScalarExpr(e.args.at(1), x, y);
    case Expr::Kind::Call: return callFunction(e, x, y);
  }
  throw std::invalid_argument("unknown expression kind");
}

}  // namespace eindecomp
