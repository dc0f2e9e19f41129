#include "codegen/kernels/join_source.h"

#include <cstdio>
#include <map>

#include "planner/graph/diagnostic.h"

namespace eindecomp::codegen {

namespace {

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return std::string("T(") + buf + ")";
}

std::string arg(const Expr& e, std::size_t i) {
  if (i >= e.args.size()) throw InputError({{"", 0, 0}, "malformed join expression: missing operand"});
  return joinExpressionSource(e.args[i]);
}

}  // namespace

std::string joinExpressionSource(const Expr& e) {
  using K = Expr::Kind;
  switch (e.kind) {
    case K::Number: return number(e.number);
    case K::VarX: return "x";
    case K::VarY: return "y";
    case K::Neg: return "(-" + arg(e, 0) + ")";
    case K::Add: return "(" + arg(e, 0) + " + " + arg(e, 1) + ")";
    case K::Sub: return "(" + arg(e, 0) + " - " + arg(e, 1) + ")";
    case K::Mul: return "(" + arg(e, 0) + " * " + arg(e, 1) + ")";
    case K::Div: return "(" + arg(e, 0) + " / " + arg(e, 1) + ")";
    case K::Call: {
      static const std::map<std::string, int> arity{{"exp", 1},  {"log", 1},     {"sqrt", 1}, {"rsqrt", 1},
                                                    {"abs", 1},  {"tanh", 1},    {"sigmoid", 1},
                                                    {"relu", 1}, {"max", 2},     {"min", 2},  {"pow", 2}};
      auto it = arity.find(e.function);
      if (it == arity.end() || static_cast<int>(e.args.size()) != it->second)
        throw InputError({{"", 0, 0}, "join function '" + e.function + "' is not supported by the code generator"});
      std::string s = "einrt::program::" + e.function + "<T>(" + arg(e, 0);
      if (it->second == 2) s += ", " + arg(e, 1);
      return s + ")";
    }
  }
  throw InputError({{"", 0, 0}, "malformed join expression"});
}

std::string aggCombineSource(AggOp agg) {
  switch (agg) {
    case AggOp::Sum: return "(a + b)";
    case AggOp::Max: return "einrt::program::max<T>(a, b)";
    case AggOp::Min: return "einrt::program::min<T>(a, b)";
    case AggOp::Prod: return "(a * b)";
  }
  return "(a + b)";
}

std::string aggIdentitySource(AggOp agg) {
  switch (agg) {
    case AggOp::Sum: return "T(0)";
    case AggOp::Max: return "-einrt::program::infinity<T>()";
    case AggOp::Min: return "einrt::program::infinity<T>()";
    case AggOp::Prod: return "T(1)";
  }
  return "T(0)";
}

}  // namespace eindecomp::codegen
