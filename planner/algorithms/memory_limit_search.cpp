#include "planner/algorithms/memory_limit_search.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "planner/algorithms/pricing_budget.h"

namespace eindecomp {

namespace {

// When no weight gives a plan that fits (the penalty prices memory per node, the peak is
// a maximum over ranks and steps), a descent on the exact peak: from the plan that peaked
// lowest, change one node's partition at a time to the candidate that lowers (excess over
// the limit, objective) the most, while that helps and the budget lasts (each pricing is a
// whole-plan costPlan: a quarter of a second on a 7B-parameter training step). The budget
// is counted in work (pricing_budget.h), so the plan is the same on every machine.
constexpr double kRepairSeconds = 3.0;

void repairToFit(const SearchSpace& s, const Graph& g, const PlanOptions& options, MemorySearchResult& r,
                 std::vector<Parts> parts) {
  const ObjectiveModel& model = s.model;
  auto score = [&](const PlanCost& c) {
    return std::make_pair(std::max<int64_t>(0, c.peakBytesPerDevice - *options.memLimitBytes), model.total(c));
  };
  say(options, "--mem-limit: no penalty fits; changing one node at a time");
  PricedPlan current = placeAndPrice(g, options, "eindecomp", parts);
  PricingBudget budget(kRepairSeconds, options.devices);
  auto inBudget = [&] { return budget.left(); };
  for (bool improved = true; improved && !model.fits(current.cost);) {
    improved = false;
    for (std::size_t v = 0; v < parts.size() && inBudget(); ++v) {
      const Parts kept = parts[v];
      std::optional<PricedPlan> bestMove;
      for (const Parts& candidate : s.nodes[v]->parts) {
        if (candidate == kept || !inBudget()) continue;
        parts[v] = candidate;
        budget.charge(g);
        PricedPlan moved = placeAndPrice(g, options, "eindecomp", parts);
        if (score(moved.cost) < score(bestMove ? bestMove->cost : current.cost)) bestMove = std::move(moved);
      }
      parts[v] = kept;
      if (bestMove) {
        for (std::size_t w = 0; w < parts.size(); ++w) parts[w] = bestMove->plan.nodes[w].parts;
        current = std::move(*bestMove);
        improved = true;
      }
    }
  }
  if (current.cost.peakBytesPerDevice < r.smallestPeak) {
    r.smallestPeak = current.cost.peakBytesPerDevice;
    r.lowestPeak = parts;
  }
  if (model.fits(current.cost)) {
    r.choice.parts = parts;
    r.best = std::move(current);
  }
}

// Whether every node keeps the least memory any of its candidates keeps (search_space.h
// memoryBytes). The penalty is that memory summed node by node, so such partitions already
// minimize it: a larger weight can only weigh the same minimum more, and the search would
// find them again.
bool keepsLeastMemory(const SearchSpace& s, const std::vector<Parts>& parts) {
  for (std::size_t v = 0; v < parts.size(); ++v) {
    const NodeCandidates& c = *s.nodes[v];
    const auto it = std::find(c.parts.begin(), c.parts.end(), parts[v]);
    if (it == c.parts.end()) return false;
    const int64_t kept = c.memoryBytes[static_cast<std::size_t>(it - c.parts.begin())];
    if (kept > *std::min_element(c.memoryBytes.begin(), c.memoryBytes.end())) return false;
  }
  return true;
}

}  // namespace

// --mem-limit for eindecomp: the search's plan does not fit, so it is searched again with
// a Lagrangian term on what each partition keeps per rank (search_space.h memoryBytes),
// its weight raised fourfold until a plan fits and then narrowed by bisection towards the
// smallest weight that still fits (a smaller weight leaves more room to the objective).
// Every plan is judged by its exact peak (memory.h); the cheapest that fits is kept, and
// `smallestPeak` tracks the lowest peak reached for the error when none does.
MemorySearchResult searchUnderMemoryLimit(SearchSpace& s, const Graph& g, const PlanOptions& options,
                                          const PricedPlan& unconstrained) {
  const ObjectiveModel& model = s.model;
  MemorySearchResult r;
  r.smallestPeak = unconstrained.cost.peakBytesPerDevice;
  std::vector<Parts>& lowestPeak = r.lowestPeak;
  for (const NodePlan& np : unconstrained.plan.nodes) lowestPeak.push_back(np.parts);
  std::vector<Parts> tried;  // the partitions of the last attempt
  // Whether the partitions an earlier weight found fit: nearby weights often find the same
  // ones, and pricing them again (a whole-plan costPlan per placement rule, memory
  // included) would change nothing — the same cost neither lowers the peak reached nor
  // beats itself.
  std::map<std::vector<Parts>, bool> pricedFits;
  auto attempt = [&](double weight) {
    say(options, "--mem-limit: the plan does not fit; search " + std::to_string(r.searches + 2) + " with a memory penalty");
    setMemoryPenalty(s, weight);
    PartitionChoice choice = searchPartitions(s, options);
    tried = choice.parts;
    ++r.searches;
    if (const auto known = pricedFits.find(choice.parts); known != pricedFits.end()) return known->second;
    PricedPlan priced = placeAndPrice(g, options, "eindecomp", choice.parts);
    if (priced.cost.peakBytesPerDevice < r.smallestPeak) {
      r.smallestPeak = priced.cost.peakBytesPerDevice;
      lowestPeak = choice.parts;
    }
    const bool ok = model.fits(priced.cost);
    pricedFits.emplace(choice.parts, ok);
    if (ok && (!r.best || model.key(priced.cost) < model.key(r.best->cost))) {
      r.best = std::move(priced);
      r.choice = std::move(choice);
    }
    return ok;
  };
  // A weight at which the memory term weighs like the objective: objective per byte kept
  // (at least one: traffic is in bytes too, and a plan that sends nothing gives no scale).
  const double scale = std::max(1.0, static_cast<double>(model.total(unconstrained.cost)) /
                                         static_cast<double>(std::max<int64_t>(1, unconstrained.cost.peakBytesPerDevice)));
  double low = 0, high = -1;
  for (double w = scale / 64; w < scale * 1e12; w *= 4) {
    if (attempt(w)) {
      high = w;
      break;
    }
    low = w;
    if (keepsLeastMemory(s, tried)) break;  // no larger weight lowers the penalty further
  }
  for (int step = 0; high > 0 && step < 6; ++step) {
    const double mid = low > 0 ? std::sqrt(low * high) : high / 4;
    if (attempt(mid)) high = mid;
    else low = mid;
  }
  setMemoryPenalty(s, 0);
  if (!r.best) repairToFit(s, g, options, r, std::vector<Parts>(lowestPeak));
  return r;
}

}  // namespace eindecomp
