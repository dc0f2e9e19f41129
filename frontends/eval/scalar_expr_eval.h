// Evaluation of a node's join — the scalar expression tree of planner/graph/expr.h —
// at one pair of operand values, in double precision. The meaning of each function is
// its row in planner/graph/scalar_functions.h, which the code generator's functions
// must match; max, min and relu propagate NaN the way NumPy's maximum/minimum do.
#pragma once

#include "planner/graph/expr.h"

namespace eindecomp {

// The value of `e` with x and y bound to the given operand values (y is ignored by
// expressions that do not mention it). Throws std::invalid_argument for a call with
// the wrong number of arguments (the parser never builds one). nanPropagatingMax/Min,
// which the max/min aggregations share, come with the function table through expr.h.
double evaluateScalarExpr(const Expr& e, double x, double y);

}  // namespace eindecomp
