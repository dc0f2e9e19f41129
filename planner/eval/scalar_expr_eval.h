// Evaluation of a node's join — the scalar expression tree of planner/graph/expr.h —
// at one pair of operand values, in double precision. This fixes the meaning of every
// function the EinGraph language offers (SPEC 1); the code generator must emit the same
// functions. max, min and relu propagate NaN the way NumPy's maximum/minimum do.
#pragma once

#include "planner/graph/expr.h"

namespace eindecomp {

// The value of `e` with x and y bound to the given operand values (y is ignored by
// expressions that do not mention it). Throws std::invalid_argument for a function
// name or argument count the language does not have (the loader rejects those).
double evaluateScalarExpr(const Expr& e, double x, double y);

// NaN-propagating maximum and minimum (NumPy's maximum/minimum), shared with the
// max/min aggregations.
double nanPropagatingMax(double a, double b);
double nanPropagatingMin(double a, double b);

}  // namespace eindecomp
