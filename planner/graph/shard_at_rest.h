// Inputs sharded at rest (issue "Training as people train"): ZeRO-3's and FSDP's trade,
// as a rewrite of the graph. A graph input is resident for the whole run on every rank
// that reads it, once per reading operand (SPEC 3.2): a weight that a batch-parallel
// forward and backward read whole is held whole, twice, on every rank. Sharding it at rest
// gives every reader that is not pointwise (a contraction, a broadcast) its own copy node
// `X_fetched`, an identity EinSum over X placed just before that reader: X itself is then
// read only by those copies and by its pointwise readers (an optimizer's update), each
// holding the 1/p blocks its partition cuts, and each copy's output lives only from its
// making to its reader's step — the all-gather before a layer's forward and again before
// its backward. The planner partitions the copies like any node, so the traffic, memory
// and time of that gathering are priced and run exactly as the program pays them.
// Plans carry their entries (`shard_at_rest` in plan files); the planner, `einplan cost`
// and eincodegen apply them with this one function, before a plan's recompute entries
// (planner/graph/recompute.h), whose names are the sharded graph's.
#pragma once

#include <string>
#include <vector>

#include "planner/graph/gradient_fusion.h"
#include "planner/graph/graph.h"
#include "planner/graph/recompute.h"

namespace eindecomp {

struct ShardAtRest {
  std::string input;  // the graph input sharded at rest
  SourceLoc loc{};    // where a plan file gives it
};

// `g` with the entries applied in order. An entry that names no graph input, an index
// tensor, a scalar, an input given twice, or an input without a reader that is not
// pointwise (nothing to shard: its readers already hold only their blocks) is an
// InputError at its loc.
Graph withInputsShardedAtRest(const Graph& g, const std::vector<ShardAtRest>& entries);

// The inputs withInputsShardedAtRest accepts, in input order: float tensors of rank one or
// more read by some node that is not pointwise in them.
std::vector<std::string> shardableInputs(const Graph& g);

// Whether operand k of n reads its tensor element for element into the output: the same
// labels in the same order, nothing aggregated, no window (an optimizer's update). Such a
// reader holds only the blocks of the tensor its own calls write.
bool readsPointwise(const Node& n, std::size_t k);

// A plan's graph: `g` with its gradient casts fused (gradient_fusion.h), then its inputs
// sharded at rest, then its nodes recomputed.
Graph withPlanRewrites(const Graph& g, const std::vector<FusedGradientCast>& fused, const std::vector<ShardAtRest>& shards,
                       const std::vector<Recompute>& recompute);

}  // namespace eindecomp
