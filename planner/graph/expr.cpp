#include "planner/graph/expr.h"

#include <cmath>
#include <sstream>

namespace eindecomp {

bool operator==(const Expr& a, const Expr& b) {
  return a.kind == b.kind && a.number == b.number && a.function == b.function && a.args == b.args;
}

bool usesY(const Expr& e) {
  if (e.kind == Expr::Kind::VarY) return true;
  for (const auto& a : e.args)
    if (usesY(a)) return true;
  return false;
}

std::string toString(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::Number: {
      // The parser reads inf (and -inf through unary minus) but has no NaN literal; 0 / 0
      // is NaN in the evaluator and in the emitted code alike.
      if (std::isinf(e.number)) return e.number > 0 ? "inf" : "-inf";
      if (std::isnan(e.number)) return "(0 / 0)";
      std::ostringstream os;
      os.precision(17);
      os << e.number;
      return os.str();
    }
    case Expr::Kind::VarX: return "x";
    case Expr::Kind::VarY: return "y";
    case Expr::Kind::Neg: return "(-" + toString(e.args[0]) + ")";
    case Expr::Kind::Add: return "(" + toString(e.args[0]) + " + " + toString(e.args[1]) + ")";
    case Expr::Kind::Sub: return "(" + toString(e.args[0]) + " - " + toString(e.args[1]) + ")";
    case Expr::Kind::Mul: return "(" + toString(e.args[0]) + " * " + toString(e.args[1]) + ")";
    case Expr::Kind::Div: return "(" + toString(e.args[0]) + " / " + toString(e.args[1]) + ")";
    case Expr::Kind::Call: {
      std::string s = std::string(scalarFunctionInfo(e.function).name) + "(";
      for (std::size_t i = 0; i < e.args.size(); ++i) s += (i ? ", " : "") + toString(e.args[i]);
      return s + ")";
    }
  }
  return "";
}

}  // namespace eindecomp

namespace eindecomp {

namespace {

// Folds a product tree: counts of x and y, and the numeric factor; false for anything else.
bool foldProduct(const Expr& e, int& xs, int& ys, double& scale) {
  switch (e.kind) {
    case Expr::Kind::VarX: ++xs; return true;
    case Expr::Kind::VarY: ++ys; return true;
    case Expr::Kind::Number: scale *= e.number; return true;
    case Expr::Kind::Mul: return foldProduct(e.args[0], xs, ys, scale) && foldProduct(e.args[1], xs, ys, scale);
    case Expr::Kind::Div:
      if (e.args[1].kind != Expr::Kind::Number || e.args[1].number == 0) return false;
      scale /= e.args[1].number;
      return foldProduct(e.args[0], xs, ys, scale);
    default: return false;
  }
}

}  // namespace

std::optional<double> productScale(const Expr& e) {
  int xs = 0, ys = 0;
  double scale = 1.0;
  if (!foldProduct(e, xs, ys, scale) || xs != 1 || ys != 1) return std::nullopt;
  return scale;
}

}  // namespace eindecomp
