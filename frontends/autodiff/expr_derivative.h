// Symbolic differentiation of a join (SPEC 1's expression language) for reverse-mode
// differentiation of EinGraphs (grad.h). The chain rule is applied here, over + - * /
// and unary minus; every function's own partial derivatives come from its row of the one
// scalar-function table (planner/graph/scalar_functions.h), so a new function brings its
// derivative with it and no second list exists. Results are simplified (numbers folded,
// 0 and 1 absorbed) so that `x * y` differentiates to `y`, not `1 * y + x * 0`, which is
// what lets the gradient of a contraction be a contraction (a GEMM) again.
#pragma once

#include <optional>
#include <utility>

#include "planner/graph/expr.h"

namespace eindecomp::autodiff {

enum class Var { X, Y };

// d e / d v, simplified.
Expr partial(const Expr& e, Var v);

// Numbers folded, x + 0, x * 1, x * 0 (as 0: a gradient term that is identically zero
// is dropped, even where the factor would be infinite or NaN), --x, x - 0, x / 1.
Expr simplify(const Expr& e);

// e = c * rest with c a number pulled out of products, quotients by numbers and
// negations; rest is 1 when e is a number.
std::pair<double, Expr> splitCoefficient(const Expr& e);

bool isNumber(const Expr& e, double v);
bool usesX(const Expr& e);

// The expression with every subtree equal to `value` replaced by `asValue`, and x and y
// by `asX` and `asY`; nothing when e uses x or y where the replacement is absent. Used to
// rewrite a derivative in terms of the node's own result (z) instead of recomputing it:
// d exp(x - y) / dx = exp(x - y) becomes z.
std::optional<Expr> rewrite(const Expr& e, const Expr& value, const Expr& asValue, const std::optional<Expr>& asX,
                            const std::optional<Expr>& asY);

// Whether `part` occurs in e as a subexpression.
bool containsSubtree(const Expr& e, const Expr& part);
// e with y renamed x: a derivative that reads only the second operand becomes a unary join.
Expr yAsX(const Expr& e);

}  // namespace eindecomp::autodiff
