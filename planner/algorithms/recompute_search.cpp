#include "planner/algorithms/recompute_search.h"

#include <algorithm>
#include <map>

#include "planner/algorithms/pricing_budget.h"
#include "planner/cost/checked_math.h"
#include "planner/cost/plan_cost.h"
#include "planner/graph/diagnostic.h"
#include "planner/graph/graph_index.h"
#include "planner/graph/units.h"

namespace eindecomp {

namespace {

// Exact pricings the greedy descent may spend (each a whole-plan costPlan: milliseconds on
// a small graph, about a second on a 7B-parameter training step), in seconds of the
// reference machine of pricing_budget.h: counted in work, so the plan is the same anywhere.
constexpr double kBudgetSeconds = 20.0;
constexpr std::size_t kTriedPerStep = 6;

struct Candidate {
  Recompute entry;
  double flopsPerByte = 0;
};

// The node outputs live across step `peak` but not read there, which their first reader
// after it can make again without lengthening another tensor's life; cheapest first.
std::vector<Candidate> candidatesAt(const Graph& g, int peak) {
  const GraphIndex index(g);
  // The positions of the nodes reading a tensor, in node order (one per reading node).
  auto readers = [&](const std::string& name) {
    std::vector<int> r;
    for (const Use& u : index.consumers(name))
      if (r.empty() || r.back() != u.node) r.push_back(u.node);
    return r;
  };
  std::vector<Candidate> out;
  for (int v = 0; v < peak; ++v) {
    const Node& n = g.nodes[static_cast<std::size_t>(v)];
    const std::vector<int> r = readers(n.name);
    if (index.isOutput(n.name) || std::find(r.begin(), r.end(), peak) != r.end()) continue;
    const auto later = std::upper_bound(r.begin(), r.end(), peak);
    if (later == r.end()) continue;  // dead before the peak
    const int from = *later;
    bool livesAnyway = true;  // every node it reads is read at or after `from` anyway
    for (const std::string& in : n.inputs)
      if (index.nodeIndex(in) >= 0 && !index.isOutput(in))  // not a graph input (resident) or an output (held to the end)
        livesAnyway = livesAnyway && readers(in).back() >= from;
    if (!livesAnyway) continue;
    Candidate c{{n.name, g.nodes[static_cast<std::size_t>(from)].name, {}}, 0};
    int64_t elements = 1;
    for (const Label& l : n.outputLabels) elements = checkedMul(elements, n.labelSizes.at(l), "recompute");
    c.flopsPerByte = static_cast<double>(nodeFlops(n)) / static_cast<double>(std::max<int64_t>(1, elements));
    out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) { return a.flopsPerByte < b.flopsPerByte; });
  return out;
}

// g planned with every node's partition fixed (`parts` names the recomputed copies too),
// and priced with its exact memory plan.
struct Priced {
  Plan plan;
  PlanCost cost;
};

Priced priceFixed(const Graph& g, const PlanOptions& options, const std::map<std::string, Parts>& parts) {
  PlanOptions fixed = options;
  fixed.memLimitBytes.reset();
  fixed.lowestPeak.reset();
  fixed.progress = {};
  for (const Node& n : g.nodes)
    if (auto it = parts.find(n.name); it != parts.end()) fixed.pinned[n.name] = it->second;
  Priced p{planGraph(fixed.pinned.size() == g.nodes.size() ? "fixed" : "eindecomp", g, fixed), {}};
  p.cost = costPlan(g, p.plan, options.machine, MemoryDetail::Peak, fixed.trafficMemo.get());
  return p;
}

int peakStep(const PlanCost& cost) {
  const auto& live = cost.memory.nodeLiveBytes;
  return static_cast<int>(std::max_element(live.begin(), live.end()) - live.begin());
}

}  // namespace

