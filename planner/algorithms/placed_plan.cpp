#include "planner/algorithms/placed_plan.h"

#include "planner/graph/micro_batches.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <future>
#include <limits>
#include <optional>
#include <utility>

#include "planner/cost/checked_math.h"
#include "planner/cost/time_model.h"
#include "planner/graph/graph_index.h"
#include "planner/partition/call_geometry.h"
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
  const std::vector<DType> types = nodeComputeTypes(g);
  for (std::size_t i = 0; i < plan.nodes.size(); ++i) {
    NodePlan& np = plan.nodes[i];
    if (const auto pin = options.pinnedGemmPaths.find(np.name); pin != options.pinnedGemmPaths.end()) np.gemmPath = pin->second;
    else if (options.machine) np.gemmPath = plannedGemmPath(*options.machine, g.nodes[i], nodeSpace(g.nodes[i]), np.parts, types[i]);
  }
}

// Prices a plan node by node as placeNodes places it (NodePlaced), once the rival's time is
// known, and stops the placement when the plan is sure to take longer: the nodes placed at
// their exchanges' time, the rest at their floors, every node's kernels at theirs (the
// fused groups, which price them with a kernel model, are chosen from the whole plan).
// The exchanges go through the request's memo, where costPlan finds them if the plan is
// finished.
class LosingPlanWatch {
 public:
  LosingPlanWatch(const Graph& g, const PlanOptions& options, const std::vector<Parts>& parts, RivalTime rival)
      : g_(g), options_(options), parts_(parts), rival_(std::move(rival)), index_(g), types_(nodeOutputTypes(g)),
        computeFloor_(computeFloorsByNode(*options.machine, g, parts)), restFloor_(g.nodes.size() + 1, 0),
        runs_(nodeRuns(g, Invariants::OncePerStep)) {
    const std::vector<int64_t> floors = timeFloorsByNode(g, parts, *options.machine, options.devices);
    for (std::size_t i = floors.size(); i-- > 0;) restFloor_[i] = checkedAdd(restFloor_[i + 1], floors[i], "estimated time");
  }
  // Where a plan of these partitions can be watched: a machine to time it on, the bounds
  // holding, and no --mem-limit (whose comparisons read memory, not time).
  static bool applies(const PlanOptions& options, const std::vector<Parts>& parts) {
    return options.machine && !options.memLimitBytes && boundsHold(options, parts);
  }
  bool operator()(std::size_t node, const CallGeometry& geometry, const std::vector<Placement>& placements) {
    if (!rivalPs_ && !(rivalPs_ = rival_())) return true;
    // The nodes not priced yet count at their floors until they are: that may settle it
    // before the ones placed before the rival's time came are priced.
    lost_ = floorPs() > *rivalPs_;
    if (!lost_) {
      for (; priced_ < node; ++priced_)  // placed before the rival's time came
        placedPs_ = checkedAdd(placedPs_, exchange(priced_, callGeometry(nodeSpace(g_.nodes[priced_]), parts_[priced_]), placements),
                               "estimated time");
      placedPs_ = checkedAdd(placedPs_, exchange(node, geometry, placements), "estimated time");
      priced_ = node + 1;
      lost_ = floorPs() > *rivalPs_;
    }
    if (lost_)
      say(options_, "this plan takes at least " + formatSeconds(picosecondsToSeconds(floorPs())) + ", longer than " +
                        formatSeconds(picosecondsToSeconds(*rivalPs_)) + ": abandoned after placing " +
                        std::to_string(node + 1) + " of " + std::to_string(g_.nodes.size()) + " nodes");
    return !lost_;
  }
  bool lost() const { return lost_; }
  int64_t floorPs() const { return checkedAdd(placedPs_, restFloor_[priced_], "estimated time"); }

 private:
  // The node's exchanges and its kernels' floor, each at least as often as it runs per step
  // (micro-batches: the exchanges at the aggregation's runs, the fewer of the two; once
  // where an operand comes from an invariant run once, whose repartition runs once).
  int64_t exchange(std::size_t node, const CallGeometry& geometry, const std::vector<Placement>& placements) const {
    const NodeRuns& runs = runs_[node];
    int64_t times = runs.aggregation;
    for (const std::string& input : g_.nodes[node].inputs)
      if (const int from = index_.nodeIndex(input); from >= 0 && runs_[static_cast<std::size_t>(from)].once) times = 1;
    return checkedAdd(checkedMul(exchangePicoseconds(g_, index_, node, geometry, parts_, placements, types_, runs_, *options_.machine,
                                                     options_.devices, options_.trafficMemo.get()),
                                 times, "estimated time"),
                      checkedMul(computeFloor_[node], runs.calls, "estimated time"), "estimated time");
  }
  const Graph& g_;
  const PlanOptions& options_;
  const std::vector<Parts>& parts_;
  RivalTime rival_;
  GraphIndex index_;
  std::vector<DType> types_;
  std::vector<int64_t> computeFloor_;
  std::vector<int64_t> restFloor_;  // [i]: the floors of nodes i.. together
  std::vector<NodeRuns> runs_;      // how often each node's phases run per step (micro_batches.h)
  std::optional<int64_t> rivalPs_;
  int64_t placedPs_ = 0;            // nodes [0, priced_) at their exchanges' time
  std::size_t priced_ = 0;
  bool lost_ = false;
};

}  // namespace

void say(const PlanOptions& options, const std::string& phase) {
  if (options.progress) options.progress(phase);
}

bool boundsHold(const PlanOptions& options, const std::vector<Parts>& parts) {
  if (!options.pinnedPlacements.empty()) return false;
  for (const Parts& p : parts) {
    int64_t calls = 1;
    for (int64_t d : p) calls *= d;
    if (calls > options.devices) return false;
  }
  return true;
}

