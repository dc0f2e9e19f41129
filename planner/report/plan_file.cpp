#include "planner/report/plan_file.h"

#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "planner/graph/graph_index.h"

namespace eindecomp {

namespace {

SourceLoc at(const std::string& file, const YAML::Node& n) {
  YAML::Mark m = n.Mark();
  return {file, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0};
}

int64_t positiveInteger(const std::string& file, const YAML::Node& n, const std::string& field) {
  if (!n.IsScalar()) throw InputError({at(file, n), field + " must be a positive integer"});
  const std::string& text = n.Scalar();
  std::size_t used = 0;
  int64_t v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || v <= 0)
    throw InputError({at(file, n), field + " must be a positive integer, not '" + text + "'"});
  return v;
}

}  // namespace

PlanFile parsePlanText(const std::string& text, const std::string& displayName) {
  PlanFile plan;
  plan.path = displayName;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw InputError({{displayName, e.mark.line + 1, e.mark.column + 1}, "plan file: " + e.msg});
  }
  if (!root.IsMap()) throw InputError({{displayName, 1, 1}, "a plan file must be a map with 'devices' and 'nodes'"});
  if (root["devices"]) plan.devices = positiveInteger(displayName, root["devices"], "'devices'");
  const YAML::Node nodes = root["nodes"];
  if (!nodes) throw InputError({at(displayName, root), "plan file has no 'nodes' list"});
  if (!nodes.IsSequence()) throw InputError({at(displayName, nodes), "'nodes' must be a list"});
  for (const YAML::Node& entry : nodes) {
    if (!entry.IsMap()) throw InputError({at(displayName, entry), "each entry of 'nodes' must be a map with 'name' and 'partition'"});
    const YAML::Node name = entry["name"];
    if (!name || !name.IsScalar()) throw InputError({at(displayName, entry), "node entry needs a 'name'"});
    const YAML::Node partition = entry["partition"];
    if (!partition) throw InputError({at(displayName, entry), "node '" + name.Scalar() + "' needs a 'partition'"});
    if (!partition.IsMap())
      throw InputError({at(displayName, partition), "node '" + name.Scalar() + "': 'partition' must be a map label -> parts"});
    PartitionRequest request;
    request.node = name.Scalar();
    request.loc = at(displayName, name);
    for (auto it = partition.begin(); it != partition.end(); ++it) {
      std::string label = it->first.Scalar();
      request.parts.emplace_back(label, positiveInteger(displayName, it->second,
                                                        "node '" + request.node + "' partition of label '" + label + "'"));
    }
    plan.nodes.push_back(std::move(request));
  }
  return plan;
}

PlanFile readPlanFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError({{path, 0, 0}, "cannot read plan file"});
  std::ostringstream text;
  text << in.rdbuf();
  return parsePlanText(text.str(), path);
}

std::map<std::string, Parts> resolvePlanFile(const Graph& g, const PlanFile& plan, int64_t devices) {
  std::map<std::string, Parts> pins;
  const GraphIndex index(g);
  for (const PartitionRequest& r : plan.nodes) {
    if (pins.count(r.node)) throw InputError({r.loc, "node '" + r.node + "' appears twice in the plan"});
    pins[r.node] = resolvePartitionRequest(g, index.findNode(r.node), r, devices);
  }
  return pins;
}

int64_t planFileDevices(const PlanFile& plan, std::optional<int64_t> requested) {
  if (plan.devices) {
    if (requested && *requested != *plan.devices)
      throw InputError({{plan.path, 1, 1}, "the plan is for " + std::to_string(*plan.devices) + " devices but -p gives " +
                                               std::to_string(*requested)});
    return *plan.devices;
  }
  if (!requested) throw InputError({{plan.path, 1, 1}, "the plan file has no 'devices' and no -p was given"});
  return *requested;
}

}  // namespace eindecomp
