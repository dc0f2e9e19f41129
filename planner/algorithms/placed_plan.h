// Partitions placed and priced: what planGraph (planning.cpp) and the --mem-limit search
// (memory_limit_search.cpp) share — a plan of given partitions placed by every placement
// rule of the options and priced whole, and the small answers both read off the options.
// Internal to planner/algorithms.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/algorithms/planning.h"
#include "planner/cost/plan_cost.h"

namespace eindecomp {

struct PricedPlan {
  Plan plan;
  PlanCost cost;
  PlacementRule rule = PlacementRule::Canonical;
};

// The partitions placed by every rule of the options; the cheapest plan (its memory priced
// only under --mem-limit).
PricedPlan placeAndPrice(const Graph& g, const PlanOptions& options, const std::string& algorithm,
                         const std::vector<Parts>& parts);

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
