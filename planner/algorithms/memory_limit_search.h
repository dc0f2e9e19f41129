// --mem-limit for eindecomp (planning.cpp): where the search's plan does not fit, searches
// again with a memory penalty, and where no weight of it fits, descends on the exact peak.
// Internal to planner/algorithms.
#pragma once

#include <climits>
#include <cstdint>
#include <optional>
#include <vector>

#include "planner/algorithms/placed_plan.h"
#include "planner/algorithms/search_space.h"

namespace eindecomp {

// What the searches found: the cheapest plan that fits (none when none did), its
// partitions, how many searches ran, and the lowest peak any plan reached with its
// partitions (for the error when none fits, and the recompute search's start).
struct MemorySearchResult {
  std::optional<PricedPlan> best;
  PartitionChoice choice;
  int searches = 0;
  int64_t smallestPeak = INT64_MAX;
  std::vector<Parts> lowestPeak;  // the partitions that reached it
};

// `unconstrained`: the search's plan, which does not fit. Leaves the space's penalty at 0.
MemorySearchResult searchUnderMemoryLimit(SearchSpace& s, const Graph& g, const PlanOptions& options,
                                          const PricedPlan& unconstrained);

}  // namespace eindecomp
