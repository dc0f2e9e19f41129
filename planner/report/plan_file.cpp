#include "planner/report/plan_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <set>

#include "planner/graph/graph_index.h"
#include "planner/graph/identifiers.h"
#include "planner/graph/input_file.h"
#include "planner/graph/load.h"
#include "planner/paths/gemm_mapping.h"
#include "planner/placement/placement.h"

namespace eindecomp {

namespace {

// Keys a report carries: read (marked) or derived again and ignored.
const std::vector<std::string>& topKeys() {
  static const std::vector<std::string> keys{
      "schema_version", "tool",        "command",       "command_line",        "graph_sha256", "graph",
      "devices",        "algorithm",   "objective",     "dtype",               "nodes",        "edges",
      "total_cost",     "total_bytes", "total_traffic_bytes", "intra_node_bytes", "inter_node_bytes", "ranks_per_node", "total_flops", "peak_bytes_per_device",
      "peak_bytes_per_rank", "tile_workspace_bytes_per_rank", "estimated_time_s", "search_time_s", "optimal",   "notes",               "bytes_predicted"};
  return keys;
}

const std::vector<std::string>& nodeKeys() {
  static const std::vector<std::string> keys{
      "name",          "partition",        "kernel_calls",      "output_partition", "placement", "cost",
      "traffic_bytes", "traffic_in_bytes", "traffic_agg_bytes", "intra_node_bytes", "inter_node_bytes", "flops",            "bytes_per_device",
      "live_bytes",    "resident_input_bytes", "fallback",      "estimated_time_s", "kernel",            "bytes_predicted", "gemm_path"};
  return keys;
}

SourceLoc at(const std::string& file, const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return {file, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0};
}

void requireKnownKeys(const std::string& file, const YAML::Node& map, const std::vector<std::string>& known,
                      const std::string& owner) {
  YAML::Node twice;
  if (hasDuplicateKey(map, &twice))
    throw InputError({at(file, twice), "field " + quoted(twice.Scalar()) + " appears twice in " + owner});
  for (const auto& entry : map) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
    if (std::find(known.begin(), known.end(), key) == known.end())
      throw InputError({at(file, entry.first), "unknown field " + quoted(key) + " in " + owner + didYouMean(key, known)});
  }
}

// An integer written as a number (a quoted "4" is a string, not a number).
int64_t integerField(const std::string& file, const YAML::Node& n, const std::string& field) {
  if (!n.IsScalar() || n.Tag() == "!")
    throw InputError({at(file, n), field + " must be an integer" + (n.IsScalar() ? ", not a string (" + quoted(n.Scalar()) + ")" : "")});
  const std::string& text = n.Scalar();
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno == ERANGE) throw InputError({at(file, n), field + " " + text + " does not fit in a signed 64-bit integer"});
  if (text.empty() || end != text.c_str() + text.size())
    throw InputError({at(file, n), field + " must be an integer, not " + quoted(text)});
  return v;
}

int64_t positiveField(const std::string& file, const YAML::Node& n, const std::string& field) {
  const int64_t v = integerField(file, n, field);
  if (v <= 0) throw InputError({at(file, n), field + " must be a positive integer, not " + std::to_string(v)});
  return v;
}

PlanFileNode readNode(const std::string& file, const YAML::Node& entry) {
  if (!entry.IsMap()) throw InputError({at(file, entry), "each entry of 'nodes' must be a map with 'name' and 'partition'"});
  const YAML::Node name = entry["name"];
  if (!name || !name.IsScalar()) throw InputError({at(file, entry), "node entry needs a 'name'"});
  const std::string owner = "node " + quoted(name.Scalar());
  requireKnownKeys(file, entry, nodeKeys(), "the plan's " + owner);
  const YAML::Node partition = entry["partition"];
  if (!partition) throw InputError({at(file, entry), owner + " needs a 'partition'"});
  if (!partition.IsMap()) throw InputError({at(file, partition), owner + ": 'partition' must be a map label -> parts"});
  YAML::Node twice;
  if (hasDuplicateKey(partition, &twice))
    throw InputError({at(file, twice), owner + ": label " + quoted(twice.Scalar()) + " appears twice in its partition"});
  PlanFileNode node;
  node.partition.node = name.Scalar();
  node.partition.loc = at(file, name);
  for (const auto& p : partition) {
    const std::string label = p.first.Scalar();
    node.partition.parts.emplace_back(label, positiveField(file, p.second, owner + ": the parts of label " + quoted(label)));
  }
  if (const YAML::Node placement = entry["placement"]) {
    node.placementLoc = at(file, placement);
    if (!placement.IsSequence()) throw InputError({node.placementLoc, owner + ": 'placement' must be a list of ranks"});
    std::vector<int64_t> ranks;
    for (const auto& r : placement) ranks.push_back(integerField(file, r, owner + ": a rank in 'placement'"));
    node.placement = std::move(ranks);
  }
  if (const YAML::Node path = entry["gemm_path"]) {
    node.gemmPathLoc = at(file, path);
    node.gemmPath = path.IsScalar() ? einrt::program::gemmPlannedFromName(path.Scalar()) : std::nullopt;
    if (!node.gemmPath)
      throw InputError({node.gemmPathLoc, owner + ": 'gemm_path' must be \"blas\" or \"primitive\"" +
                                              (path.IsScalar() ? ", not " + quoted(path.Scalar()) : std::string())});
  }
  return node;
}

}  // namespace

