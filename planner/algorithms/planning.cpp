#include "planner/algorithms/planning.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <future>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

#include "planner/algorithms/hand_candidates.h"
#include "planner/algorithms/memory_limit_search.h"
#include "planner/algorithms/placed_plan.h"
#include "planner/algorithms/search_space.h"
#include "planner/algorithms/strategies.h"
#include "planner/cost/checked_math.h"
#include "planner/cost/plan_cost.h"
#include "planner/cost/time_model.h"
#include "planner/fusion/fusion.h"
#include "planner/graph/identifiers.h"
#include "planner/graph/units.h"

namespace eindecomp {

ObjectiveModel objectiveModel(const Graph& g, const PlanOptions& options) {
  ObjectiveModel m;
  m.objective = options.objective;
  m.machine = options.machine;
  m.devices = options.devices;
  m.dtype = g.dtype;
  m.memLimitBytes = options.memLimitBytes;
  return m;
}

const std::vector<AlgorithmInfo>& algorithms() {
  static const std::vector<AlgorithmInfo> table{
      {"eindecomp", "the EinDecomp dynamic program (exact on in-trees; DAGs: docs/planner.md)", partitionEindecomp, false, true},
      {"uniform", "the paper's SQRT baseline: p's prime factors dealt round-robin over the labels", partitionUniform, true, true},
      {"balanced", "each prime factor of p to the label with the largest block extent", partitionBalanced, true, true},
      {"data", "the first output label gets the largest divisor of p dividing its size", partitionData, true, true},
      {"brute", "exhaustive search (small graphs only)", partitionBrute, false, false},
      {"fixed", "every node pinned by --plan, only priced", partitionFixed, false, false},
  };
  return table;
}

const AlgorithmInfo* findAlgorithm(const std::string& name) {
  for (const AlgorithmInfo& a : algorithms())
    if (name == a.name) return &a;
  return nullptr;
}

namespace {

std::vector<std::string> namesWhere(bool (*keep)(const AlgorithmInfo&)) {
  std::vector<std::string> names;
  for (const AlgorithmInfo& a : algorithms())
    if (keep(a)) names.emplace_back(a.name);
  return names;
}

}  // namespace

std::vector<std::string> algorithmNames() { return namesWhere([](const AlgorithmInfo&) { return true; }); }
std::vector<std::string> comparedAlgorithmNames() { return namesWhere([](const AlgorithmInfo& a) { return a.compared; }); }
std::vector<std::string> baselineAlgorithmNames() { return namesWhere([](const AlgorithmInfo& a) { return a.baseline; }); }

std::string algorithmList() {
  std::string s;
  for (const AlgorithmInfo& a : algorithms()) s += (s.empty() ? std::string(a.name) + " (default)" : ", " + std::string(a.name));
  return s;
}

namespace {

PartitionChoice choosePartitions(const std::string& algorithm, const Graph& g, const PlanOptions& options) {
  return findAlgorithm(algorithm)->choose(g, options);
}

[[noreturn]] void throwNoPlan(const PlanOptions& options, const std::string& who, int64_t smallestPeak) {
  throw InputError({{}, "no plan fits --mem-limit " + bytesText(*options.memLimitBytes) + " on every rank; the smallest peak " +
                              who + " reached is " + bytesText(smallestPeak)},
                   kExitNoPlan);
}

// Whether every node runs as many kernel calls as it can (usesAllDevices of the plan these
// partitions make), from the search space's per-node counts (`fullCalls`).
bool runsFullCalls(const std::vector<int64_t>& fullCalls, const std::vector<Parts>& parts) {
  for (std::size_t v = 0; v < parts.size(); ++v) {
    int64_t calls = 1;
    for (int64_t d : parts[v]) calls *= d;
    if (calls != fullCalls[v]) return false;
  }
  return true;
}

// A plan made as `options` say, or none where no plan fits --mem-limit.
std::optional<Plan> planOrNone(const Graph& g, const PlanOptions& options) {
  try {
    return planGraph("eindecomp", g, options);
  } catch (const InputError& e) {
    if (e.exitCode() != kExitNoPlan) throw;
    return std::nullopt;
  }
}

// The options of a plan made beside the request's: its own traffic memo, and none of the
// request's answers (lowestPeak, returnedCost) are its to write.
PlanOptions besideTheRequest(PlanOptions other) {
  other.trafficMemo = std::make_shared<TrafficMemo>();
  other.lowestPeak.reset();
  other.returnedCost.reset();
  other.rulesSideBySide = false;
  return other;
}

// A plan to compare with at the end (the cluster's without its nodes, the time objective's
// for traffic), made on a thread of its own while this one searches: the two share nothing
// but the graph (besideTheRequest). None when no plan fits --mem-limit.
std::future<std::optional<Plan>> planMeanwhile(const Graph& g, const PlanOptions& options, const std::string& what) {
  say(options, what + " (on a thread of its own)");
  PlanOptions other = besideTheRequest(options);
  return std::async(std::launch::async, [&g, other]() { return planOrNone(g, other); });
}

// The cluster's plan made without its nodes, priced on the cluster (as the plan the
// search returns is) on the same thread: its pricing, a second or so on a large model,
// is then not left for the end (keepClusterPlanOrFlat). Its time and bytes between nodes
// there are published as soon as they are known (the search's plan, placed meanwhile, is
// abandoned once it is sure to take longer: placeAndPrice's rival). Then its memory is
// priced too, which the report of a plan returned needs and which, at scale, the flat plan
// mostly is: this thread has the time while the cluster plan is placed (LLaMA-65B at
// p = 16,384: 8 s that the report would otherwise take at the end).
struct FlatOnCluster {
  std::atomic<int64_t> interNodeBytes{-1};
  std::atomic<int64_t> timePs{-1};  // stored last: known once it is
};
std::future<std::optional<PricedPlan>> planFlatMeanwhile(const Graph& g, const PlanOptions& options,
                                                         std::shared_ptr<FlatOnCluster> published) {
  PlanOptions flat = besideTheRequest(options);
  flat.machine = flatMachine(*options.machine);
  say(options, "planning the same machine with its nodes forgotten, to compare (on a thread of its own)");
  return std::async(std::launch::async, [&g, flat, options, published]() -> std::optional<PricedPlan> {
    std::optional<Plan> made = planOrNone(g, flat);
    if (!made) return std::nullopt;
    made->ranksPerNode = ranksPerNodeOf(options);
    say(options, "pricing the plan made without the nodes on the cluster");
    PlanCost onCluster = costPlan(g, *made, options.machine, memoryToCompare(options), options.trafficMemo.get());
    published->interNodeBytes.store(onCluster.interNodeBytes);
    published->timePs.store(*onCluster.timePs);
    bool memoryPriced = memoryToCompare(options) == MemoryDetail::Peak;
    if (!memoryPriced && options.returnedCost) {  // the request's report will need it
      say(options, "pricing the memory of the plan made without the nodes, for the report");
      onCluster = costPlan(g, *made, options.machine, MemoryDetail::Peak, options.trafficMemo.get());
      memoryPriced = true;
    }
    return PricedPlan{std::move(*made), std::move(onCluster), PlacementRule::Canonical, false, 0, std::nullopt, memoryPriced};
  });
}

// The flat plan's time on the cluster, once its thread has priced it.
RivalTime rivalOf(const std::shared_ptr<FlatOnCluster>& published) {
  return [published]() -> std::optional<int64_t> {
    const int64_t ps = published->timePs.load();
    return ps < 0 ? std::nullopt : std::optional<int64_t>(ps);
  };
}

// Whether no baseline's plan that eindecomp could return instead of the search's (the
// ones planGraph prices: unlike the search's partitions, running every call) would be kept
// over the flat plan, as the search's abandoned plan would not: each is sure to take longer
// on the cluster (by its floor, timeLowerBound, or abandoned as it is placed) or sends more
// between nodes. Then keepClusterPlanOrFlat returns the flat plan whichever of them is the
// cheapest. A baseline that cannot be chosen, or one that would be kept, leaves it to
// planGraph's own comparisons.
bool baselinesLoseToo(const Graph& g, const PlanOptions& options, const std::vector<int64_t>& fullCalls,
                      const std::vector<Parts>& searched,
                      const std::optional<PlanCost>& ceiling, const RivalTime& rival, const FlatOnCluster& flat) {
  const int64_t rivalPs = *rival();
  const ObjectiveModel model = objectiveModel(g, options);
  std::vector<std::vector<Parts>> seen{searched};
  for (const std::string& name : baselineAlgorithmNames()) {
    std::vector<Parts> parts;
    try {
      parts = choosePartitions(name, g, options).parts;
    } catch (const InputError& e) {
      if (e.exitCode() == kExitNoPlan) continue;
      return false;
    }
    if (std::find(seen.begin(), seen.end(), parts) != seen.end() || !runsFullCalls(fullCalls, parts)) continue;
    seen.push_back(parts);
    // Cannot be the cheapest (it costs more than some rule's plan of the search's
    // partitions), or cannot be kept over the flat plan.
    if (ceiling && cannotBeat(g, options, model, *ceiling, parts)) continue;
    if (timeLowerBound(g, parts, *options.machine, options.devices) > rivalPs) continue;
    const PricedPlan priced = placeAndPrice(g, options, name, parts, rival);
    if (!priced.abandoned && *priced.cost.timePs <= rivalPs && priced.cost.interNodeBytes <= flat.interNodeBytes.load())
      return false;
  }
  return true;
}

std::future<std::optional<Plan>> planForTrafficMeanwhile(const Graph& g, const PlanOptions& options) {
  PlanOptions traffic = options;
  traffic.objective = Objective::Traffic;
  return planMeanwhile(g, std::move(traffic), "--objective time: planning for traffic too, to compare");
}

// On a cluster the plan is also made for the same machine with its nodes forgotten (every
// link priced as the intra-node one: what a cluster-blind planner returns) and priced on
// the cluster. The cluster-aware plan is kept when it sends no more bytes between nodes and
// takes no longer there; otherwise the flat plan is returned. So a plan for a cluster is
// never worse on the network, nor slower by the model, than the one made without its nodes.
// Returns whether the flat plan is. Its notes say only what does not depend on how far
// the cluster plan was priced (it is abandoned once sure to take longer, at a point that
// depends on the two threads' timing): a plan is the same document from run to run.
bool keepClusterPlanOrFlat(const Graph& g, const PlanOptions& options, std::future<std::optional<PricedPlan>>& flatPlan,
                           PricedPlan& best, std::vector<std::string>& notes) {
  std::optional<PricedPlan> made = flatPlan.get();
  if (!made) return false;
  Plan& flat = made->plan;
  const PlanCost& onCluster = made->cost;
  const ObjectiveModel model = objectiveModel(g, options);
  const std::string flatText = formatBytes(onCluster.interNodeBytes) + " between nodes in " +
                               formatSeconds(picosecondsToSeconds(*onCluster.timePs)) + " on this cluster, so it is returned";
  if (best.abandoned || *best.cost.timePs > *onCluster.timePs) {
    if (!model.fits(onCluster)) return false;  // (never abandoned under --mem-limit)
    notes.push_back("cluster: the plan made for the nodes takes longer than the plan made without them, which sends " + flatText);
  } else {
    if (best.cost.interNodeBytes <= onCluster.interNodeBytes || !model.fits(onCluster)) return false;
    notes.push_back("cluster: the plan made for the nodes sends " + formatBytes(best.cost.interNodeBytes) + " between nodes in " +
                    formatSeconds(picosecondsToSeconds(*best.cost.timePs)) + "; the plan made without them sends " + flatText);
  }
  best.plan = std::move(flat);
  best.cost = onCluster;
  best.abandoned = false;
  best.memoryPriced = made->memoryPriced;
  return true;
}

// --objective time: the search's plan replaces the traffic objective's plan only where it is
// estimated faster by more than options.timeMargin (the kernel model's resolution);
// otherwise the plan that moves fewer bytes is returned, with a note — also where both
// send the same bytes: a gain inside the model's error is no reason to leave the traffic
// plan (tt / 2 at p = 2: estimated 0.3 % faster, measured 1.17x slower; bench/RESULTS.md).
// (Also where the traffic plan is estimated faster outright: the search prices
// elementwise nodes one by one and the multi-consumer DAG heuristically, the finished
// plans as they run.)
// Returns whether it did; the traffic plan's own placement note then comes with it.
bool keepTrafficPlanWithinMargin(const Graph& g, const PlanOptions& options, const ObjectiveModel& model,
                                 std::future<std::optional<Plan>>& trafficPlan, PricedPlan& best, bool& optimal,
                                 std::vector<std::string>& notes) {
  std::optional<Plan> made = trafficPlan.get();
  if (!made) return false;
  Plan traffic = std::move(*made);
  const PlanCost trafficCost = costPlan(g, traffic, options.machine, memoryToCompare(options), options.trafficMemo.get());
  const double fastest = static_cast<double>(*best.cost.timePs), kept = static_cast<double>(*trafficCost.timePs);
  if (trafficCost.trafficBytes > best.cost.trafficBytes || kept > fastest * (1 + options.timeMargin) ||
      !model.fits(trafficCost))
    return false;
  const bool sameBytes = trafficCost.trafficBytes == best.cost.trafficBytes;
  if (sameBytes && kept == fastest) return false;  // nothing between them to trade
  char share[32];
  std::snprintf(share, sizeof share, "%+.1f %%", 100 * (kept / std::max(fastest, 1.0) - 1));
  notes.push_back("time objective: the traffic objective's plan is estimated at " + formatSeconds(kept * 1e-12) + " (" +
                  share + " against the search's " + formatSeconds(fastest * 1e-12) +
                  ": within --time-margin) and sends " +
                  (sameBytes ? "as many bytes (" + formatBytes(trafficCost.trafficBytes) + ")"
                             : formatBytes(trafficCost.trafficBytes) + " instead of " + formatBytes(best.cost.trafficBytes)) +
                  ", so it is returned");
  for (const std::string& n : traffic.notes)
    if (n.rfind("placement: ", 0) == 0) notes.push_back(n);
  best.plan = std::move(traffic);
  best.cost = trafficCost;
  best.memoryPriced = memoryToCompare(options) == MemoryDetail::Peak;
  optimal = false;
  return true;
}

// placeAndPrice for every entry of `items` without an error (each has `parts`, and gets
// `priced` or `error`), two at a time: the second thread is idle by then on most
// requests (the cluster's flat plan is searched beside the first). Both threads share the
// request's traffic memo (TrafficMemo locks around its lookups and inserts).
template <class Item>
void priceOnTwoThreads(const Graph& g, const PlanOptions& options, std::vector<Item>& items) {
  std::atomic<std::size_t> next{0};
  auto work = [&](const PlanOptions& o) {
    for (std::size_t i = next++; i < items.size(); i = next++) {
      if (items[i].error) continue;
      try {
        items[i].priced = placeAndPrice(g, o, "eindecomp", items[i].parts);
      } catch (...) {
        items[i].error = std::current_exception();
      }
    }
  };
  PlanOptions one = options;
  one.rulesSideBySide = false;  // two threads already
  std::thread helper;
  if (items.size() > 1) helper = std::thread(work, std::cref(one));
  work(one);
  if (helper.joinable()) helper.join();
}

}  // namespace

Plan planGraph(const std::string& algorithm, const Graph& g, const PlanOptions& options) {
  if (!options.trafficMemo) {  // one memo for every plan this request prices
    PlanOptions remembering = options;
    remembering.trafficMemo = std::make_shared<TrafficMemo>();
    return planGraph(algorithm, g, remembering);
  }
  if (options.devices <= 0) throw InputError({{}, "the device count must be a positive integer"});
  if (options.devices > kMaxDevices)
    throw InputError({{}, "-p/--devices: " + std::to_string(options.devices) + " is above the planner's maximum of " +
                              std::to_string(kMaxDevices) + " ranks (docs/hardening.md, Limits)"});
  if (!findAlgorithm(algorithm)) {
    std::string list;
    for (const auto& n : algorithmNames()) list += (list.empty() ? "" : ", ") + n;
    throw InputError({{}, "--algorithm: unknown algorithm " + quoted(algorithm) + didYouMean(algorithm, algorithmNames()) +
                                                 " (known: " + list + ")"});
  }
  if (options.objective == Objective::Time && !options.machine)
    throw InputError({{}, "--objective time needs a machine file: add --machine FILE (einrt-calibrate writes one)"});
  // A limit below what the graph's inputs and outputs alone need is answered at once.
  if (const int64_t floor = options.memLimitBytes ? peakLowerBound(g, options.devices) : 0; options.memLimitBytes && *options.memLimitBytes < floor)
    throw InputError({{}, "no plan fits --mem-limit " + bytesText(*options.memLimitBytes) + " on every rank: the graph's inputs "
                              "and outputs alone, spread evenly over " + std::to_string(options.devices) + " ranks, need " +
                              bytesText(floor) + " on each"},
                     kExitNoPlan);
  const auto start = std::chrono::steady_clock::now();
  const ObjectiveModel model = objectiveModel(g, options);
  // On a cluster, the plan made without its nodes, to compare at the end (keepClusterPlanOrFlat).
  std::future<std::optional<PricedPlan>> flatPlan;
  std::shared_ptr<FlatOnCluster> flatOnCluster;
  RivalTime flatRival;  // the search's plan is abandoned once sure to take longer (none under --mem-limit)
  if (algorithm == "eindecomp" && options.machine && options.machine->rankNodes().spansNodes(options.devices)) {
    flatOnCluster = std::make_shared<FlatOnCluster>();
    flatPlan = planFlatMeanwhile(g, options, flatOnCluster);
    if (!options.memLimitBytes) flatRival = rivalOf(flatOnCluster);
  }
  // --objective time with the kernel model: the traffic objective's plan, to compare at the end.
  std::future<std::optional<Plan>> trafficPlan;
  if (algorithm == "eindecomp" && options.objective == Objective::Time && options.machine && options.machine->kernels)
    trafficPlan = planForTrafficMeanwhile(g, options);
  std::optional<SearchSpace> space;
  std::vector<int64_t> fullCalls;  // per node, the search space's kernel calls
  PartitionChoice choice;
  if (algorithm == "eindecomp") {
    say(options, "searching the partitions of " + std::to_string(g.nodes.size()) + " nodes for " + std::to_string(options.devices) +
                     " ranks");
    space.emplace(buildSearchSpace(g, options));
    choice = searchPartitions(*space, options);
    for (const auto& node : space->nodes) fullCalls.push_back(node->kernelCalls);
    // Only the --mem-limit search reads the space again: without it the space's per-rank
    // tables (a gigabyte of LLaMA-65B's at p = 16,384) go before the plans are placed.
    if (!options.memLimitBytes) space.reset();
  } else {
    choice = choosePartitions(algorithm, g, options);
  }
  say(options, "placing the partitions' kernel calls on the ranks and pricing the plan");
  PricedPlan best = placeAndPrice(g, options, algorithm, choice.parts, flatRival);
  if (best.abandoned && !baselinesLoseToo(g, options, fullCalls, choice.parts, best.ceiling, flatRival, *flatOnCluster))
    best = placeAndPrice(g, options, algorithm, choice.parts);  // finished after all
  int64_t smallestPeak = best.cost.peakBytesPerDevice;
  std::vector<Parts> lowestPeak = choice.parts;  // the partitions that reached smallestPeak
  std::vector<std::string> notes;
  bool penalized = false;
  if (algorithm == "eindecomp" && !model.fits(best.cost)) {
    penalized = true;
    MemorySearchResult m = searchUnderMemoryLimit(*space, g, options, best);
    smallestPeak = m.smallestPeak;
    lowestPeak = m.lowestPeak;
    const std::string unconstrainedPeak = bytesText(best.cost.peakBytesPerDevice);
    if (m.best) {
      best = std::move(*m.best);
      choice = std::move(m.choice);
      notes.push_back("--mem-limit: the unconstrained plan peaks at " + unconstrainedPeak + "; " + std::to_string(m.searches) +
                      " searches with a memory penalty found this plan, peaking at " + bytesText(best.cost.peakBytesPerDevice) +
                      " (heuristic: the fitting optimum may cost less)");
    }
  }
  for (std::string& note : choice.notes) notes.push_back(std::move(note));
  bool optimal = choice.optimal && !penalized;
  std::size_t notesBeforeBaselines = notes.size();
  bool optimalBeforeBaselines = optimal;
  if (algorithm == "eindecomp" && !best.abandoned) {
    // The search is exact under the canonical placement; a baseline's partitions, placed
    // by another rule, or a DAG the search only approximates, may still cost less: then
    // eindecomp returns them, so it never loses to a baseline that uses the devices as fully.
    // Partitions already priced are not placed and priced again (on a chain of elementwise
    // nodes every baseline picks the search's partitions; pricing is linear in the nodes
    // but not free: a 100,000-node chain).
    notesBeforeBaselines = notes.size();
    optimalBeforeBaselines = optimal;
    std::vector<std::vector<Parts>> priced{choice.parts};
    say(options, "pricing the baselines' partitions");
    // Chosen first, in order (a baseline that cannot run is passed over, any other error
    // kept for its turn), priced two at a time, and then taken in order as one by one.
    struct Baseline {
      std::string name;
      std::vector<Parts> parts;
      std::exception_ptr error;  // choosing or pricing them failed
      std::optional<PricedPlan> priced;
    };
    std::vector<Baseline> baselines;
    for (const std::string& name : baselineAlgorithmNames()) {
      Baseline b{name, {}, nullptr, std::nullopt};
      try {
        b.parts = choosePartitions(name, g, options).parts;
        if (std::find(priced.begin(), priced.end(), b.parts) != priced.end()) continue;
        // Without --mem-limit (whose message names the smallest peak any plan reached), a
        // baseline leaving devices idle cannot be returned (below): it is not priced.
        if (!options.memLimitBytes && !runsFullCalls(fullCalls, b.parts)) continue;
        priced.push_back(b.parts);
        // (Against the search's plan: a baseline returned below only lowers the best, so
        // one this skips could not have been returned after it either.)
        if (cannotBeat(g, options, model, best.cost, b.parts)) continue;
      } catch (const InputError& e) {
        if (e.exitCode() == kExitNoPlan) continue;
        b.error = std::current_exception();
      }
      baselines.push_back(std::move(b));
    }
    priceOnTwoThreads(g, options, baselines);
    for (Baseline& b : baselines) {
      try {
        if (b.error) std::rethrow_exception(b.error);
      } catch (const InputError& e) {
        if (e.exitCode() != kExitNoPlan) throw;
        continue;
      }
      std::optional<PricedPlan>& other = b.priced;
      if (other->cost.peakBytesPerDevice < smallestPeak) {
        smallestPeak = other->cost.peakBytesPerDevice;
        lowestPeak = b.parts;
      }
      // Only plans that use the devices as the search does compete: a baseline that leaves
      // devices idle (fewer kernel calls on some node) moves less by doing less.
      if (usesAllDevices(other->plan) && model.key(other->cost) < model.key(best.cost)) {
        notes.push_back("eindecomp: the search's plan costs " + model.totalText(best.cost) + "; " +
                        b.name + "'s partitions cost " + model.totalText(other->cost) +
                        ", so they are returned");
        optimal = optimal && model.total(other->cost) == model.total(best.cost);
        best = std::move(*other);
      }
    }
    say(options, "pricing the hand strategies' plans");
    if (auto hand = cheaperHandStrategy(g, options, model, best.cost)) {
      notes.push_back("eindecomp: the search's plan costs " + model.totalText(best.cost) + "; " + hand->first +
                      "'s plan (its aggregations reduced at their readers, which the search prices apart) costs " +
                      model.totalText(hand->second.cost) + ", so it is returned");
      optimal = false;
      best = std::move(hand->second);
    }
  }
  std::vector<std::string> clusterNotes;
  const bool flatKept = flatPlan.valid() && (best.abandoned || model.fits(best.cost)) &&
                        keepClusterPlanOrFlat(g, options, flatPlan, best, clusterNotes);
  if (flatKept) {  // the notes describe the plan returned, not the cluster plan a baseline may have replaced
    notes.resize(notesBeforeBaselines);
    optimal = optimalBeforeBaselines;
  }
  notes.insert(notes.end(), clusterNotes.begin(), clusterNotes.end());
  const bool trafficPlanKept =
      trafficPlan.valid() && model.fits(best.cost) && keepTrafficPlanWithinMargin(g, options, model, trafficPlan, best, optimal, notes);
  if (!model.fits(best.cost) && options.lowestPeak) *options.lowestPeak = lowestPeak;
  if (!model.fits(best.cost)) throwNoPlan(options, algorithm == "fixed" ? "the given plan" : algorithm, smallestPeak);
  if (!trafficPlanKept && flatKept) {
    for (const std::string& n : best.plan.notes)
      if (n.rfind("placement: ", 0) == 0) notes.push_back(n);
  } else if (!trafficPlanKept && options.placementRules.size() > 1) {
    notes.push_back(std::string("placement: ") + placementRuleName(best.rule) + " rule (the cheaper of " +
                    std::to_string(options.placementRules.size()) + " rules under the objective)");
  }
  if (algorithm == "eindecomp" && options.objective == Objective::Time && options.machine && options.machine->kernels &&
      !trafficPlanKept) {
    const Fusion fusion = chooseFusion(g, best.plan);
    if (!fusion.groups.empty()) {
      optimal = false;
      notes.push_back("time objective: the search priced elementwise nodes one by one; this plan runs " +
                      std::to_string(fusion.groups.size()) + " fused group(s), priced as they run, so the partitions are "
                      "optimal for the unfused prices only");
    }
  }
  if (options.machine && !options.machine->kernels)
    notes.push_back("machine: the machine file has no kernel_model, so times come from the coarse model (one GEMM rate, "
                    "one memory bandwidth); einrt-calibrate measures the kernel model (docs/cost-model.md)");
  if (options.returnedCost && best.memoryPriced) *options.returnedCost = best.cost;
  Plan plan = std::move(best.plan);
  plan.notes = std::move(notes);
  plan.optimal = optimal;
  plan.searchSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return plan;
}

}  // namespace eindecomp
