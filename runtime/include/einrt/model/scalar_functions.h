// The one list of the scalar functions a node's join may call (SPEC 1): each with the
// name written in a join (which is also the name of its einrt::program template in
// einrt/program/math.h) and its number of arguments. Everything that enumerates the
// functions iterates this list: the planner's function table (planner/graph/
// scalar_functions.h adds each one's value and derivative, in this order, checked at
// compile time), the code generator's calls, einrt's kernels (math.h checks at compile
// time that every function has its template), einrt-calibrate's measurements and the
// kernel model that reads them. Adding a function is one row here, its template in
// math.h and its value and derivative in the planner's table.
#pragma once

#include <cstddef>
#include <string_view>

// X(Enum, name, arity) for each function, in table order.
#define EINRT_SCALAR_FUNCTIONS(X) \
  X(Exp, exp, 1)                  \
  X(Log, log, 1)                  \
  X(Sqrt, sqrt, 1)                \
  X(Rsqrt, rsqrt, 1)              \
  X(Abs, abs, 1)                  \
  X(Tanh, tanh, 1)                \
  X(Sigmoid, sigmoid, 1)          \
  X(Relu, relu, 1)                \
  X(Max, max, 2)                  \
  X(Min, min, 2)                  \
  X(Pow, pow, 2)                  \
  X(Erf, erf, 1)                  \
  X(Sin, sin, 1)                  \
  X(Cos, cos, 1)                  \
  X(Where, where, 3)              \
  X(Lt, lt, 2)                    \
  X(Le, le, 2)                    \
  X(Gt, gt, 2)                    \
  X(Ge, ge, 2)                    \
  X(Eq, eq, 2)

namespace einrt {

enum class ScalarFunction {
#define EINRT_SCALAR_FUNCTION_ENUM(E, name, arity) E,
  EINRT_SCALAR_FUNCTIONS(EINRT_SCALAR_FUNCTION_ENUM)
#undef EINRT_SCALAR_FUNCTION_ENUM
};

struct ScalarFunctionName {
  ScalarFunction function;
  std::string_view name;  // as written in a join, and the einrt::program template's name
  std::size_t arity;
};

inline constexpr ScalarFunctionName kScalarFunctions[] = {
#define EINRT_SCALAR_FUNCTION_ROW(E, name, arity) {ScalarFunction::E, #name, arity},
    EINRT_SCALAR_FUNCTIONS(EINRT_SCALAR_FUNCTION_ROW)
#undef EINRT_SCALAR_FUNCTION_ROW
};

inline constexpr std::size_t kScalarFunctionCount = std::size(kScalarFunctions);

}  // namespace einrt
