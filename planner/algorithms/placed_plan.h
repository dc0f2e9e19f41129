// Partitions placed and priced: what planGraph (planning.cpp) and the --mem-limit search
// (memory_limit_search.cpp) share — a plan of given partitions placed by every placement
// rule of the options and priced whole, and the small answers both read off the options.
// Internal to planner/algorithms.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "planner/algorithms/planning.h"
#include "planner/cost/plan_cost.h"

namespace eindecomp {

struct PricedPlan {
  Plan plan;
  PlanCost cost;
  PlacementRule rule = PlacementRule::Canonical;
  // Given up while placed, sure to take longer than a rival (RivalTime): it takes at least
  // timeFloorPs on the machine; plan and cost are empty.
  bool abandoned = false;
  int64_t timeFloorPs = 0;
  // Abandoned, where some rule's plan was finished: the cheapest of those, which the plan
  // of the cheapest rule costs no more than under the objective.
  std::optional<PlanCost> ceiling;
  // Whether `cost` includes the memory plan (MemoryDetail::Peak): then a report needs no
  // pricing of its own (PlanOptions::returnedCost).
  bool memoryPriced = false;
};

// A plan that another thread is making to compare with at the end (the cluster's plan
// made without its nodes, priced on the cluster: planning.cpp): its time (picoseconds on
// the options' machine) once it is priced, none before.
using RivalTime = std::function<std::optional<int64_t>()>;

// Whether the plan_cost.h bounds (trafficLowerBound, timeFloorsByNode) hold for plans of
// these partitions: every call gets a rank of its own (no pinned placement, no node above
// p calls).
bool boundsHold(const PlanOptions& options, const std::vector<Parts>& parts);

// The partitions placed by every rule of the options; the cheapest plan (its memory priced
// only under --mem-limit). With `rival`, where the time bounds hold (a machine, no pinned
// placement, no node above p calls, no --mem-limit): a plan priced node by node as it is
// placed — the nodes placed at their exchanges' time, the rest at their floors
// (plan_cost.h timeFloorsByNode) — is abandoned once that sum passes the rival's time; the
// result is abandoned where every rule's plan is sure to take longer.
PricedPlan placeAndPrice(const Graph& g, const PlanOptions& options, const std::string& algorithm,
                         const std::vector<Parts>& parts, const RivalTime& rival = {});

// Plans compared without --mem-limit need no memory plan: every plan fits, and the report
// prices the plan returned.
MemoryDetail memoryToCompare(const PlanOptions& options);

// The cluster a plan's links are split for: the machine's, else a plan file's.
int64_t ranksPerNodeOf(const PlanOptions& options);

// Tells options.progress a phase of the search, where there is one.
void say(const PlanOptions& options, const std::string& phase);

// "123 bytes (123 B)", for messages about memory.
std::string bytesText(int64_t bytes);

}  // namespace eindecomp
