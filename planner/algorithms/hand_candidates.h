// The hand strategies as the planner's candidates beside its search's plan (planning.h):
// on a training step under the time objective the data plan and Megatron's at each
// tensor-parallel degree are priced exactly (their reduce-scatters are partials reduced at
// read, which the search's dynamic program prices as an aggregation and a repartition
// apart), on the graph as written and, on a step of micro-batches, with its gradient casts
// fused (planner/graph/gradient_fusion.h), as DDP and Megatron-LM run it; the cheapest that
// fits and beats the search's plan is returned.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "planner/algorithms/placed_plan.h"
#include "planner/algorithms/planning.h"

namespace eindecomp {

// Whether partitions are sure to cost more than a plan that fits, under the traffic or
// the time objective, by trafficLowerBound or timeLowerBound — then they need no placing
// and pricing (a baseline's partitions beside the search's: at p = 1024 each pricing takes
// a large model a second). Only where every call has a rank of its own (no pinned
// placement, no node above p calls), as the bounds assume.
bool cannotBeat(const Graph& g, const PlanOptions& options, const ObjectiveModel& model, const PlanCost& best,
                const std::vector<Parts>& parts);

// The data strategy's plan (Megatron at tensor-parallel degree 1: DDP with a distributed
// optimizer) and the megatron strategy's (strategies.h) with each tensor-parallel degree
// of 2, 4 and 8 that divides p and fits a node's ranks, on g as it is, where g is a
// training step they cut, the objective is time (the configurations Megatron-LM publishes
// are compared by their step time) and nothing is pinned: pricing three whole plans costs
// seconds at p = 1024, which an inference graph or a traffic objective is not made to pay.
// The cheapest that fits and costs less than `best`, with its name.
std::optional<std::pair<std::string, PricedPlan>> cheaperHandStrategy(const Graph& g, const PlanOptions& options,
                                                                      const ObjectiveModel& model, const PlanCost& best);

// The same candidates on g with its gradient casts fused (gradientCastsToFuse), where g is a
// step of micro-batches with such casts, and the cheapest is estimated faster than `best`
// by more than options.timeMargin: the plan (its fusedGradientCasts set, its nodes those
// of `graph`), the graph it plans and the strategy's name.
struct FusedHandPlan {
  std::string strategy;
  Graph graph;
  PricedPlan priced;
};
std::optional<FusedHandPlan> cheaperFusedHandStrategy(const Graph& g, const PlanOptions& options, const PlanCost& best);

}  // namespace eindecomp
