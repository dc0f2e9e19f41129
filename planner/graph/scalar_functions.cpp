#include "planner/graph/scalar_functions.h"

#include <cmath>
#include <stdexcept>

#include "planner/graph/expr.h"

namespace eindecomp {

double nanPropagatingMax(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::nan("");
  return a < b ? b : a;
}

double nanPropagatingMin(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::nan("");
  return b < a ? b : a;
}

namespace {

using Args = std::span<const double>;

double evalExp(Args a) { return std::exp(a[0]); }
double evalLog(Args a) { return std::log(a[0]); }
double evalSqrt(Args a) { return std::sqrt(a[0]); }
double evalRsqrt(Args a) { return 1.0 / std::sqrt(a[0]); }
double evalAbs(Args a) { return std::fabs(a[0]); }
double evalTanh(Args a) { return std::tanh(a[0]); }
double evalSigmoid(Args a) { return 1.0 / (1.0 + std::exp(-a[0])); }
double evalRelu(Args a) { return nanPropagatingMax(a[0], 0.0); }
double evalMax(Args a) { return nanPropagatingMax(a[0], a[1]); }
double evalMin(Args a) { return nanPropagatingMin(a[0], a[1]); }
double evalPow(Args a) { return std::pow(a[0], a[1]); }
double evalErf(Args a) { return std::erf(a[0]); }
double evalSin(Args a) { return std::sin(a[0]); }
double evalCos(Args a) { return std::cos(a[0]); }
// C's truth: any nonzero condition, NaN included, picks the first branch; -0 picks the second.
double evalWhere(Args a) { return a[0] != 0.0 ? a[1] : a[2]; }
// Comparisons give 1 or 0; a NaN compares false.
double evalLt(Args a) { return a[0] < a[1] ? 1.0 : 0.0; }
double evalLe(Args a) { return a[0] <= a[1] ? 1.0 : 0.0; }
double evalGt(Args a) { return a[0] > a[1] ? 1.0 : 0.0; }
double evalGe(Args a) { return a[0] >= a[1] ? 1.0 : 0.0; }
double evalEq(Args a) { return a[0] == a[1] ? 1.0 : 0.0; }

using F = ScalarFunction;
using K = Expr::Kind;
using Exprs = std::vector<Expr>;

Expr num(double v) { return Expr::num(v); }
Expr fn(F f, Exprs args) { return Expr::call(f, std::move(args)); }
Expr mul(Expr a, Expr b) { return Expr::binary(K::Mul, std::move(a), std::move(b)); }
Expr divide(Expr a, Expr b) { return Expr::binary(K::Div, std::move(a), std::move(b)); }
Expr sub(Expr a, Expr b) { return Expr::binary(K::Sub, std::move(a), std::move(b)); }
// 1 where c is true (nonzero), else 0.
Expr indicator(Expr c) { return fn(F::Where, {std::move(c), num(1), num(0)}); }

Expr dExp(const Exprs& a, std::size_t) { return fn(F::Exp, {a[0]}); }
Expr dLog(const Exprs& a, std::size_t) { return divide(num(1), a[0]); }
Expr dSqrt(const Exprs& a, std::size_t) { return divide(num(0.5), fn(F::Sqrt, {a[0]})); }
Expr dRsqrt(const Exprs& a, std::size_t) { return divide(mul(num(-0.5), fn(F::Rsqrt, {a[0]})), a[0]); }
// sign(a), 0 at 0 (x / |x| is taken only where x is nonzero).
Expr dAbs(const Exprs& a, std::size_t) { return fn(F::Where, {a[0], divide(a[0], fn(F::Abs, {a[0]})), num(0)}); }
Expr dTanh(const Exprs& a, std::size_t) {
  return sub(num(1), mul(fn(F::Tanh, {a[0]}), fn(F::Tanh, {a[0]})));
}
Expr dSigmoid(const Exprs& a, std::size_t) {
  return mul(fn(F::Sigmoid, {a[0]}), sub(num(1), fn(F::Sigmoid, {a[0]})));
}
Expr dRelu(const Exprs& a, std::size_t) { return indicator(fn(F::Relu, {a[0]})); }
// max(a, b): 1 for the larger argument, 1/2 each on a tie.
Expr dExtremum(F f, const Exprs& a, std::size_t which) {
  const Expr& other = a[1 - which];
  return fn(F::Where, {sub(a[0], a[1]), indicator(sub(fn(f, {a[0], a[1]}), other)), num(0.5)});
}
Expr dMax(const Exprs& a, std::size_t which) { return dExtremum(F::Max, a, which); }
Expr dMin(const Exprs& a, std::size_t which) { return dExtremum(F::Min, a, which); }
Expr dPow(const Exprs& a, std::size_t which) {
  if (which == 0) return mul(a[1], fn(F::Pow, {a[0], sub(a[1], num(1))}));
  return mul(fn(F::Pow, {a[0], a[1]}), fn(F::Log, {a[0]}));
}
Expr dErf(const Exprs& a, std::size_t) {
  return mul(num(1.1283791670955126), fn(F::Exp, {Expr::unary(K::Neg, mul(a[0], a[0]))}));  // 2 / sqrt(pi)
}
Expr dSin(const Exprs& a, std::size_t) { return fn(F::Cos, {a[0]}); }
Expr dCos(const Exprs& a, std::size_t) { return Expr::unary(K::Neg, fn(F::Sin, {a[0]})); }
Expr dWhere(const Exprs& a, std::size_t which) {
  if (which == 0) return num(0);
  return which == 1 ? indicator(a[0]) : fn(F::Where, {a[0], num(0), num(1)});
}

// A comparison is a step: its derivative is 0 wherever it has one (torch.autograd gives
// masks no gradient either).
Expr dLt(const Exprs&, std::size_t) { return num(0); }
Expr dLe(const Exprs&, std::size_t) { return num(0); }
Expr dGt(const Exprs&, std::size_t) { return num(0); }
Expr dGe(const Exprs&, std::size_t) { return num(0); }
Expr dEq(const Exprs&, std::size_t) { return num(0); }

// Each function's value and derivative, by its enum name (einrt's list names the rows).
#define EINDECOMP_SCALAR_FUNCTION_ROW(E, name, arity) {F::E, #name, arity, eval##E, "einrt::program::" #name, d##E},
constexpr ScalarFunctionInfo kTable[] = {EINRT_SCALAR_FUNCTIONS(EINDECOMP_SCALAR_FUNCTION_ROW)};
#undef EINDECOMP_SCALAR_FUNCTION_ROW

// scalarFunctionInfo indexes the table by the enum's value, so the rows must follow it.
constexpr bool rowsFollowTheEnum() {
  for (std::size_t i = 0; i < std::size(kTable); ++i)
    if (static_cast<std::size_t>(kTable[i].function) != i || kTable[i].arity < 1 ||
        kTable[i].arity > kMaxScalarFunctionArity || kTable[i].name != einrt::kScalarFunctions[i].name)
      return false;
  return std::size(kTable) == einrt::kScalarFunctionCount;
}
static_assert(rowsFollowTheEnum(), "kTable must list every ScalarFunction once, in enum order, with a valid arity");

}  // namespace

std::span<const ScalarFunctionInfo> scalarFunctions() { return kTable; }

const ScalarFunctionInfo& scalarFunctionInfo(ScalarFunction f) {
  const auto i = static_cast<std::size_t>(f);
  if (i >= std::size(kTable)) throw std::invalid_argument("no scalar function number " + std::to_string(i));
  return kTable[i];
}

const ScalarFunctionInfo* findScalarFunction(std::string_view name) {
  for (const auto& row : kTable)
    if (row.name == name) return &row;
  return nullptr;
}

std::vector<std::string> scalarFunctionNames() {
  std::vector<std::string> names;
  for (const auto& row : kTable) names.emplace_back(row.name);
  return names;
}

}  // namespace eindecomp
