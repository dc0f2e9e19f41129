#include "planner/algorithms/hand_candidates.h"

#include "planner/algorithms/strategies.h"
#include "planner/cost/plan_cost.h"
#include "planner/graph/gradient_fusion.h"
#include "planner/graph/micro_batches.h"

namespace eindecomp {

bool cannotBeat(const Graph& g, const PlanOptions& options, const ObjectiveModel& model, const PlanCost& best,
                const std::vector<Parts>& parts) {
  if (options.objective == Objective::Paper || !model.fits(best) || !boundsHold(options, parts)) return false;
  if (options.objective == Objective::Time) return timeLowerBound(g, parts, *options.machine, options.devices) > model.total(best);
  const int64_t bound = trafficLowerBound(g, parts);
  return bound > model.total(best);
}

std::optional<std::pair<std::string, PricedPlan>> cheaperHandStrategy(const Graph& g, const PlanOptions& options,
                                                                      const ObjectiveModel& model, const PlanCost& best) {
  if (!options.pinned.empty() || !options.pinnedPlacements.empty() || options.objective != Objective::Time ||
      inputGradientBytes(g) == 0)
    return std::nullopt;
  const int64_t perNode = ranksPerNodeOf(options) > 0 ? ranksPerNodeOf(options) : 8;
  std::optional<std::pair<std::string, PricedPlan>> found;
  for (const int64_t t : {1, 2, 4, 8}) {
    if (t > perNode || t > options.devices || options.devices % t != 0) continue;
    StrategyPlan strategy;
    try {
      strategy = strategyPlan(t == 1 ? "data" : "megatron", g, options.devices, t == 1 ? 0 : t, false, false);
    } catch (const InputError&) {
      return found;  // not a graph the strategy cuts (or not at this degree)
    }
    std::vector<Parts> parts;
    for (const Node& n : g.nodes)
      if (auto it = strategy.partitions.find(n.name); it != strategy.partitions.end()) parts.push_back(it->second);
    if (parts.size() != g.nodes.size()) continue;
    const PlanCost& bar = found ? found->second.cost : best;
    if (cannotBeat(g, options, model, bar, parts)) continue;  // (a rank per call: the bounds hold)
    PlanOptions pinned = options;
    pinned.pinnedPlacements = std::move(strategy.placements);
    pinned.placementRules = {PlacementRule::Canonical};
    PricedPlan priced = placeAndPrice(g, pinned, "eindecomp", parts);
    if (model.fits(priced.cost) && model.key(priced.cost) < model.key(bar))
      found.emplace(t == 1 ? std::string("data") : "megatron --tensor-parallel " + std::to_string(t), std::move(priced));
  }
  return found;
}

std::optional<FusedHandPlan> cheaperFusedHandStrategy(const Graph& g, const PlanOptions& options, const PlanCost& best) {
  if (options.objective != Objective::Time || microBatchCount(g) <= 1) return std::nullopt;
  const std::vector<FusedGradientCast> casts = gradientCastsToFuse(g);
  if (casts.empty()) return std::nullopt;
  Graph fused = withFusedGradientCasts(g, casts);
  const ObjectiveModel model = objectiveModel(fused, options);
  auto found = cheaperHandStrategy(fused, options, model, best);
  // The rewrite changes the graph the plan runs: it must be faster by more than the kernel
  // model's resolution (--time-margin), as a plan must be to replace the traffic
  // objective's (planning.h).
  if (!found || model.total(found->second.cost) * (1 + options.timeMargin) >= model.total(best)) return std::nullopt;
  found->second.plan.fusedGradientCasts = casts;
  return FusedHandPlan{std::move(found->first), std::move(fused), std::move(found->second)};
}

}  // namespace eindecomp
