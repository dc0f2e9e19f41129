// The scalar expression tree of a node's join (SPEC 1): a function of x (first operand)
// and y (second operand) built from numbers, + - * /, unary minus and the functions
// exp log sqrt rsqrt abs tanh sigmoid relu max min pow. Named joins (mul, add, ...) are
// expanded into this tree by the loader, so everything downstream — the reference
// evaluator and the kernel generator — sees a single representation.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace eindecomp {

struct Expr {
  enum class Kind { Number, VarX, VarY, Neg, Add, Sub, Mul, Div, Call };
  Kind kind = Kind::VarX;
  double number = 0.0;       // Kind::Number
  std::string function;      // Kind::Call: exp log sqrt rsqrt abs tanh sigmoid relu max min pow
  std::vector<Expr> args;    // operands: 1 for Neg and unary calls, 2 for binary ops, max, min, pow

  static Expr num(double v) { Expr e; e.kind = Kind::Number; e.number = v; return e; }
  static Expr x() { Expr e; e.kind = Kind::VarX; return e; }
  static Expr y() { Expr e; e.kind = Kind::VarY; return e; }
  static Expr unary(Kind k, Expr a) { Expr e; e.kind = k; e.args = {std::move(a)}; return e; }
  static Expr binary(Kind k, Expr a, Expr b) { Expr e; e.kind = k; e.args = {std::move(a), std::move(b)}; return e; }
  static Expr call(std::string fn, std::vector<Expr> args) { Expr e; e.kind = Kind::Call; e.function = std::move(fn); e.args = std::move(args); return e; }
};

bool operator==(const Expr& a, const Expr& b);

// True when the expression mentions y anywhere.
bool usesY(const Expr& e);

// A canonical, fully parenthesised text form such as "exp((x - y))"; parseable again.
std::string toString(const Expr& e);

// When the expression is a product of x once, y once and numbers (numbers may also
// divide: "x * y * 0.125", "0.5 * (x * y) / 4"), the product of the numbers; else nothing.
// A contraction with such a join is a GEMM with that alpha.
std::optional<double> productScale(const Expr& e);

}  // namespace eindecomp
