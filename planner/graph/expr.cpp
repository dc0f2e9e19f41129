#include "planner/graph/expr.h"

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
      std::string s = e.function + "(";
      for (std::size_t i = 0; i < e.args.size(); ++i) s += (i ? ", " : "") + toString(e.args[i]);
      return s + ")";
    }
  }
  return "";
}

}  // namespace eindecomp
