// `einplan explain` and `einplan dot`: a plan shown as the tensor-relational program it
// stands for (the TRA paper's operators: BCAST / SHUF repartitions, local joins, local
// aggregations), each tensor's layout in sharding vocabulary (Shard(i:4), Replicate,
// Partial(sum)) and the collective each edge needs; the candidates of one node with their
// costs; and Graphviz renderings of a graph with or without a plan.
#pragma once

#include <optional>
#include <string>

#include "planner/cost/objective_model.h"
#include "planner/cost/plan_cost.h"
#include "planner/graph/graph.h"
#include "planner/placement/plan.h"

namespace eindecomp {

// Layout of a tensor cut into `parts` per dimension (labels per dimension) and held by
// `copies` kernel calls per block: e.g. "[Shard(i:4), Replicate(k)] x4 copies".
std::string layoutText(const Labels& dims, const Parts& parts, int64_t kernelCalls);

// The collective an edge needs between producer and consumer layouts (parts per dimension).
std::string edgeCollective(const Parts& producer, const Parts& consumer);

// `cost` is costPlan(g, plan, ...): explain computes no cost of its own.
std::string explainPlan(const Graph& g, const Plan& plan, const PlanCost& cost);

// Every viable partition of `node` (for plan.devices), each priced as the whole plan
// with that node changed (placed by the canonical rule, every other node as planned):
// the objective's total (with the model's machine), the traffic, the paper model's join,
// agg and repartitions into and out of the node, and the plan's peak per rank; the plan's
// own choice marked, sorted by the model's key (plans over --mem-limit last). InputError
// if the node is unknown.
std::string explainNodeCandidates(const Graph& g, const Plan& plan, const std::string& node, const ObjectiveModel& model);

// Graphviz: inputs as boxes, nodes with their einsum (and partition and placement),
// edges with their traffic and repartition cost when a plan is given.
std::string graphDot(const Graph& g, const Plan* plan, const PlanCost* cost);

}  // namespace eindecomp
