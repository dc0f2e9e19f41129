// Gradient accumulation fusion as a plan's rewrite of the graph (issue "Training steps as
// large runs are configured"): a bf16 (or f16) weight gradient G, one contraction whose only
// reader is its cast C back to the f32 master type, becomes one widening contraction
// (tensor_types.h) that writes f32 itself under C's name, and C goes. Over M micro-batches
// the f32 sums then accumulate on each rank and are reduced once per step, as Megatron-LM's
// fused gradient accumulation and DDP reduce, where the cast's bf16 operand was reduced in
// every micro-batch; the sums are also rounded once, not once per micro-batch.
// `einplan grad --gradient-accumulation-fusion` writes the same graph from the start.
// Plans carry their entries (`fused_gradient_casts` in plan files): the planner, `einplan
// cost` and eincodegen apply them with this one function, before a plan's other rewrites
// (withPlanRewrites, shard_at_rest.h), so the plan's graph and the program's are the same.
#pragma once

#include <string>
#include <vector>

#include "planner/graph/graph.h"

namespace eindecomp {

struct FusedGradientCast {
  std::string cast;  // the cast node C (its contraction takes its name)
  SourceLoc loc{};   // where a plan file gives it
};

// Whether n could widen (the loader's form of a widening contraction, tensor_types.h,
// less its GEMM shape, which the planner's label classifier decides): two operands of
// `type`, a 2-byte float type, the join x * y, the sum, no window, not an index node, no
// cast of its own.
bool canWidenContraction(const Node& n, DType type);

// The casts of g that withFusedGradientCasts accepts, by node index in order: each the
// identity cast of a node G to f32, G a contraction that canWidenContraction, read by the
// cast alone, not a graph output and not itself accumulated over micro-batches.
std::vector<std::size_t> fusibleGradientCasts(const Graph& g);

// `g` with each entry's contraction widened under its cast's name and the cast removed.
// An entry that names no node, a cast that fusibleGradientCasts leaves out, or a cast given
// twice is an InputError at its loc.
Graph withFusedGradientCasts(const Graph& g, const std::vector<FusedGradientCast>& entries);

}  // namespace eindecomp
