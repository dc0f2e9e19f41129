// Reverse-mode differentiation of an EinGraph (SPEC 5 `einplan grad`, docs/grad.md): the
// forward graph plus the gradient of sum(LOSS) with respect to chosen graph inputs, as
// ordinary EinGraph nodes that plan, eval and eincodegen take like any others.
//
// Per node Z = agg_{reduced labels} f(X, Y) and operand X:
//   dX = sum over the labels not in X of  H * df/dx(X, Y)
// where H is the upstream gradient dZ for sum; dZ / count * [f(X, Y) == Z] for max and
// min (the arg-max gets the gradient, ties split evenly, as torch's amax); dZ * Z / f(X, Y)
// for prod (undefined where a factor is 0). df/dx is derived symbolically from the scalar
// function table (expr_derivative.h); a constant factor goes into the join, a derivative
// that is the node's own value reads Z instead of recomputing it (exp, tanh, sigmoid,
// rsqrt...), and the whole is one EinGraph node: the gradient of a contraction is a
// contraction (a GEMM), of an n-ary contraction an n-ary contraction; labels of X missing
// from the others are broadcast, labels only in the others (broadcasts, reductions) are
// summed. Contributions of several consumers are added; tensors that do not lie between
// the chosen inputs and the loss get no gradient, and a derivative that is identically 0
// adds nothing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "frontends/autodiff/update.h"
#include "planner/graph/graph.h"

namespace eindecomp::autodiff {

struct GradRequest {
  std::string loss;              // a node of the graph
  std::vector<std::string> wrt;  // graph inputs; empty: every input
  std::optional<Update> update;  // also X_next (and the optimizer's state) for each --wrt input (update.h)
  // With an update: whether the gradients grad_X stay graph outputs (false: they are read
  // by the update only, and freed after it, as an optimizer step that zeroes them does).
  bool gradientOutputs = true;
  // Master weights (master_weights.h): each --wrt input becomes of this type, read through a
  // cast to the graph's; its gradient, state and update are of this type. Unset: none.
  std::optional<DType> master;
  // With master weights: each weight gradient that is one contraction of bf16 (or f16)
  // operands computes straight into the master type (a widening contraction, SPEC 8)
  // instead of being cast back after it: Megatron's gradient accumulation fusion. With
  // micro-batches that contraction is the accumulated node, so its partial sums add up in
  // f32 over the micro-batches and are reduced once per step, as DDP and Megatron reduce.
  bool gradientAccumulationFusion = false;
  // Micro-batches (planner/graph/micro_batches.h): the count and the split inputs; the
  // forward graph is taken over one micro-batch, and the step accumulates every gradient
  // (and the loss, where it is an output). Split inputs are not differentiated by
  // default and may not be named in `wrt` (their gradient differs per micro-batch).
  std::optional<MicroBatches> microBatches;
};

struct GradResult {
  Graph graph;                       // validated by the one loader
  std::vector<std::string> notes;    // e.g. inputs whose gradient is identically zero
};

// Throws InputError (exit 2) for a loss that is not a node, a --wrt that is not an input,
// and a node it cannot differentiate (an operand repeating a label: a diagonal).
// `forward` is taken by value: a caller done with its graph moves it in, and its memory
// goes as soon as the result no longer needs it (a 100,000-node chain's gradient stays
// within 1 GiB).
GradResult differentiate(Graph forward, const GradRequest& request);

}  // namespace eindecomp::autodiff
