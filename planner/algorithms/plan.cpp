#include "planner/algorithms/plan.h"

#include "planner/cost/cost_model.h"
#include "planner/graph/graph_index.h"

namespace eindecomp {

Plan makePlan(const Graph& g, int64_t devices, const std::string& algorithm, const std::vector<Parts>& nodeParts) {
  Plan plan;
  plan.devices = devices;
  plan.algorithm = algorithm;
  std::vector<NodeSpace> spaces;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    spaces.push_back(nodeSpace(g, n));
    const NodeSpace& s = spaces.back();
    NodePlan np;
    np.name = n.name;
    np.labels = s.labels;
    np.parts = nodeParts[i];
    for (int64_t d : np.parts) np.kernelCalls *= d;
    np.fallback = np.kernelCalls < devices && largestFeasibleCount(s.sizes, devices) < devices;
    np.outputLabels = n.outputLabels;
    np.outputParts = projectParts(np.parts, s.outputDims);
    plan.nodes.push_back(std::move(np));
  }
  const GraphIndex index(g);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      int from = index.nodeIndex(n.inputs[k]);
      if (from < 0) continue;
      PlanEdge e;
      e.from = n.inputs[k];
      e.to = n.name;
      e.fromNode = from;
      e.toNode = static_cast<int>(i);
      e.operand = static_cast<int>(k);
      e.bounds = tensorBounds(spaces[i], static_cast<int>(k));
      e.producerParts = plan.nodes[from].outputParts;
      e.consumerParts = projectParts(plan.nodes[i].parts, spaces[i].operandDims[k]);
      plan.edges.push_back(std::move(e));
    }
  }
  return plan;
}

}  // namespace eindecomp
