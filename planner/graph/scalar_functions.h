// The scalar functions a node's join may call (SPEC 1): einrt's one list of them
// (einrt/model/scalar_functions.h: names, arities, the einrt::program templates) with
// what the planner adds to each — its value in double precision (the reference
// evaluator's meaning, which the emitted code must match) and its derivative. The parser,
// the printer, the evaluator, autodiff and the code generator read this table; its rows
// follow einrt's list (checked at compile time), and no other list of names exists.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <einrt/model/scalar_functions.h>

namespace eindecomp {

struct Expr;

// In table order. Expr stores this, so a tree can only name a function that exists.
using ScalarFunction = einrt::ScalarFunction;

// The most arguments any function takes (where's three), so callers can evaluate the
// arguments into a fixed array.
inline constexpr std::size_t kMaxScalarFunctionArity = 3;

struct ScalarFunctionInfo {
  ScalarFunction function;
  std::string_view name;  // as written in a join: "exp"
  std::size_t arity;      // 1 to kMaxScalarFunctionArity
  // The value at the given arguments (exactly `arity` of them), in double; IEEE results
  // outside the domain (log(-1) is NaN), never an exception.
  double (*evaluate)(std::span<const double> args);
  // The function template the emitted code calls as EMITTED<T>(a, ...):
  // "einrt::program::exp".
  std::string_view emittedName;
  // The partial derivative with respect to argument `which`, as an expression in the
  // arguments (reverse-mode differentiation, frontends/autodiff; expr_derivative.h applies
  // the chain rule). The conventions are torch's where a function has a kink: relu and
  // abs have slope 0 at 0, max and min split a tie evenly (1/2 each), where's condition
  // has none.
  Expr (*partial)(const std::vector<Expr>& args, std::size_t which);
};

// Every function, in the order of the enum.
std::span<const ScalarFunctionInfo> scalarFunctions();

// The row of `f`.
const ScalarFunctionInfo& scalarFunctionInfo(ScalarFunction f);

// The row of the function written `name`, or nullptr when the language has none.
const ScalarFunctionInfo* findScalarFunction(std::string_view name);

// The names in table order, for "did you mean" suggestions and messages.
std::vector<std::string> scalarFunctionNames();

// NaN-propagating maximum and minimum (NumPy's maximum/minimum): the max, min and relu
// functions, and the evaluator's max/min aggregations, which must agree with them.
double nanPropagatingMax(double a, double b);
double nanPropagatingMin(double a, double b);

}  // namespace eindecomp
