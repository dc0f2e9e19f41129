// Evaluation of a whole EinGraph by the reference evaluator: the nodes are evaluated
// one by one in the graph's (topological) order, each by evaluateNode, on the given
// input tensors. This is the ground truth that `einplan eval`, the tests and the
// emitted programs' checks compare against.
#pragma once

#include <map>
#include <string>

#include "frontends/eval/tensor.h"
#include "planner/graph/graph.h"

namespace eindecomp {

// Evaluates every node of `graph`. `inputs` must hold exactly the graph's inputs, each
// with the graph's dtype and the declared shape (std::invalid_argument otherwise,
// naming the tensor). Returns the output tensor of every node, keyed by node name (the
// graph's outputs are among them); graph inputs are not repeated.
std::map<std::string, Tensor> evaluateGraph(const Graph& graph, const std::map<std::string, Tensor>& inputs);

// The memory the evaluator needs: it keeps every input and every node output as doubles
// (8 bytes an element) until the end, plus one node's accumulators while that node runs.
// Throws an InputError at the largest tensor's place in the graph file, naming it and the
// bytes it needs, when the total exceeds `availableBytes` (default: this machine's
// physical memory, or the address-space limit where one is set) — before anything is
// allocated, instead of failing with std::bad_alloc or being killed half-way.
void checkEvaluatorMemory(const Graph& graph, int64_t availableBytes = 0);

}  // namespace eindecomp
