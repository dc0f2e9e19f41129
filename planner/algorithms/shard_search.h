// Sharding inputs at rest when no plan fits --mem-limit (issue "Training as people train";
// the rewrite is planner/graph/shard_at_rest.h). Every shardable input that could free at
// least a thousandth of the limit on a rank (its readers that are not pointwise each hold
// it whole at most) is sharded, and the graph searched again under the limit: the search
// partitions the copies it adds like any node, so where a reader is cut along the
// weight's own dimensions its copy costs nothing, and where it runs data-parallel the
// copy is the all-gather before it. A heuristic: every candidate is sharded at once, none
// is tried alone.
#pragma once

#include <optional>
#include <vector>

#include "planner/algorithms/planning.h"
#include "planner/graph/shard_at_rest.h"

namespace eindecomp {

struct ShardedSearch {
  std::vector<ShardAtRest> entries;  // empty: no input was worth sharding (nothing searched)
  Graph graph;                       // withInputsShardedAtRest(g, entries)
  std::optional<Plan> plan;          // fits; plan.shardAtRest holds the entries
  std::vector<Parts> lowestPeak;     // when none fits: the partitions of graph's plan that peaked lowest
  std::string failure;               // and the search's message saying how low it reached
};

ShardedSearch planWithInputsSharded(const Graph& g, const PlanOptions& options);

}  // namespace eindecomp