PlanFile parsePlanText(const std::string& text, const std::string& displayName) {
  PlanFile plan;
  plan.path = displayName;
  const YAML::Node root = loadStructuredText(text, displayName, GraphFormat::Auto, "plan file");
  if (!root.IsMap()) throw InputError({{displayName, 1, 1}, "a plan file must be a map with 'devices' and 'nodes'"});
  requireKnownKeys(displayName, root, topKeys(), "the plan file");
  if (const YAML::Node v = root["schema_version"]; v && integerField(displayName, v, "'schema_version'") != 1)
    throw InputError({at(displayName, v), "'schema_version' " + v.Scalar() + " is not supported (this einplan reads 1)"});
  if (const YAML::Node sha = root["graph_sha256"]) {
    if (!sha.IsScalar()) throw InputError({at(displayName, sha), "'graph_sha256' must be a string"});
    plan.graphSha256 = sha.Scalar();
    plan.graphSha256Loc = at(displayName, sha);
  }
  if (root["devices"]) plan.devices = positiveField(displayName, root["devices"], "'devices'");
  if (root["ranks_per_node"]) plan.ranksPerNode = positiveField(displayName, root["ranks_per_node"], "'ranks_per_node'");
  const YAML::Node nodes = root["nodes"];
  if (!nodes) throw InputError({at(displayName, root), "plan file has no 'nodes' list"});
  if (!nodes.IsSequence()) throw InputError({at(displayName, nodes), "'nodes' must be a list"});
  for (const YAML::Node& entry : nodes) plan.nodes.push_back(readNode(displayName, entry));
  return plan;
}

PlanFile readPlanFile(const std::string& path) { return parsePlanText(readInputFile(path, "plan file"), path); }

ResolvedPlanFile resolvePlanFile(const Graph& g, const PlanFile& plan, int64_t devices, const std::string& graphSha256) {
  if (plan.graphSha256 && *plan.graphSha256 != graphSha256)
    throw InputError({plan.graphSha256Loc, "the plan was made for another graph (graph_sha256 " + plan.graphSha256->substr(0, 16) +
                                               "..., this graph's is " + graphSha256.substr(0, 16) +
                                               "...); plan this graph again, or remove graph_sha256 to use the plan anyway"});
  ResolvedPlanFile resolved;
  const GraphIndex index(g);
  for (const PlanFileNode& node : plan.nodes) {
    const PartitionRequest& r = node.partition;
    if (resolved.partitions.count(r.node)) throw InputError({r.loc, "node '" + r.node + "' appears twice in the plan"});
    const Parts parts = resolvePartitionRequest(index.findNode(r.node), r, devices);
    resolved.partitions[r.node] = parts;
    if (node.gemmPath) {
      if (!runsAsGemm(*index.findNode(r.node)))
        throw InputError({node.gemmPathLoc, "node '" + r.node + "' has a 'gemm_path' but does not run as a GEMM"});
      resolved.gemmPaths[r.node] = *node.gemmPath;
    }
    if (!node.placement) continue;
    int64_t calls = 1;
    for (int64_t d : parts) calls *= d;
    const std::string problem = placementProblem(*node.placement, calls, devices);
    if (!problem.empty()) throw InputError({node.placementLoc, "node '" + r.node + "': the placement " + problem});
    resolved.placements[r.node] = std::vector<int>(node.placement->begin(), node.placement->end());
  }
  return resolved;
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
