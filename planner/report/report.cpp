#include "planner/report/report.h"

#include "planner/cost/plan_cost.h"
#include "planner/cost/time_model.h"

namespace eindecomp {

double Report::objectiveValue() const {
  switch (objective) {
    case Objective::Traffic: return static_cast<double>(totalTrafficBytes);
    case Objective::Paper: return static_cast<double>(totalCost);
    case Objective::Time: return estimatedTimeSeconds.value_or(0.0);
  }
  return 0;
}

Report makeReport(const Graph& g, const Plan& plan, const PlanCost& cost, const Provenance& provenance, Objective objective) {
  const bool machine = cost.timePs.has_value();
  Report r;
  r.provenance = provenance;
  r.graph = g.name;
  r.devices = plan.devices;
  r.algorithm = plan.algorithm;
  r.objective = objective;
  r.dtype = dtypeName(g.dtype);
  r.searchSeconds = plan.searchSeconds;
  r.optimal = plan.optimal;
  r.notes = plan.notes;
  r.recompute = plan.recompute;
  r.shardAtRest = plan.shardAtRest;
  r.fusedGradientCasts = plan.fusedGradientCasts;
  r.partialsOnOwners = plan.partialsOnOwners;
  r.invariantsPerMicroBatch = plan.invariantsPerMicroBatch;
  int64_t kernelPs = 0;  // the nodes' kernel time, summed exactly (whole picoseconds)
  for (std::size_t i = 0; i < plan.nodes.size(); ++i) {
    const NodePlan& np = plan.nodes[i];
    const NodePlanCost& c = cost.nodes[i];
    NodeReport n;
    n.name = np.name;
    n.labels = np.labels;
    n.parts = np.parts;
    n.kernelCalls = np.kernelCalls;
    n.fallback = np.fallback;
    n.fullCalls = np.fullCalls;
    n.outputLabels = np.outputLabels;
    n.outputParts = np.outputParts;
    n.placement = np.placement.callRank;
    n.join = c.join;
    n.agg = c.agg;
    n.repartIn = c.repartIn;
    n.total = c.paper;
    n.trafficBytes = c.trafficBytes;
    n.trafficInBytes = c.trafficInBytes;
    n.trafficAggBytes = c.trafficAggBytes;
    n.interNodeBytes = c.interNodeBytes;
    if (c.reducedAtReadBy >= 0) n.reducedAtReadBy = plan.nodes[static_cast<std::size_t>(c.reducedAtReadBy)].name;
    n.flops = c.flops;
    n.bytesPerDevice = c.bytesPerDevice;
    n.liveBytes = cost.memory.nodeLiveBytes[i];
    n.residentInputBytes = cost.memory.nodeResidentInputBytes[i];
    if (machine) {
      n.timeSeconds = picosecondsToSeconds(c.timePs);
      n.kernelTimeSeconds = picosecondsToSeconds(c.computePs);
      n.exchangeTimeSeconds = picosecondsToSeconds(c.timePs - c.computePs);
      kernelPs += c.computePs;
    }
    n.gemmPath = np.gemmPath;
    r.nodes.push_back(std::move(n));
  }
  for (std::size_t e = 0; e < plan.edges.size(); ++e) {
    const PlanEdge& pe = plan.edges[e];
    EdgeReport er{pe.from, pe.to, pe.operand, cost.edges[e].paper, cost.edges[e].trafficBytes, cost.edges[e].interNodeBytes,
                  std::nullopt, {}};
    if (machine) er.timeSeconds = picosecondsToSeconds(cost.edges[e].timePs);
    if (const int reader = cost.edges[e].readsCopyOf; reader >= 0) er.readsCopyOf = plan.nodes[static_cast<std::size_t>(reader)].name;
    er.reducesPartials = cost.edges[e].reducesPartials;
    r.edges.push_back(std::move(er));
  }
  r.totalCost = cost.paper;
  r.totalBytes = cost.paperBytes;
  r.totalTrafficBytes = cost.trafficBytes;
  r.totalInterNodeBytes = cost.interNodeBytes;
  r.ranksPerNode = cost.ranksPerNode;
  r.totalFlops = cost.flops;
  r.peakBytesPerDevice = cost.peakBytesPerDevice;
  r.peakBytesPerRank = cost.memory.peakBytesPerRank;
  r.tileWorkspaceBytesPerRank = cost.memory.tileWorkspaceBytesPerRank;
  if (cost.timePs) {
    r.estimatedTimeSeconds = picosecondsToSeconds(*cost.timePs);
    r.kernelTimeSeconds = picosecondsToSeconds(kernelPs);
    r.exchangeTimeSeconds = picosecondsToSeconds(*cost.timePs - kernelPs);
  }
  r.microBatches = cost.microBatches;
  r.perMicroBatchTrafficBytes = cost.perMicroBatchTrafficBytes;
  r.oncePerStepTrafficBytes = cost.oncePerStepTrafficBytes;
  if (cost.timePs) {
    r.perMicroBatchTimeSeconds = picosecondsToSeconds(cost.perMicroBatchTimePs);
    r.oncePerStepTimeSeconds = picosecondsToSeconds(cost.oncePerStepTimePs);
  }
  return r;
}

}  // namespace eindecomp
