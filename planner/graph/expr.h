// The scalar expression tree of a node's join (SPEC 1): a function of x (first operand)
// and y (second operand) built from numbers, + - * /, unary minus and calls of the
// functions of planner/graph/scalar_functions.h. Named joins (mul, add, ...) are
// expanded into this tree by the loader, so everything downstream — the reference
// evaluator and the kernel generator — sees a single representation.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "planner/graph/scalar_functions.h"

namespace eindecomp {

struct Expr {
  enum class Kind { Number, VarX, VarY, Neg, Add, Sub, Mul, Div, Call };
  Kind kind = Kind::VarX;
  double number = 0.0;                            // Kind::Number; may be infinite
  ScalarFunction function = ScalarFunction::Exp;  // Kind::Call; a row of the function table
  std::vector<Expr> args;                         // 1 for Neg, 2 for + - * /, the arity for Call

  static Expr num(double v) { Expr e; e.kind = Kind::Number; e.number = v; return e; }
  static Expr x() { Expr e; e.kind = Kind::VarX; return e; }
  static Expr y() { Expr e; e.kind = Kind::VarY; return e; }
  static Expr unary(Kind k, Expr a) { Expr e; e.kind = k; e.args = {std::move(a)}; return e; }
  static Expr binary(Kind k, Expr a, Expr b) { Expr e; e.kind = k; e.args = {std::move(a), std::move(b)}; return e; }
  static Expr call(ScalarFunction fn, std::vector<Expr> args) { Expr e; e.kind = Kind::Call; e.function = fn; e.args = std::move(args); return e; }
};

bool operator==(const Expr& a, const Expr& b);

// True when the expression mentions y anywhere.
bool usesY(const Expr& e);

// A canonical, fully parenthesised text form such as "exp((x - y))"; parseable again:
// numbers keep 17 significant digits, infinities print as inf and -inf, and NaN, which
// the grammar has no literal for, as (0 / 0).
std::string toString(const Expr& e);

// When the expression is a product of x once, y once and numbers (numbers may also
// divide: "x * y * 0.125", "0.5 * (x * y) / 4"), the product of the numbers; else nothing.
// A contraction with such a join is a GEMM with that alpha.
std::optional<double> productScale(const Expr& e);

}  // namespace eindecomp
