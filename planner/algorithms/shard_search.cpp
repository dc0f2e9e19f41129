#include "planner/algorithms/shard_search.h"

#include <algorithm>

#include "planner/cost/checked_math.h"
#include "planner/graph/diagnostic.h"
#include "planner/graph/tensor_types.h"

namespace eindecomp {

namespace {

// The inputs worth sharding: each of its readers that is not pointwise may hold it whole.
std::vector<ShardAtRest> worthSharding(const Graph& g, int64_t limitBytes) {
  std::vector<ShardAtRest> out;
  const int64_t worth = std::max<int64_t>(1, limitBytes / 1000);
  for (const std::string& name : shardableInputs(g)) {
    const InputTensor& t = *findInput(g, name);
    int64_t bytes = static_cast<int64_t>(dtypeSize(inputType(g, t)));
    for (int64_t s : t.shape) bytes = checkedMul(bytes, s, "shard_at_rest");
    int64_t readers = 0;
    for (const Node& n : g.nodes) readers += std::count(n.inputs.begin(), n.inputs.end(), name);
    if (readers > 0 && checkedMul(bytes, readers, "shard_at_rest") >= worth) out.push_back({name, {}});
  }
  return out;
}

}  // namespace

ShardedSearch planWithInputsSharded(const Graph& g, const PlanOptions& options) {
  ShardedSearch result;
  if (!options.memLimitBytes) return result;
  result.entries = worthSharding(g, *options.memLimitBytes);
  if (result.entries.empty()) return result;
  if (options.progress)
    options.progress("--mem-limit: no plan fits; sharding " + std::to_string(result.entries.size()) + " input(s) at rest");
  result.graph = withInputsShardedAtRest(g, result.entries);
  PlanOptions sharded = options;
  sharded.lowestPeak = std::make_shared<std::vector<Parts>>();
  try {
    Plan plan = planGraph("eindecomp", result.graph, sharded);
    std::string names;
    for (const ShardAtRest& e : result.entries) names += (names.empty() ? "" : ", ") + e.input;
    plan.notes.push_back("--mem-limit: no plan of the graph as written fits; " + std::to_string(result.entries.size()) +
                         " input(s) are sharded at rest, each reader that is not pointwise reading a copy gathered "
                         "just before it (shard_at_rest; heuristic): " + names);
    plan.shardAtRest = result.entries;
    result.plan = std::move(plan);
  } catch (const InputError& e) {
    if (e.exitCode() != kExitNoPlan) throw;
    result.lowestPeak = *sharded.lowestPeak;
    result.failure = e.diagnostic().message;
  }
  return result;
}

}  // namespace eindecomp
