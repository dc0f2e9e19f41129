#include "planner/algorithms/placed_plan.h"

#include <algorithm>
#include <cmath>
#include <future>
#include <optional>
#include <utility>

#include "planner/cost/time_model.h"
#include "planner/graph/tensor_types.h"
#include "planner/graph/units.h"

namespace eindecomp {

namespace {

// The matched placement's weights on this machine: an element between nodes is worth the
// ratio of the two links' bandwidths in elements inside one.
LinkWeights linkWeights(const PlanOptions& options) {
  LinkWeights w;
  if (!options.machine || !options.machine->rankNodes().spansNodes(options.devices)) return w;
  w.nodes = options.machine->rankNodes();
  w.interNodeWeight = std::max<int64_t>(1, std::llround(options.machine->bandwidthBytesPerSecond /
                                                        options.machine->interNodeBandwidthBytesPerSecond));
  return w;
}

// The GEMM path of every node's calls: a plan file's, else the one the kernel model prices
// faster (einrt's rule without a kernel model). Chosen once the partitions are, so the
// report prices and the program runs the same path.
void chooseGemmPaths(const Graph& g, const PlanOptions& options, Plan& plan) {
  const std::vector<DType> types = nodeOutputTypes(g);
  for (std::size_t i = 0; i < plan.nodes.size(); ++i) {
    NodePlan& np = plan.nodes[i];
    if (const auto pin = options.pinnedGemmPaths.find(np.name); pin != options.pinnedGemmPaths.end()) np.gemmPath = pin->second;
    else if (options.machine) np.gemmPath = plannedGemmPath(*options.machine, g.nodes[i], nodeSpace(g.nodes[i]), np.parts, types[i]);
  }
}

}  // namespace

void say(const PlanOptions& options, const std::string& phase) {
  if (options.progress) options.progress(phase);
}

MemoryDetail memoryToCompare(const PlanOptions& options) {
  return options.memLimitBytes ? MemoryDetail::Peak : MemoryDetail::None;
}

int64_t ranksPerNodeOf(const PlanOptions& options) {
  return options.machine ? options.machine->ranksPerNode.value_or(0) : options.ranksPerNode;
}

PricedPlan placeAndPrice(const Graph& g, const PlanOptions& options, const std::string& algorithm,
                         const std::vector<Parts>& parts) {
  const ObjectiveModel model = objectiveModel(g, options);
  auto placedBy = [&](PlacementRule rule) {
    Plan plan = makePlan(g, options.devices, algorithm, parts,
                         placeNodes(g, parts, rule, options.pinnedPlacements, options.devices, linkWeights(options)));
    plan.ranksPerNode = ranksPerNodeOf(options);
    chooseGemmPaths(g, options, plan);
    PlanCost cost = costPlan(g, plan, options.machine, memoryToCompare(options), options.trafficMemo.get());
    return PricedPlan{std::move(plan), std::move(cost), rule};
  };
  // Every rule but the last on a thread of its own (the memo is safe from several): on a
  // cluster at p = 16,384 the canonical rule's plan takes a second or two to place and
  // price beside the matched rule's ten (LLaMA-65B, 20 layers). Compared in the rules'
  // order, so the plan kept is the one a single thread keeps.
  std::optional<PricedPlan> best;
  auto keepCheaper = [&](PricedPlan priced) {
    if (!best || model.key(priced.cost) < model.key(best->cost)) best = std::move(priced);
  };
  const std::vector<PlacementRule>& rules = options.placementRules;
  if (!options.rulesSideBySide || rules.size() < 2) {
    for (PlacementRule rule : rules) keepCheaper(placedBy(rule));
    return std::move(*best);
  }
  std::vector<std::future<PricedPlan>> others;
  for (std::size_t r = 0; r + 1 < rules.size(); ++r) others.push_back(std::async(std::launch::async, placedBy, rules[r]));
  PricedPlan last = placedBy(rules.back());
  for (auto& other : others) keepCheaper(other.get());
  keepCheaper(std::move(last));
  return std::move(*best);
}

std::string bytesText(int64_t bytes) { return std::to_string(bytes) + " bytes (" + formatBytes(bytes) + ")"; }

}  // namespace eindecomp
