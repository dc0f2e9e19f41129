#include "frontends/autodiff/expr_derivative.h"

#include <cmath>

#include "planner/graph/scalar_functions.h"

namespace eindecomp::autodiff {

namespace {

using K = Expr::Kind;

Expr add(Expr a, Expr b) { return simplify(Expr::binary(K::Add, std::move(a), std::move(b))); }
Expr mul(Expr a, Expr b) { return simplify(Expr::binary(K::Mul, std::move(a), std::move(b))); }

}  // namespace

bool isNumber(const Expr& e, double v) { return e.kind == K::Number && e.number == v; }

bool usesX(const Expr& e) {
  if (e.kind == K::VarX) return true;
  for (const auto& a : e.args)
    if (usesX(a)) return true;
  return false;
}

Expr simplify(const Expr& e) {
  if (e.args.empty()) return e;
  Expr s = e;
  for (auto& a : s.args) a = simplify(a);
  auto number = [](const Expr& a) { return a.kind == K::Number; };
  switch (s.kind) {
    case K::Neg:
      if (number(s.args[0])) return Expr::num(-s.args[0].number);
      if (s.args[0].kind == K::Neg) return s.args[0].args[0];
      return s;
    case K::Add:
      if (number(s.args[0]) && number(s.args[1])) return Expr::num(s.args[0].number + s.args[1].number);
      if (isNumber(s.args[0], 0)) return s.args[1];
      if (isNumber(s.args[1], 0)) return s.args[0];
      return s;
    case K::Sub:
      if (number(s.args[0]) && number(s.args[1])) return Expr::num(s.args[0].number - s.args[1].number);
      if (isNumber(s.args[1], 0)) return s.args[0];
      if (isNumber(s.args[0], 0)) return simplify(Expr::unary(K::Neg, s.args[1]));
      return s;
    case K::Mul:
      if (number(s.args[0]) && number(s.args[1])) return Expr::num(s.args[0].number * s.args[1].number);
      if (isNumber(s.args[0], 0) || isNumber(s.args[1], 0)) return Expr::num(0);
      if (isNumber(s.args[0], 1)) return s.args[1];
      if (isNumber(s.args[1], 1)) return s.args[0];
      if (isNumber(s.args[0], -1)) return simplify(Expr::unary(K::Neg, s.args[1]));
      if (isNumber(s.args[1], -1)) return simplify(Expr::unary(K::Neg, s.args[0]));
      return s;
    case K::Div:
      if (number(s.args[0]) && number(s.args[1]) && s.args[1].number != 0)
        return Expr::num(s.args[0].number / s.args[1].number);
      if (isNumber(s.args[0], 0)) return Expr::num(0);
      if (isNumber(s.args[1], 1)) return s.args[0];
      return s;
    case K::Call: {
      // where(c, a, a) is a; where(number, a, b) picks by C's truth.
      if (s.function == ScalarFunction::Where) {
        if (number(s.args[0]) && !std::isnan(s.args[0].number)) return s.args[0].number != 0 ? s.args[1] : s.args[2];
        if (s.args[1] == s.args[2]) return s.args[1];
      }
      return s;
    }
    default: return s;
  }
}

Expr partial(const Expr& e, Var v) {
  switch (e.kind) {
    case K::Number: return Expr::num(0);
    case K::VarX: return Expr::num(v == Var::X ? 1 : 0);
    case K::VarY: return Expr::num(v == Var::Y ? 1 : 0);
    case K::Neg: return simplify(Expr::unary(K::Neg, partial(e.args[0], v)));
    case K::Add: return add(partial(e.args[0], v), partial(e.args[1], v));
    case K::Sub: return simplify(Expr::binary(K::Sub, partial(e.args[0], v), partial(e.args[1], v)));
    case K::Mul: return add(mul(partial(e.args[0], v), e.args[1]), mul(e.args[0], partial(e.args[1], v)));
    case K::Div: {
      // (a / b)' = a' / b - a b' / b^2
      const Expr da = partial(e.args[0], v), db = partial(e.args[1], v);
      const Expr first = simplify(Expr::binary(K::Div, da, e.args[1]));
      if (isNumber(db, 0)) return first;
      const Expr second = simplify(Expr::binary(K::Div, mul(e.args[0], db), mul(e.args[1], e.args[1])));
      return simplify(Expr::binary(K::Sub, first, second));
    }
    case K::Call: {
      const ScalarFunctionInfo& info = scalarFunctionInfo(e.function);
      Expr sum = Expr::num(0);
      for (std::size_t i = 0; i < e.args.size(); ++i) {
        const Expr inner = partial(e.args[i], v);
        if (isNumber(inner, 0)) continue;
        sum = add(sum, mul(simplify(info.partial(e.args, i)), inner));
      }
      return sum;
    }
  }
  return Expr::num(0);
}

std::pair<double, Expr> splitCoefficient(const Expr& e) {
  switch (e.kind) {
    case K::Number: return {e.number, Expr::num(1)};
    case K::Neg: {
      auto [c, r] = splitCoefficient(e.args[0]);
      return {-c, r};
    }
    case K::Mul: {
      auto [ca, ra] = splitCoefficient(e.args[0]);
      auto [cb, rb] = splitCoefficient(e.args[1]);
      return {ca * cb, mul(ra, rb)};
    }
    case K::Div:
      if (e.args[1].kind == K::Number && e.args[1].number != 0) {
        auto [c, r] = splitCoefficient(e.args[0]);
        return {c / e.args[1].number, r};
      }
      return {1.0, e};
    default: return {1.0, e};
  }
}

std::optional<Expr> rewrite(const Expr& e, const Expr& value, const Expr& asValue, const std::optional<Expr>& asX,
                            const std::optional<Expr>& asY) {
  if (e == value) return asValue;
  if (e.kind == K::VarX) return asX;
  if (e.kind == K::VarY) return asY;
  Expr out = e;
  for (auto& a : out.args) {
    auto r = rewrite(a, value, asValue, asX, asY);
    if (!r) return std::nullopt;
    a = std::move(*r);
  }
  return out;
}

bool containsSubtree(const Expr& e, const Expr& part) {
  if (e == part) return true;
  for (const auto& a : e.args)
    if (containsSubtree(a, part)) return true;
  return false;
}

Expr yAsX(const Expr& e) {
  if (e.kind == Expr::Kind::VarY) return Expr::x();
  Expr out = e;
  for (auto& a : out.args) a = yAsX(a);
  return out;
}

}  // namespace eindecomp::autodiff
