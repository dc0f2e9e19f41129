// `einplan explain` and `einplan dot`: a plan shown as the tensor-relational program it
// stands for (the TRA paper's operators: BCAST / SHUF repartitions, local joins, local
// aggregations), each tensor's layout in sharding vocabulary (Shard(i:4), Replicate,
// Partial(sum)) and the collective each edge needs; the candidates of one node with their
// costs; and Graphviz renderings of a graph with or without a plan.
#pragma once

#include <optional>
#include <string>

#include "planner/algorithms/plan.h"
#include "planner/graph/graph.h"

namespace eindecomp {

// Layout of a tensor cut into `parts` per dimension (labels per dimension) and held by
// `copies` kernel calls per block: e.g. "[Shard(i:4), Replicate(k)] x4 copies".
std::string layoutText(const Labels& dims, const Parts& parts, int64_t kernelCalls);

// The collective an edge needs between producer and consumer layouts (parts per dimension).
std::string edgeCollective(const Parts& producer, const Parts& consumer);

std::string explainPlan(const Graph& g, const Plan& plan);

// Every viable partition of `node` (for plan.devices) with join, agg, repart in (from the
// producers' layouts in the plan) and repart out (to the consumers' layouts in the plan),
// cheapest first, the plan's choice marked. InputError if the node is unknown.
std::string explainNodeCandidates(const Graph& g, const Plan& plan, const std::string& node);

// Graphviz: inputs as boxes, nodes with their einsum (and partition), edges with their
// repartition cost when a plan is given.
std::string graphDot(const Graph& g, const Plan* plan);

}  // namespace eindecomp
