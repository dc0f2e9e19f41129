// Mixed precision with master weights (`einplan grad --master f32`, `gen llama --train
// --dtype bf16 --master f32`; SPEC 8): the forward graph, in its own type (bf16), reads
// each trained input through a cast node from a master copy of type `master` (f32). Its
// gradient then flows back through the cast (grad.h: a cast's gradient is the upstream
// gradient cast back), so grad_X, the optimizer's state and X_next are of the master type,
// and the update is applied there; the next step's casts refresh the low-precision copies.
#pragma once

#include <string>
#include <vector>

#include "planner/graph/graph.h"

namespace eindecomp::autodiff {

// The cast node made for trained input X: X_<graph type> (X_bf16).
std::string castCopyName(const Graph& g, const std::string& input);

// `g` with every input of `trained` (empty: every input but ids) of type `master`, read by
// every node through its cast node (placed just before its first reader). Throws InputError when a cast's name is taken, when `master` is the
// graph's type already, or when a trained input is not of the graph's type.
Graph withMasterWeights(Graph g, std::vector<std::string> trained, DType master);

// Gradient accumulation fusion (grad.h GradRequest::gradientAccumulationFusion): whether
// `gradient`, the gradient of a master weight's cast in a graph of `graphType`, can write
// `master` itself — a widening contraction (planner/graph/tensor_types.h): two operands of
// a 2-byte type, x * y summed, into f32.
bool canWriteMasterType(const Node& gradient, DType master, DType graphType);

// Throws InputError at node n where it is a widening contraction, which einplan grad does
// not differentiate (its gradients would mix types).
void refuseWideningContraction(const Node& n);

}  // namespace eindecomp::autodiff
