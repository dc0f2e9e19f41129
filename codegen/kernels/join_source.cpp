#include "codegen/kernels/join_source.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "planner/graph/diagnostic.h"

namespace eindecomp::codegen {

namespace {

// T(literal) for finite numbers; infinity has no C++ literal, and a NaN constant never
// comes from the parser (it has no NaN literal), so a hand-built one is refused rather
// than emitted as something that compiles to a different value.
std::string number(double v) {
  if (std::isnan(v)) throw InputError({{"", 0, 0}, "a join expression holds a NaN constant, which cannot be emitted"});
  if (std::isinf(v)) return v > 0 ? "einrt::program::infinity<T>()" : "(-einrt::program::infinity<T>())";
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
      const ScalarFunctionInfo& f = scalarFunctionInfo(e.function);
      if (e.args.size() != f.arity)
        throw InputError({{"", 0, 0}, "join function '" + std::string(f.name) + "' takes " +
                                          std::to_string(f.arity) + " argument(s), not " + std::to_string(e.args.size())});
      std::string s = std::string(f.emittedName) + "<T>(";
      for (std::size_t i = 0; i < f.arity; ++i) s += (i ? ", " : "") + arg(e, i);
      return s + ")";
    }
  }
  throw InputError({{"", 0, 0}, "malformed join expression"});
}

std::string aggCombineSource(Reduce agg) {
  switch (agg) {
    case Reduce::Sum: return "(a + b)";
    // The max and min aggregations fold with the functions of the same name, NaN rules included.
    case Reduce::Max: return std::string(scalarFunctionInfo(ScalarFunction::Max).emittedName) + "<T>(a, b)";
    case Reduce::Min: return std::string(scalarFunctionInfo(ScalarFunction::Min).emittedName) + "<T>(a, b)";
    case Reduce::Prod: return "(a * b)";
  }
  return "(a + b)";
}

std::string aggIdentitySource(Reduce agg) {
  switch (agg) {
    case Reduce::Sum: return "T(0)";
    case Reduce::Max: return "-einrt::program::infinity<T>()";
    case Reduce::Min: return "einrt::program::infinity<T>()";
    case Reduce::Prod: return "T(1)";
  }
  return "T(0)";
}

}  // namespace eindecomp::codegen