MemoryDetail memoryToCompare(const PlanOptions& options) {
  return options.memLimitBytes ? MemoryDetail::Peak : MemoryDetail::None;
}

int64_t ranksPerNodeOf(const PlanOptions& options) {
  return options.machine ? options.machine->ranksPerNode.value_or(0) : options.ranksPerNode;
}

PricedPlan placeAndPrice(const Graph& g, const PlanOptions& options, const std::string& algorithm,
                         const std::vector<Parts>& parts, const RivalTime& rival) {
  const ObjectiveModel model = objectiveModel(g, options);
  const bool watched = rival && LosingPlanWatch::applies(options, parts);
  auto placedBy = [&](PlacementRule rule, bool watch) {
    std::optional<LosingPlanWatch> losing;
    if (watch) losing.emplace(g, options, parts, rival);
    std::vector<Placement> placements = placeNodes(g, parts, rule, options.pinnedPlacements, options.devices, linkWeights(options),
                                                   losing ? NodePlaced(std::ref(*losing)) : NodePlaced{});
    if (losing && losing->lost()) return PricedPlan{{}, {}, rule, true, losing->floorPs(), std::nullopt, false};
    Plan plan = makePlan(g, options.devices, algorithm, parts, std::move(placements));
    plan.ranksPerNode = ranksPerNodeOf(options);
    plan.partialsOnOwners = options.partialsOnOwners;
    plan.invariantsPerMicroBatch = options.invariantsPerMicroBatch;
    chooseGemmPaths(g, options, plan);
    PlanCost cost = costPlan(g, plan, options.machine, memoryToCompare(options), options.trafficMemo.get());
    // Where the plan passes --mem-limit, the same plan with one of its buffer choices
    // switched (`change`), kept if its peak is lower.
    auto lowerPeakWith = [&](auto change) {
      Plan changed = plan;
      change(changed);
      PlanCost changedCost = costPlan(g, changed, options.machine, MemoryDetail::Peak, options.trafficMemo.get());
      if (changedCost.peakBytesPerDevice < cost.peakBytesPerDevice) {
        plan = std::move(changed);
        cost = std::move(changedCost);
      }
    };
    auto over = [&] { return options.memLimitBytes && cost.peakBytesPerDevice > *options.memLimitBytes; };
    // Partials reduced at read are held until their reader's step ends: every aggregation
    // onto owners instead.
    if (over() && !plan.partialsOnOwners &&
        std::any_of(cost.nodes.begin(), cost.nodes.end(), [](const NodePlanCost& c) { return c.reducedAtReadBy >= 0; }))
      lowerPeakWith([](Plan& p) { p.partialsOnOwners = true; });
    // Invariants run once keep their readers' copies for the whole body: gathered again
    // for each micro-batch instead (FSDP's way).
    if (over() && !plan.invariantsPerMicroBatch && microBatchCount(g) > 1)
      lowerPeakWith([](Plan& p) { p.invariantsPerMicroBatch = true; });
    return PricedPlan{std::move(plan), std::move(cost), rule, false, 0, std::nullopt, memoryToCompare(options) == MemoryDetail::Peak};
  };
  // Every rule but the last on a thread of its own (the memo is safe from several): on a
  // cluster at p = 16,384 the canonical rule's plan takes a second or two to place and
  // price beside the matched rule's ten (LLaMA-65B, 20 layers).
  const std::vector<PlacementRule>& rules = options.placementRules;
  std::vector<PricedPlan> placed;
  if (!options.rulesSideBySide || rules.size() < 2) {
    for (PlacementRule rule : rules) placed.push_back(placedBy(rule, watched));
  } else {
    std::vector<std::future<PricedPlan>> others;
    for (std::size_t r = 0; r + 1 < rules.size(); ++r) others.push_back(std::async(std::launch::async, placedBy, rules[r], watched));
    PricedPlan last = placedBy(rules.back(), watched);
    for (auto& other : others) placed.push_back(other.get());
    placed.push_back(std::move(last));
  }
  // Where some rule's plan was abandoned, the plan kept is sure to lose to the rival when
  // every finished one takes longer too; else the abandoned are finished (the cheapest
  // under the objective may be one of them).
  const auto abandoned = std::count_if(placed.begin(), placed.end(), [](const PricedPlan& p) { return p.abandoned; });
  if (abandoned > 0) {
    const int64_t rivalPs = *rival();  // known: a plan was abandoned against it
    int64_t floor = std::numeric_limits<int64_t>::max();
    for (const PricedPlan& p : placed) floor = std::min(floor, p.abandoned ? p.timeFloorPs : *p.cost.timePs);
    if (floor > rivalPs) {
      PricedPlan lost{{}, {}, rules.front(), true, floor, std::nullopt, false};
      for (const PricedPlan& p : placed)
        if (!p.abandoned && (!lost.ceiling || model.key(p.cost) < model.key(*lost.ceiling))) lost.ceiling = p.cost;
      return lost;
    }
    for (std::size_t r = 0; r < rules.size(); ++r)
      if (placed[r].abandoned) placed[r] = placedBy(rules[r], false);
  }
  // Compared in the rules' order, so the plan kept is the one a single thread keeps.
  std::size_t best = 0;
  for (std::size_t r = 1; r < placed.size(); ++r)
    if (model.key(placed[r].cost) < model.key(placed[best].cost)) best = r;
  return std::move(placed[best]);
}

std::string bytesText(int64_t bytes) { return std::to_string(bytes) + " bytes (" + formatBytes(bytes) + ")"; }

}  // namespace eindecomp
