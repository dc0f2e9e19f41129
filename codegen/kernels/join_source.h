// The scalar join of a node (planner/graph/expr.h) as a C++ expression over `x` and `y` of
// type T, for the generated elementwise kernels. The expression calls only the scalar
// functions of einrt/program/math.h (einrt::program::exp<T>, ...), which vectorize on the
// host and are __host__ __device__ under nvcc, so one expression serves the host loops and
// the CUDA kernel alike. Each call is its function's emitted name from the table in
// planner/graph/scalar_functions.h. Numbers are printed with 17 significant digits and
// wrapped in T(...), so f32 and f64 programs round them the way the reference evaluator
// does; infinities become einrt::program::infinity<T>().
#pragma once

#include <string>

#include "planner/graph/expr.h"
#include "planner/graph/graph.h"

namespace eindecomp::codegen {

// Throws InputError (exit 2) for a call with the wrong number of arguments or a NaN
// constant; the parser builds neither, so this guards hand-built graphs.
std::string joinExpressionSource(const Expr& e);

// The combine step of an aggregation as an expression over `a` and `b`:
// sum -> "(a + b)", max -> "einrt::program::max<T>(a, b)", ...
std::string aggCombineSource(Reduce agg);

// The identity of the aggregation as a C++ expression of type T: 0, 1, -inf, +inf.
std::string aggIdentitySource(Reduce agg);

}  // namespace eindecomp::codegen
