#include "planner/report/report.h"

#include <algorithm>

#include "planner/cost/checked_math.h"
#include "planner/cost/cost_model.h"

namespace eindecomp {

Report makeReport(const Graph& g, const Plan& plan, const Provenance& provenance, const std::optional<Machine>& machine) {
  Report r;
  r.provenance = provenance;
  r.graph = g.name;
  r.devices = plan.devices;
  r.algorithm = plan.algorithm;
  r.dtype = dtypeName(g.dtype);
  r.searchSeconds = plan.searchSeconds;
  r.optimal = plan.optimal;
  r.notes = plan.notes;
  const std::size_t dtypeBytes = dtypeSize(g.dtype);
  std::vector<int> phases(g.nodes.size(), 0);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const NodePlan& np = plan.nodes[i];
    NodeCost c = nodeCost(nodeSpace(g, g.nodes[i]), np.parts, dtypeBytes);
    NodeReport n;
    n.name = np.name;
    n.labels = np.labels;
    n.parts = np.parts;
    n.kernelCalls = np.kernelCalls;
    n.fallback = np.fallback;
    n.outputLabels = np.outputLabels;
    n.outputParts = np.outputParts;
    n.join = c.join;
    n.agg = c.agg;
    n.flops = nodeFlops(g.nodes[i]);
    n.bytesPerDevice = c.bytesPerDevice;
    phases[i] = (c.join > 0) + (c.agg > 0);
    r.nodes.push_back(std::move(n));
  }
  for (const PlanEdge& e : plan.edges) {
    EdgeReport er{e.from, e.to, e.operand, repartitionCost(e.bounds, e.producerParts, e.consumerParts)};
    NodeReport& consumer = r.nodes[e.toNode];
    consumer.repartIn = checkedAdd(consumer.repartIn, er.cost, "repart_in");
    if (er.cost > 0) ++phases[e.toNode];
    r.edges.push_back(std::move(er));
  }
  for (std::size_t i = 0; i < r.nodes.size(); ++i) {
    NodeReport& n = r.nodes[i];
    n.total = checkedAdd(checkedAdd(n.join, n.agg, "node cost"), n.repartIn, "node cost");
    r.totalCost = checkedAdd(r.totalCost, n.total, "total cost");
    r.totalFlops = checkedAdd(r.totalFlops, n.flops, "total FLOPs");
    r.peakBytesPerDevice = std::max(r.peakBytesPerDevice, n.bytesPerDevice);
    if (machine) {
      n.timeSeconds = estimatedNodeSeconds(*machine, checkedMul(n.total, static_cast<int64_t>(dtypeBytes), "bytes moved"),
                                           phases[i], n.flops, n.kernelCalls);
      r.totalTimeSeconds = r.totalTimeSeconds.value_or(0.0) + *n.timeSeconds;
    }
  }
  r.totalBytes = checkedMul(r.totalCost, static_cast<int64_t>(dtypeBytes), "total bytes");
  return r;
}

}  // namespace eindecomp
