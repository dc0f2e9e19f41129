#include "frontends/eval/scalar_expr_eval.h"

#include <array>
#include <span>
#include <stdexcept>
#include <string>

namespace eindecomp {

// The function's row gives its meaning; the arguments are evaluated first (none has side
// effects, so where's unused branch costs time, never a different result).
static double callFunction(const Expr& e, double x, double y) {
  const ScalarFunctionInfo& f = scalarFunctionInfo(e.function);
  if (e.args.size() != f.arity)
    throw std::invalid_argument("scalar function '" + std::string(f.name) + "' takes " + std::to_string(f.arity) +
                                " argument(s), not " + std::to_string(e.args.size()));
  std::array<double, kMaxScalarFunctionArity> args{};
  for (std::size_t i = 0; i < f.arity; ++i) args[i] = evaluateScalarExpr(e.args[i], x, y);
  return f.evaluate(std::span<const double>(args.data(), f.arity));
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
