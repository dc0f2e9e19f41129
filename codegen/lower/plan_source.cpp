#include "codegen/lower/plan_source.h"

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include "codegen/lower/identifiers.h"
#include "planner/cost/cost_model.h"

namespace eindecomp::codegen {

namespace {

SourceLoc at(const std::string& path, const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return {path, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0};
}

int64_t positiveInteger(const std::string& path, const YAML::Node& n, const std::string& field) {
  int64_t v = 0;
  try {
    v = n.as<int64_t>();
  } catch (const YAML::Exception&) {
    throw InputError({at(path, n), "'" + field + "' must be a positive integer"});
  }
  if (v < 1) throw InputError({at(path, n), "'" + field + "' must be a positive integer"});
  return v;
}

}  // namespace

PlanFile readPlanFile(const std::string& path, const Graph& g) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw InputError({{path, 0, 0}, "cannot read the plan file"});
  } catch (const YAML::ParserException& e) {
    throw InputError({{path, e.mark.line + 1, e.mark.column + 1}, "malformed plan: " + e.msg});
  }
  if (!root.IsMap()) throw InputError({at(path, root), "a plan must be a mapping with 'devices' and 'nodes'"});
  PlanFile plan;
  if (!root["devices"]) throw InputError({at(path, root), "the plan has no 'devices'"});
  plan.devices = positiveInteger(path, root["devices"], "devices");
  if (root["algorithm"] && root["algorithm"].IsScalar()) plan.algorithm = root["algorithm"].Scalar();
  const YAML::Node nodes = root["nodes"];
  if (!nodes || !nodes.IsSequence()) throw InputError({at(path, root), "the plan has no 'nodes' list"});
  for (const YAML::Node& entry : nodes) {
    if (!entry.IsMap() || !entry["name"] || !entry["name"].IsScalar())
      throw InputError({at(path, entry), "every plan node needs a 'name'"});
    const std::string name = entry["name"].Scalar();
    const Node* node = findNode(g, name);
    if (!node) throw InputError({at(path, entry["name"]), "node '" + commentSafe(name) + "' is not in the graph"});
    const YAML::Node partition = entry["partition"];
    if (!partition || !partition.IsMap()) throw InputError({at(path, entry), "node '" + name + "' needs a 'partition' map"});
    const Labels labels = iterationLabels(*node);
    Parts parts(labels.size(), 1);
    for (const auto& kv : partition) {
      const std::string label = kv.first.Scalar();
      auto it = std::find(labels.begin(), labels.end(), label);
      if (it == labels.end())
        throw InputError({at(path, kv.first), "node '" + name + "' has no label '" + commentSafe(label) + "'"});
      parts[it - labels.begin()] = positiveInteger(path, kv.second, "partition." + label);
    }
    plan.partitions[name] = parts;
  }
  return plan;
}

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
