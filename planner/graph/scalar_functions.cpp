#include "planner/graph/scalar_functions.h"

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
// C's truth: any nonzero condition, NaN included, picks the first branch; -0 picks the second.
double evalWhere(Args a) { return a[0] != 0.0 ? a[1] : a[2]; }

using F = ScalarFunction;

constexpr ScalarFunctionInfo kTable[] = {
    {F::Exp, "exp", 1, evalExp, "einrt::program::exp"},
    {F::Log, "log", 1, evalLog, "einrt::program::log"},
    {F::Sqrt, "sqrt", 1, evalSqrt, "einrt::program::sqrt"},
    {F::Rsqrt, "rsqrt", 1, evalRsqrt, "einrt::program::rsqrt"},
    {F::Abs, "abs", 1, evalAbs, "einrt::program::abs"},
    {F::Tanh, "tanh", 1, evalTanh, "einrt::program::tanh"},
    {F::Sigmoid, "sigmoid", 1, evalSigmoid, "einrt::program::sigmoid"},
    {F::Relu, "relu", 1, evalRelu, "einrt::program::relu"},
    {F::Max, "max", 2, evalMax, "einrt::program::max"},
    {F::Min, "min", 2, evalMin, "einrt::program::min"},
    {F::Pow, "pow", 2, evalPow, "einrt::program::pow"},
    {F::Erf, "erf", 1, evalErf, "einrt::program::erf"},
    {F::Where, "where", 3, evalWhere, "einrt::program::where"},
};

// scalarFunctionInfo indexes the table by the enum's value, so the rows must follow it.
constexpr bool rowsFollowTheEnum() {
  for (std::size_t i = 0; i < std::size(kTable); ++i)
    if (static_cast<std::size_t>(kTable[i].function) != i || kTable[i].arity < 1 ||
        kTable[i].arity > kMaxScalarFunctionArity)
      return false;
  return std::size(kTable) == static_cast<std::size_t>(F::Where) + 1;
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
