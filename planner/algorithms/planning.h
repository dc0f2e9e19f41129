// Planning: every algorithm of SPEC 4 is a function Graph x PlanOptions -> Plan.
//   eindecomp  the EinDecomp dynamic program (exact on in-trees; DAGs: see eindecomp.cpp)
//   uniform    the paper's "SQRT" baseline: p's prime factors dealt round-robin over labels
//   balanced   size-aware: smallest prime factor to the label with the largest block extent
//   data       the first output label gets the largest divisor of p dividing its size
//   brute      exhaustive search (refuses above kBruteForceLimit combinations, exit 2)
//   fixed      every node pinned (from --plan), only costed
// Each algorithm chooses the partitions; planGraph then places the calls (placement.h)
// by every rule in PlanOptions::placementRules and keeps the plan that costs least under
// the objective (then under traffic); placements pinned by a plan file are kept as
// written. eindecomp also prices the baselines' partitions the same way and never
// returns a costlier plan than theirs.
// Nodes must have 1 or 2 operands (n-ary nodes are split before planning); others are
// rejected with an InputError. --mem-limit bounds every rank's whole-program peak
// (memory.h): no algorithm returns a plan above it (exit 3 instead), and eindecomp
// searches again with a memory penalty when its first plan does not fit (planning.cpp);
// pinned nodes keep exactly their pinned partition.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "planner/cost/machine.h"
#include "planner/cost/objective.h"
#include "planner/cost/objective_model.h"
#include "planner/cost/plan_cost.h"
#include "planner/cost/traffic.h"
#include "planner/graph/graph.h"
#include "planner/partition/partition.h"
#include "planner/placement/plan.h"

namespace eindecomp {

// brute refuses search spaces with more combinations of node partitions than this.
inline constexpr double kBruteForceLimit = 2e6;

// The kernel model's resolution: its estimates land within 5-20 % of measured times on the
// bench workloads (bench/RESULTS.md), and plans estimated a few per cent apart measured up
// to 1.2x the other way round; trading traffic for a gain smaller than this is a guess.
inline constexpr double kDefaultTimeMargin = 0.05;

struct PlanOptions {
  int64_t devices = 1;
  Objective objective = Objective::Traffic;
  std::optional<Machine> machine;         // required by Objective::Time; reports add times with it
  int64_t ranksPerNode = 0;               // without a machine: a plan file's cluster (its links are still split)
  bool partialsOnOwners = false;          // a plan file's: every plan aggregates onto owners (plan.h)
  bool invariantsPerMicroBatch = false;   // zero3's or a plan file's: invariants run in every micro-batch (plan.h)
  std::optional<int64_t> memLimitBytes;   // every rank's whole-program peak (memory.h) allowed
  std::map<std::string, Parts> pinned;    // node name -> partition over iterationLabels (validated)
  PinnedPlacements pinnedPlacements;      // node name -> rank of each call (validated; pinned nodes only)
  std::map<std::string, einrt::program::GemmPlanned> pinnedGemmPaths;  // a plan file's gemm_path per node
  // The placement rules planGraph tries; the cheaper plan wins. The tests of the search's
  // exactness keep only the canonical rule, the one the search itself prices.
  std::vector<PlacementRule> placementRules{PlacementRule::Canonical, PlacementRule::Matched};
  // placeAndPrice places and prices the rules each on a thread of its own (the plan is the
  // same): off where this request already runs beside another (a cluster's flat plan, the
  // baselines priced two at a time), which would otherwise take the core the other needs.
  bool rulesSideBySide = true;
  std::size_t partitionLimit = kDefaultPartitionLimit;
  double bruteLimit = kBruteForceLimit;
  // eindecomp enumerates the output layouts of multi-consumer nodes exactly while
  // (combinations x work of one DP) stays within this budget; 0 forces the heuristic.
  double exactWorkBudget = 3e8;
  // --objective time with the kernel model: the traffic objective's plan is kept unless the
  // plan of least estimated time is faster by more than this fraction of its time (--time-margin).
  double timeMargin = kDefaultTimeMargin;
  // Told each phase of a search that may take a while ("searching with a memory penalty,
  // search 3"); empty: silent. Reporting only: nothing planned depends on it.
  std::function<void(const std::string&)> progress;
  // Repartition counts remembered across every plan a request prices (made by planGraph
  // where absent, shared by the plans it makes on the way).
  std::shared_ptr<TrafficMemo> trafficMemo;
  // Where no plan fits --mem-limit, planGraph leaves here the partitions of the plan that
  // peaked lowest before it throws (the recompute search starts from them); null: not kept.
  std::shared_ptr<std::vector<Parts>> lowestPeak;
  // Where set, planGraph leaves here the cost of the plan it returns when it priced that
  // plan with its memory (under --mem-limit: the cost a report needs), so that the caller
  // need not price it again (a second on a large model); left empty otherwise.
  std::shared_ptr<std::optional<PlanCost>> returnedCost;
};

// What an algorithm decides: one partition per node (aligned with Graph::nodes), with
// what the report should say about it.
struct PartitionChoice {
  std::vector<Parts> parts;
  std::vector<std::string> notes;
  bool optimal = false;  // proven optimal under the objective (canonical placement)
};

// The objective model of these options (planner/cost/objective_model.h).
ObjectiveModel objectiveModel(const Graph& g, const PlanOptions& options);

// The one registry of algorithms: planning dispatches through it, eindecomp prices the
// baselines' partitions from it, `compare` shows the default ones, help texts list it
// and the parametrized tests iterate it.
struct AlgorithmInfo {
  const char* name;
  const char* summary;  // one line, for help texts
  PartitionChoice (*choose)(const Graph& g, const PlanOptions& options);
  bool baseline;  // a per-node rule of SPEC 4 whose plan eindecomp never loses to
  bool compared;  // among `compare`'s default columns
};
const std::vector<AlgorithmInfo>& algorithms();
const AlgorithmInfo* findAlgorithm(const std::string& name);

// The algorithm names accepted by planGraph, in the order `compare` shows them.
std::vector<std::string> algorithmNames();
// Those with `compared` (compare's default) and with `baseline`.
std::vector<std::string> comparedAlgorithmNames();
std::vector<std::string> baselineAlgorithmNames();
// "eindecomp (default), uniform, balanced, data, brute, fixed" for help texts.
std::string algorithmList();

// Dispatches on `algorithm`; an unknown name is an InputError (exit 2). Needs a machine
// for Objective::Time (InputError otherwise).
Plan planGraph(const std::string& algorithm, const Graph& g, const PlanOptions& options);

// The algorithms' choices of partitions (placement and costing follow in planGraph).
PartitionChoice partitionEindecomp(const Graph& g, const PlanOptions& options);
PartitionChoice partitionUniform(const Graph& g, const PlanOptions& options);
PartitionChoice partitionBalanced(const Graph& g, const PlanOptions& options);
PartitionChoice partitionData(const Graph& g, const PlanOptions& options);
PartitionChoice partitionBrute(const Graph& g, const PlanOptions& options);
PartitionChoice partitionFixed(const Graph& g, const PlanOptions& options);

// The per-node rules of the baselines (SPEC 4), over a node's label sizes in label order.
Parts uniformPartition(const std::vector<int64_t>& sizes, int64_t p);
Parts balancedPartition(const std::vector<int64_t>& sizes, int64_t p);
Parts dataPartition(const NodeSpace& space, int64_t p);

}  // namespace eindecomp