RecomputeResult planWithRecompute(const Graph& g, const PlanOptions& options, const std::vector<Parts>& lowestPeak) {
  RecomputeResult result;
  if (!options.memLimitBytes || lowestPeak.size() != g.nodes.size()) return result;
  std::map<std::string, Parts> parts;
  for (std::size_t v = 0; v < g.nodes.size(); ++v) parts[g.nodes[v].name] = lowestPeak[v];
  if (options.progress) options.progress("--mem-limit: no plan fits; choosing nodes to compute again");
  PricingBudget budget(kBudgetSeconds, options.devices);
  auto inBudget = [&] { return budget.left(); };
  Graph current = g;
  std::vector<Recompute> entries;
  Priced priced = priceFixed(current, options, parts);
  // Greedy on the exact peak: of the first few candidates at the peak, the one that lowers
  // it most, while one does and the budget lasts.
  while (priced.cost.peakBytesPerDevice > *options.memLimitBytes && inBudget()) {
    const std::vector<Candidate> candidates = candidatesAt(current, peakStep(priced.cost));
    std::optional<std::pair<Graph, Priced>> best;
    std::vector<Recompute> bestEntries;
    // Tries `tried` (entries applied to `current` in order) and keeps it when it lowers the peak most.
    auto tryEntries = [&](const std::vector<Recompute>& tried) {
      // The copies run as their originals. Each candidate is a distinct node, so the name
      // withRecompute gives its copy is the one it would have in `current`.
      for (const Recompute& entry : tried) parts[recomputedName(current, entry.node)] = parts.at(entry.node);
      Graph g2 = withRecompute(current, tried);
      budget.charge(g2);
      Priced p = priceFixed(g2, options, parts);
      if (p.cost.peakBytesPerDevice < (best ? best->second.cost.peakBytesPerDevice : priced.cost.peakBytesPerDevice)) {
        best.emplace(std::move(g2), std::move(p));
        bestEntries = tried;
      }
    };
    // Every candidate at once first, where there are more than a few (activation
    // checkpointing at scale: a 7B-parameter step has hundreds of activations live at its
    // peak, and one pricing each would not end); the cheapest few one by one where that
    // does not lower the peak.
    if (candidates.size() > kTriedPerStep) {
      std::vector<Recompute> all;
      for (const Candidate& c : candidates) all.push_back(c.entry);
      tryEntries(all);
    }
    for (std::size_t k = 0; !best && k < candidates.size() && k < kTriedPerStep && inBudget(); ++k)
      tryEntries({candidates[k].entry});
    if (best && options.progress)
      options.progress("--mem-limit: " + std::to_string(entries.size() + bestEntries.size()) +
                       " node(s) computed again, peak " + formatBytes(best->second.cost.peakBytesPerDevice));
    if (!best) break;
    current = std::move(best->first);
    priced = std::move(best->second);
    entries.insert(entries.end(), bestEntries.begin(), bestEntries.end());
  }
  result.smallestPeak = priced.cost.peakBytesPerDevice;
  result.tried = entries.size();
  if (entries.empty() || priced.cost.peakBytesPerDevice > *options.memLimitBytes) return result;
  // The graph that fits with these partitions, searched again under the limit: the search
  // may find partitions that fit at a lower objective; else the descent's plan stands.
  Plan plan;
  try {
    PlanOptions again = options;
    again.lowestPeak.reset();
    plan = planGraph("eindecomp", current, again);
  } catch (const InputError& e) {
    if (e.exitCode() != kExitNoPlan) throw;
    plan = std::move(priced.plan);
    plan.algorithm = "eindecomp";
  }
  std::string names;
  for (const Recompute& e : entries) names += (names.empty() ? "" : ", ") + e.node;
  plan.notes.push_back("--mem-limit: no plan of the graph as written fits; " + std::to_string(entries.size()) +
                       " node(s) are computed again for their later uses (recompute; heuristic): " + names);
  plan.recompute = entries;
  result.fitted = RecomputedPlan{std::move(current), std::move(plan)};
  return result;
}

}  // namespace eindecomp
