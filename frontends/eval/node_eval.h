// Evaluation of one EinGraph node by the definition of an extended EinSum (the
// EinDecomp paper, equation 2): for every point of the node's iteration space (every
// combination of values of its distinct labels, broadcast labels included) the join is
// applied to the operand elements the point selects and the result is folded into the
// output element the point selects with the node's aggregation, starting from the
// aggregation's identity (sum 0, prod 1, max -inf, min +inf). Accumulation is in double;
// each output element is rounded to the graph's dtype once, at the end. Nodes with
// three or more operands are pure contractions (the loader enforces it) and are
// evaluated along their contraction path (planner/paths, default options): each binary
// step by the same definition, its intermediate kept in double, so the time follows the
// path's FLOPs instead of the product of all label sizes, and only the node's output is
// rounded.
#pragma once

#include <vector>

#include "frontends/eval/tensor.h"
#include "planner/graph/graph.h"

namespace eindecomp {

// The identity element an aggregation starts from.
double aggregationIdentity(Reduce agg);

// Folds one joined value into an accumulator with the aggregation (max and min
// propagate NaN).
double aggregate(Reduce agg, double accumulator, double value);

// Evaluates `node` of `graph` on its operand tensors (in the node's operand order).
// Throws std::invalid_argument when the operands do not match the node's labels and the
// graph's label sizes, or an n-ary node is not a contraction — conditions a validated
// graph never has.
Tensor evaluateNode(const Graph& graph, const Node& node, const std::vector<const Tensor*>& operands);

}  // namespace eindecomp
