#include "codegen/lower/plan_source.h"

#include <nlohmann/json.hpp>

#include "codegen/lower/identifiers.h"
#include "planner/cost/cost_model.h"

namespace eindecomp::codegen {

PlanPartitions partitionsFromPlan(const Graph& g, const Plan& plan) {
  PlanPartitions pp;
  pp.devices = static_cast<int>(plan.devices);
  pp.algorithm = plan.algorithm;
  int64_t total = 0;
  for (std::size_t i = 0; i < plan.nodes.size(); ++i) {
    const NodePlan& np = plan.nodes[i];
    auto& parts = pp.partitions[np.name];
    for (std::size_t l = 0; l < np.labels.size(); ++l) parts[np.labels[l]] = np.parts[l];
    const NodeCost c = nodeCost(nodeSpace(g, g.nodes[i]), np.parts, dtypeSize(g.dtype));
    pp.modelNodeCostElements[np.name] = c.join + c.agg;
    total += c.join + c.agg;
  }
  for (const PlanEdge& e : plan.edges) {
    const int64_t r = repartitionCost(e.bounds, e.producerParts, e.consumerParts);
    pp.modelNodeCostElements[e.to] += r;
    total += r;
  }
  pp.modelCostElements = total;
  return pp;
}

std::string planJson(const Graph& g, const Plan& plan, const RankProgram& program, const std::string& toolVersion,
                     const std::string& graphSha256, const std::string& commandLine) {
  nlohmann::ordered_json j;
  j["schema_version"] = 1;
  j["tool"] = {{"name", "eincodegen"}, {"version", toolVersion}};
  j["command_line"] = commentSafe(commandLine);
  j["graph_sha256"] = graphSha256;
  j["graph"] = g.name;
  j["devices"] = plan.devices;
  j["algorithm"] = plan.algorithm;
  j["dtype"] = dtypeName(g.dtype);
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < plan.nodes.size(); ++i) {
    const NodePlan& np = plan.nodes[i];
    const NodeProgram& n = program.nodes[i];
    nlohmann::ordered_json partition = nlohmann::ordered_json::object(), output = nlohmann::ordered_json::object();
    for (std::size_t l = 0; l < np.labels.size(); ++l) partition[np.labels[l]] = np.parts[l];
    for (std::size_t d = 0; d < np.outputLabels.size(); ++d) output[np.outputLabels[d]] = np.outputParts[d];
    nlohmann::ordered_json node = {{"name", np.name},
                                   {"partition", partition},
                                   {"kernel_calls", np.kernelCalls},
                                   {"output_partition", output},
                                   {"flops", n.flops},
                                   {"bytes_predicted", n.bytesPredicted},
                                   {"kernel", n.gemm ? describeGemmMapping(*n.gemm) : "generated elementwise kernel"}};
    if (n.modelCostElements) node["cost"] = {{"total", *n.modelCostElements}};
    nodes.push_back(node);
  }
  j["nodes"] = nodes;
  if (program.modelCostElements) {
    j["total_cost"] = *program.modelCostElements;
    j["total_bytes"] = *program.modelCostElements * static_cast<int64_t>(dtypeSize(g.dtype));
  }
  j["bytes_predicted"] = program.bytesPredicted;
  return j.dump(2) + "\n";
}

}  // namespace eindecomp::codegen
