// Choosing what to compute again when no plan fits --mem-limit (issue "Training as people
// train"; the transform is planner/graph/recompute.h). A greedy descent on the exact peak
// (memory.h), from the partitions of the plan that peaked lowest: at the step where the
// busiest rank peaks, the candidates are the node outputs live there without being read
// there — held from an earlier use (or their making) to a later one — that the later use
// can make again from tensors still live then (graph inputs, or nodes read at or after it
// anyway), so that recomputing one lengthens no other life. Where there are more than a
// few, all of them are tried at once first (a 7B-parameter step has hundreds live at its
// peak: one pricing each would not end); else, or where that does not lower the peak, the
// one of the cheapest few (FLOPs per element) whose recomputation lowers the whole plan's
// peak most. The peak is found again, and so on while a step helps, until the plan fits
// (or a budget of pricing work ends: pricing_budget.h, the same on every machine).
// The graph with those nodes recomputed is then searched again under the limit, keeping the
// descent's plan where the search finds none that fits.
#pragma once

#include <optional>

#include "planner/algorithms/planning.h"
#include "planner/graph/recompute.h"

namespace eindecomp {

struct RecomputedPlan {
  Graph graph;  // withRecompute(g, plan.recompute)
  Plan plan;    // fits options.memLimitBytes; plan.recompute holds the entries
};

struct RecomputeResult {
  std::optional<RecomputedPlan> fitted;  // none when the descent found no plan that fits
  int64_t smallestPeak = 0;              // the lowest peak it reached
  std::size_t tried = 0;                 // with this many nodes computed again
};

// `lowestPeak`: the partitions of g's plan that peaked lowest (PlanOptions::lowestPeak of
// the search that found none fitting), which the descent keeps.
RecomputeResult planWithRecompute(const Graph& g, const PlanOptions& options, const std::vector<Parts>& lowestPeak);

}  // namespace eindecomp
