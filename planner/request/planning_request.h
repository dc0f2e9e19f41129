// The one planning request both tools make (ARCHITECTURE: "both commands reach the Plan
// through the same planning request"). It loads the graph file (with its SHA-256 for
// provenance), splits n-ary contractions into binary steps, chooses the layouts of the
// intermediates those steps create, resolves the planning options against the graph
// (devices from -p or the plan file, --fix and plan-file pins and placements, --mem-limit,
// --objective, --machine), plans with the algorithm and prices the plan into a Report.
// `einplan plan -p N` and `eincodegen -p N` therefore produce the same plan from the same
// options, and eincodegen lowers exactly the plan einplan prints.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "planner/algorithms/pins.h"
#include "planner/algorithms/planning.h"
#include "planner/cost/machine.h"
#include "planner/cost/objective.h"
#include "planner/graph/graph.h"
#include "planner/graph/load.h"
#include "planner/paths/split_nary.h"
#include "planner/report/compare.h"
#include "planner/report/report.h"

namespace eindecomp {

struct PlanningRequest {
  std::string graphPath;                  // "-" reads standard input
  GraphFormat inputFormat = GraphFormat::Auto;
  PathOptions paths;                      // contraction paths of n-ary nodes
  std::optional<int64_t> devices;         // -p
  std::optional<std::string> algorithm;   // --algorithm (default eindecomp)
  Objective objective = Objective::Traffic;
  std::optional<double> timeMargin;       // --time-margin (with --objective time)
  std::optional<int64_t> memLimitBytes;
  std::vector<PartitionRequest> fixes;    // --fix, parsed
  std::optional<std::string> machinePath;
  std::optional<std::string> planPath;    // --plan
  // Under --mem-limit, when no plan of the graph as written fits, shard inputs at rest
  // (planner/algorithms/shard_search.h; false: --no-shard), then compute nodes again for
  // their later uses (planner/algorithms/recompute_search.h; false: --no-recompute).
  bool shard = true;
  bool recompute = true;
  // Under --objective time on a step of micro-batches, offer the hand strategies with the
  // step's gradient casts fused (planner/algorithms/hand_candidates.h; false:
  // --no-gradient-fusion, every plan on the graph as written).
  bool fuseGradients = true;
  Provenance provenance;                  // tool name, version and command line; the hash is filled in
  // Run on the loaded graph before the search (eincodegen: einrt's limits), so a graph
  // the caller cannot use is refused at once, not after a long plan.
  std::function<void(const Graph&)> checkLoaded;
  // Told what a long search is doing, phase by phase (the CLI prints it when stderr is a
  // terminal); empty: silent.
  std::function<void(const std::string&)> progress;
};

// The graph as the planner sees it: n-ary nodes split, internal layouts chosen.
struct LoadedGraph {
  Graph graph;
  std::string sha256;  // of the file's bytes
};

LoadedGraph loadGraphForPlanning(const std::string& path, GraphFormat format, const PathOptions& paths);
// The same for a graph's text (`path` names it in errors).
LoadedGraph loadGraphTextForPlanning(const std::string& bytes, const std::string& path, GraphFormat format, const PathOptions& paths);

// The options of a request resolved against a loaded graph, and the algorithm to run:
// with --plan, `fixed` when the file covers every node, else eindecomp for the rest.
struct ResolvedRequest {
  PlanOptions options;
  std::string algorithm;
  // A plan file's rewrites (inputs sharded at rest, then recompute entries), and the graph
  // they make (the one its nodes name).
  std::vector<FusedGradientCast> fusedGradientCasts;
  std::vector<ShardAtRest> shardAtRest;
  std::vector<Recompute> recompute;
  std::optional<Graph> graph;
};

// Exit 2 for conflicting or invalid options (--plan with --algorithm, --fix given twice
// for a node, --objective time without --machine, ...), naming them.
ResolvedRequest resolveRequest(const LoadedGraph& loaded, const PlanningRequest& request);

struct PlannedGraph {
  LoadedGraph loaded;  // its graph is the plan's: withPlanRewrites(the file's, plan.fusedGradientCasts, plan.shardAtRest, plan.recompute)
  Plan plan;
  PlanCost cost;  // costPlan(loaded.graph, plan, machine)
  Report report;
  ObjectiveModel model;  // the objective, machine and --mem-limit it was planned under
};

// Load, split, layouts, resolve, plan, price.
PlannedGraph planRequest(const PlanningRequest& request);

// compare: one graph planned by each algorithm, then by each plan file (its nodes pinned,
// its placement kept; named by the file), every one through resolveRequest and planGraph
// as `plan` would. An entry that has no plan — over --mem-limit (exit 3), brute above its
// limit — carries the reason; any other error is thrown. `sha256` receives the graph's.
std::vector<ComparisonEntry> compareRequest(const PlanningRequest& request, const std::vector<std::string>& algorithms,
                                            const std::vector<std::string>& planFiles, std::string& sha256);

}  // namespace eindecomp
