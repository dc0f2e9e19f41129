#include "planner/request/planning_request.h"

#include <chrono>
#include <filesystem>
#include <set>

#include "planner/algorithms/hand_candidates.h"
#include "planner/algorithms/recompute_search.h"
#include "planner/algorithms/strategies.h"
#include "planner/algorithms/shard_search.h"
#include "planner/graph/input_file.h"
#include "planner/graph/units.h"
#include "planner/paths/internal_layouts.h"
#include "planner/report/plan_file.h"
#include "planner/report/sha256.h"

namespace eindecomp {

LoadedGraph loadGraphForPlanning(const std::string& path, GraphFormat format, const PathOptions& paths) {
  return whileDoing("loading the graph", path,
                    [&] { return loadGraphTextForPlanning(readInputFile(path, "graph file"), path, format, paths); });
}

LoadedGraph loadGraphTextForPlanning(const std::string& bytes, const std::string& path, GraphFormat format, const PathOptions& paths) {
  LoadedGraph loaded;
  loaded.graph = chooseInternalLayouts(splitNaryNodes(loadGraphText(bytes, path, format), paths));
  loaded.sha256 = sha256Hex(bytes);
  return loaded;
}

ResolvedRequest resolveRequest(const LoadedGraph& loaded, const PlanningRequest& request) {
  const Graph* graph = &loaded.graph;
  if (request.planPath && request.algorithm)
    throw InputError({{}, "--algorithm and --plan exclude each other: the plan file's nodes keep their "
                                             "partitions and eindecomp plans the nodes it leaves out"});
  if (request.objective == Objective::Time && !request.machinePath)
    throw InputError({{}, "--objective time needs a machine file: add --machine FILE (einrt-calibrate writes one)"});
  std::optional<PlanFile> planFile;
  if (request.planPath) planFile = readPlanFile(*request.planPath);
  ResolvedRequest resolved;
  if (planFile && (!planFile->recompute.empty() || !planFile->shardAtRest.empty() || !planFile->fusedGradientCasts.empty())) {
    resolved.fusedGradientCasts = planFile->fusedGradientCasts;
    resolved.shardAtRest = planFile->shardAtRest;
    resolved.recompute = planFile->recompute;
    resolved.graph = withPlanRewrites(loaded.graph, resolved.fusedGradientCasts, resolved.shardAtRest, resolved.recompute);
    requireGemmWidening(*resolved.graph, resolved.fusedGradientCasts);
    graph = &*resolved.graph;
  }
  const Graph& g = *graph;
  PlanOptions& o = resolved.options;
  if (planFile) {
    o.devices = planFileDevices(*planFile, request.devices);
  } else {
    if (!request.devices) throw InputError({{}, "-p: give the device count with -p N (or a plan with --plan FILE)"});
    o.devices = *request.devices;
  }
  o.objective = request.objective;
  if (request.timeMargin) {
    if (request.objective != Objective::Time)
      throw InputError({{}, "--time-margin applies to --objective time (the margin by which a plan must beat the traffic "
                            "plan's estimated time)"});
    o.timeMargin = *request.timeMargin;
  }
  o.memLimitBytes = request.memLimitBytes;
  o.progress = request.progress;
  o.trafficMemo = std::make_shared<TrafficMemo>();  // shared by the search and the final pricing
  if (request.machinePath) o.machine = loadMachineFile(*request.machinePath);
  if (planFile) {
    ResolvedPlanFile file = resolvePlanFile(g, *planFile, o.devices, loaded.sha256);
    o.pinned = std::move(file.partitions);
    if (planFile->ranksPerNode && *planFile->ranksPerNode < o.devices) o.ranksPerNode = *planFile->ranksPerNode;
    o.partialsOnOwners = planFile->partialsOnOwners;
    o.invariantsPerMicroBatch = planFile->invariantsPerMicroBatch;
    o.pinnedPlacements = std::move(file.placements);
    o.pinnedGemmPaths = std::move(file.gemmPaths);
  }
  std::set<std::string> fixed;
  for (const PartitionRequest& fix : request.fixes) {
    if (!fixed.insert(fix.node).second)
      throw InputError({fix.loc, "--fix is given twice for node '" + fix.node + "'; give each node one partition"});
    o.pinned[fix.node] = resolvePartitionRequest(g, fix, o.devices);
    o.pinnedPlacements.erase(fix.node);  // --fix wins over the plan file, placement and GEMM path included
    o.pinnedGemmPaths.erase(fix.node);
  }
  resolved.algorithm = request.algorithm.value_or("eindecomp");
  if (planFile && o.pinned.size() == g.nodes.size()) resolved.algorithm = "fixed";
  return resolved;
}

namespace {

// Resolve, plan, price and report a request against a loaded graph: the steps plan and
// compare share.
// `loaded` may be `planned.loaded`: its graph is replaced last, by the plan's.
void planLoaded(const LoadedGraph& loaded, const PlanningRequest& request, PlannedGraph& planned) {
  ResolvedRequest resolved = resolveRequest(loaded, request);
  std::optional<Graph> rewritten = std::move(resolved.graph);
  const Graph* graph = rewritten ? &*rewritten : &loaded.graph;
  // Without a plan file's entries or pins (which name the graph as it is), eindecomp may
  // shard inputs at rest and compute nodes again when no plan of the graph as written
  // fits --mem-limit.
  const bool mayRewrite = !rewritten && resolved.algorithm == "eindecomp" && resolved.options.pinned.empty() &&
                          resolved.options.memLimitBytes && (request.shard || request.recompute);
  if (mayRewrite) resolved.options.lowestPeak = std::make_shared<std::vector<Parts>>();
  resolved.options.returnedCost = std::make_shared<std::optional<PlanCost>>();
  planned.plan = whileDoing("planning", request.graphPath, [&] {
    try {
      Plan plan = planGraph(resolved.algorithm, *graph, resolved.options);
      plan.fusedGradientCasts = resolved.fusedGradientCasts;
      plan.shardAtRest = resolved.shardAtRest;
      plan.recompute = resolved.recompute;
      return plan;
    } catch (const InputError& e) {
      if (e.exitCode() != kExitNoPlan || !mayRewrite || resolved.options.lowestPeak->empty()) throw;
      PlanOptions options = resolved.options;
      options.lowestPeak.reset();
      std::vector<ShardAtRest> shards;
      std::string shardedFailure;
      std::vector<Parts> lowestPeak = *resolved.options.lowestPeak;
      if (request.shard) {
        ShardedSearch s = planWithInputsSharded(*graph, options);
        if (s.plan) {
          rewritten = std::move(s.graph);
          graph = &*rewritten;
          return std::move(*s.plan);
        }
        if (!s.entries.empty() && s.lowestPeak.size() == s.graph.nodes.size()) {
          shards = std::move(s.entries);
          rewritten = std::move(s.graph);
          graph = &*rewritten;
          lowestPeak = std::move(s.lowestPeak);
          shardedFailure = s.failure;
        }
      }
      RecomputeResult r;
      if (request.recompute) r = planWithRecompute(*graph, options, lowestPeak);
      // Sharding first is a guess: where the inputs were sharded, recomputation alone (no
      // gathers) may fit too, and at a lower objective; the cheaper of the two is kept.
      std::string order;
      bool recomputedAsWritten = false;  // (where neither fits) r is recomputation without the shards
      if (request.recompute && !shards.empty()) {
        RecomputeResult plain = planWithRecompute(loaded.graph, options, *resolved.options.lowestPeak);
        const ObjectiveModel model = objectiveModel(loaded.graph, options);
        auto key = [&](const RecomputedPlan& p) {
          return model.key(costPlan(p.graph, p.plan, options.machine, MemoryDetail::Peak, options.trafficMemo.get()));
        };
        if (plain.fitted && (!r.fitted || key(*plain.fitted) < key(*r.fitted))) {
          if (r.fitted)
            order = "--mem-limit: computing nodes again fits both with " + std::to_string(shards.size()) +
                    " input(s) sharded at rest and without; without costs less under the objective, so no input is sharded";
          r = std::move(plain);
          shards.clear();
        } else if (!r.fitted && plain.tried > 0 && (r.tried == 0 || plain.smallestPeak < r.smallestPeak)) {
          r = std::move(plain);  // neither fits: the message names the lower peak
          recomputedAsWritten = true;
        } else if (plain.fitted) {
          order = "--mem-limit: computing nodes again fits both with " + std::to_string(shards.size()) +
                  " input(s) sharded at rest and without; with them costs less under the objective";
        }
      }
      if (!r.fitted) {
        std::string message = e.diagnostic().message;
        if (!shards.empty()) {
          // The sharded search's own figure: "..., the smallest peak eindecomp reached is N bytes (...)".
          const std::size_t at = shardedFailure.find("the smallest peak");
          message += "; with " + std::to_string(shards.size()) + " input(s) sharded at rest " +
                     (at == std::string::npos ? std::string("none fits either") : shardedFailure.substr(at));
        }
        if (r.tried > 0)
          message += "; computing " + std::to_string(r.tried) + " node(s) again for their later uses" +
                     (recomputedAsWritten ? std::string(" (no input sharded: lower)") : shards.empty() ? "" : " (inputs sharded)") +
                     ", it reached " + std::to_string(r.smallestPeak) + " bytes (" + formatBytes(r.smallestPeak) + ")";
        throw InputError({e.diagnostic().loc, message}, kExitNoPlan);
      }
      rewritten = std::move(r.fitted->graph);
      graph = &*rewritten;
      r.fitted->plan.shardAtRest = shards;
      if (!shards.empty())
        r.fitted->plan.notes.push_back("--mem-limit: " + std::to_string(shards.size()) +
                                       " input(s) are sharded at rest before nodes are computed again (shard_at_rest)");
      if (!order.empty()) r.fitted->plan.notes.push_back(order);
      return std::move(r.fitted->plan);
    }
  });
  Provenance provenance = request.provenance;
  provenance.graphSha256 = loaded.sha256;
  // The search's own pricing of the plan where it priced its memory and the graph is the
  // one planned (not the recomputing graph made after it); else priced here.
  if (const std::optional<PlanCost>& searched = *resolved.options.returnedCost; searched && !rewritten) {
    planned.cost = *searched;
  } else {
    if (request.progress) request.progress("pricing the plan for the report (memory per rank included)");
    planned.cost = whileDoing("pricing the plan", request.graphPath, [&] {
      return costPlan(*graph, planned.plan, resolved.options.machine, MemoryDetail::Peak, resolved.options.trafficMemo.get());
    });
  }
  // Gradient accumulation fusion: the hand strategies on the graph with its gradient casts
  // fused, where one beats the plan made (the search plans the graph as written).
  if (request.fuseGradients && !rewritten && resolved.algorithm == "eindecomp") {
    const auto start = std::chrono::steady_clock::now();
    if (std::optional<FusedHandPlan> fused = cheaperFusedHandStrategy(*graph, resolved.options, planned.cost)) {
      const ObjectiveModel model = objectiveModel(*graph, resolved.options);
      Plan plan = std::move(fused->priced.plan);
      // Of the plan made, the notes about the graph's nodes and the machine hold for this
      // one too; its others (placement, fused groups, the search) describe that plan.
      for (const std::string& note : planned.plan.notes)
        if (note.rfind("node '", 0) == 0 || note.rfind("machine: ", 0) == 0) plan.notes.push_back(note);
      plan.notes.push_back("eindecomp: the plan made on the graph as written costs " + model.totalText(planned.cost) + "; " + fused->strategy +
                           "'s plan with the step's " + std::to_string(plan.fusedGradientCasts.size()) +
                           " gradient casts fused (each bf16 weight gradient accumulated in f32 over the micro-batches, "
                           "fused_gradient_casts) costs " + model.totalText(fused->priced.cost) + ", so it is returned");
      plan.optimal = false;
      plan.searchSeconds =
          planned.plan.searchSeconds + std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      planned.cost = fused->priced.memoryPriced ? std::move(fused->priced.cost)
                                                : costPlan(fused->graph, plan, resolved.options.machine, MemoryDetail::Peak,
                                                           resolved.options.trafficMemo.get());
      planned.plan = std::move(plan);
      rewritten = std::move(fused->graph);
      graph = &*rewritten;
    }
  }
  planned.report = makeReport(*graph, planned.plan, planned.cost, provenance, resolved.options.objective);
  planned.model = objectiveModel(*graph, resolved.options);
  if (rewritten) planned.loaded.graph = std::move(*rewritten);
}

}  // namespace

PlannedGraph planRequest(const PlanningRequest& request) {
  PlannedGraph planned;
  planned.loaded = loadGraphForPlanning(request.graphPath, request.inputFormat, request.paths);
  if (request.checkLoaded) request.checkLoaded(planned.loaded.graph);
  planLoaded(planned.loaded, request, planned);
  return planned;
}

std::vector<ComparisonEntry> compareRequest(const PlanningRequest& request, const std::vector<std::string>& algorithms,
                                            const std::vector<std::string>& planFiles, std::string& sha256) {
  const LoadedGraph loaded = loadGraphForPlanning(request.graphPath, request.inputFormat, request.paths);
  sha256 = loaded.sha256;
  std::vector<ComparisonEntry> entries;
  auto add = [&](const std::string& name, PlanningRequest r, bool mayLackPlan) {
    ComparisonEntry entry{name, std::nullopt, ""};
    try {
      PlannedGraph planned;
      planLoaded(loaded, r, planned);
      if (r.planPath) planned.report.algorithm = name;
      entry.report = std::move(planned.report);
    } catch (const InputError& e) {
      if (e.exitCode() != kExitNoPlan && !mayLackPlan) throw;
      entry.error = e.diagnostic().message;
      entry.noPlan = e.exitCode() == kExitNoPlan;
    }
    entries.push_back(std::move(entry));
  };
  for (const std::string& algorithm : algorithms) {
    if (algorithm == "fixed") throw InputError({{}, "--algorithms: 'fixed' needs a plan; give it with --plans FILE"});
    PlanningRequest r = request;
    r.algorithm = algorithm;
    add(algorithm, r, algorithm == "brute");
  }
  for (const std::string& file : planFiles) {
    PlanningRequest r = request;
    r.algorithm.reset();
    r.planPath = file;
    add(std::filesystem::path(file).filename().string(), r, false);
  }
  return entries;
}

}  // namespace eindecomp
