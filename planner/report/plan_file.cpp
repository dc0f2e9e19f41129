#include "planner/report/plan_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <set>

#include "planner/graph/graph_index.h"
#include "planner/graph/identifiers.h"
#include "planner/graph/input_file.h"
#include "planner/graph/document.h"
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
      "peak_bytes_per_rank", "tile_workspace_bytes_per_rank", "estimated_time_s", "estimated_kernel_time_s", "estimated_exchange_time_s", "micro_batches", "search_time_s", "optimal",   "notes",               "bytes_predicted", "recompute", "shard_at_rest", "fused_gradient_casts", "partials_on_owners", "invariants_per_micro_batch"};
  return keys;
}

const std::vector<std::string>& nodeKeys() {
  static const std::vector<std::string> keys{
      "name",          "partition",        "kernel_calls",      "output_partition", "placement", "cost",
      "traffic_bytes", "traffic_in_bytes", "traffic_agg_bytes", "intra_node_bytes", "inter_node_bytes", "flops",            "bytes_per_device",
      "live_bytes",    "resident_input_bytes", "fallback",      "estimated_time_s", "estimated_kernel_time_s", "estimated_exchange_time_s", "kernel",            "bytes_predicted", "gemm_path", "reduced_at_read_by"};
  return keys;
}

// An integer written as a number (a quoted "4" is a string, not a number).
int64_t integerField(const Document& doc, const YamlValue& n, const std::string& field) {
  if (!n.IsScalar() || n.Tag() == "!")
    throw InputError({doc.at(n), field + " must be an integer" + (n.IsScalar() ? ", not a string (" + quoted(n.Scalar()) + ")" : "")});
  const std::string text = n.Scalar();
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno == ERANGE) throw InputError({doc.at(n), field + " " + text + " does not fit in a signed 64-bit integer"});
  if (text.empty() || end != text.c_str() + text.size())
    throw InputError({doc.at(n), field + " must be an integer, not " + quoted(text)});
  return v;
}

int64_t positiveField(const Document& doc, const YamlValue& n, const std::string& field) {
  const int64_t v = integerField(doc, n, field);
  if (v <= 0) throw InputError({doc.at(n), field + " must be a positive integer, not " + std::to_string(v)});
  return v;
}

PlanFileNode readNode(const Document& doc, const YamlValue& entry) {
  if (!entry.IsMap()) throw InputError({doc.at(entry), "each entry of 'nodes' must be a map with 'name' and 'partition'"});
  std::string nodeName;
  for (const auto& [key, value] : entry.entries())
    if (key.IsScalar() && key.Scalar() == "name" && value.IsScalar()) nodeName = value.Scalar();
  if (nodeName.empty()) throw InputError({doc.at(entry), "node entry needs a 'name'"});
  const std::string owner = "node " + quoted(nodeName);
  const DocFields fields = doc.fields(entry, nodeKeys(), "plan's " + owner);
  const DocField& name = *fields.find("name");
  const DocField* found = fields.find("partition");
  if (!found) throw InputError({doc.at(entry), owner + " needs a 'partition'"});
  const DocField& partition = *found;
  if (!partition.value.IsMap()) throw InputError({partition.valueLoc, owner + ": 'partition' must be a map label -> parts"});
  PlanFileNode node;
  node.partition.node = nodeName;
  node.partition.loc = name.valueLoc;
  std::vector<std::string> seen;
  for (const auto& [label, parts] : partition.value.entries()) {
    const std::string text = label.Scalar();
    if (std::find(seen.begin(), seen.end(), text) != seen.end())
      throw InputError({doc.at(label), owner + ": label " + quoted(text) + " appears twice in its partition"});
    seen.push_back(text);
    node.partition.parts.emplace_back(text, positiveField(doc, parts, owner + ": the parts of label " + quoted(text)));
  }
  if (const DocField* placement = fields.find("placement")) {
    node.placementLoc = placement->valueLoc;
    if (!placement->value.IsSequence()) throw InputError({node.placementLoc, owner + ": 'placement' must be a list of ranks"});
    std::vector<int64_t> ranks;
    for (const YamlValue& r : placement->value.items()) ranks.push_back(integerField(doc, r, owner + ": a rank in 'placement'"));
    node.placement = std::move(ranks);
  }
  if (const DocField* path = fields.find("gemm_path")) {
    node.gemmPathLoc = path->valueLoc;
    node.gemmPath = path->value.IsScalar() ? einrt::program::gemmPlannedFromName(path->value.Scalar()) : std::nullopt;
    if (!node.gemmPath)
      throw InputError({node.gemmPathLoc, owner + ": 'gemm_path' must be \"blas\" or \"primitive\"" +
                                              (path->value.IsScalar() ? ", not " + quoted(path->value.Scalar()) : std::string())});
  }
  return node;
}

// `recompute`: a list of {node, from} maps (planner/graph/recompute.h), in order.
std::vector<Recompute> readRecompute(const Document& doc, const DocField& field) {
  if (!field.value.IsSequence()) throw InputError({field.valueLoc, "'recompute' must be a list of {node, from} maps"});
  static const std::vector<std::string> keys{"node", "from"};
  std::vector<Recompute> out;
  for (const YamlValue& entry : field.value.items()) {
    if (!entry.IsMap()) throw InputError({doc.at(entry), "each entry of 'recompute' must be a map with 'node' and 'from'"});
    const DocFields fields = doc.fields(entry, keys, "'recompute' entry");
    Recompute r;
    r.loc = doc.at(entry);
    for (const auto& [key, target] : {std::pair{"node", &r.node}, std::pair{"from", &r.from}}) {
      const DocField* f = fields.find(key);
      if (!f) throw InputError({r.loc, std::string("a 'recompute' entry needs '") + key + "'"});
      if (!f->value.IsScalar() || !isIdentifier(f->value.Scalar()))
        throw InputError({f->valueLoc, std::string("'") + key + "' in 'recompute' must be a node name"});
      *target = f->value.Scalar();
    }
    out.push_back(std::move(r));
  }
  return out;
}

// A top-level list of names, each kept with where it stands: `shard_at_rest` (graph
// inputs, planner/graph/shard_at_rest.h, in order) and `fused_gradient_casts` (cast
// nodes, planner/graph/gradient_fusion.h). `what` names an entry in messages.
template <class Entry>
std::vector<Entry> readNames(const Document& doc, const DocField& field, const std::string& key, const std::string& what) {
  if (!field.value.IsSequence()) throw InputError({field.valueLoc, "'" + key + "' must be a list of " + what + "s"});
  std::vector<Entry> out;
  for (const YamlValue& entry : field.value.items()) {
    if (!entry.IsScalar() || !isIdentifier(entry.Scalar()))
      throw InputError({doc.at(entry), "each entry of '" + key + "' must be a " + what});
    out.push_back({entry.Scalar(), doc.at(entry)});
  }
  return out;
}

}  // namespace

PlanFile parsePlanText(const std::string& text, const std::string& displayName) {
  return readPlanDocument(Document(text, displayName, GraphFormat::Auto, "plan file"));
}

PlanFile readPlanDocument(const Document& doc) {
  PlanFile plan;
  plan.path = doc.file();
  const YamlValue root = doc.root();
  if (!root.IsMap()) throw InputError({{doc.file(), 1, 1}, "a plan file must be a map with 'devices' and 'nodes'"});
  const DocFields fields = doc.fields(root, topKeys(), "plan file");
  if (const DocField* v = fields.find("schema_version"); v && integerField(doc, v->value, "'schema_version'") != 1)
    throw InputError({v->valueLoc, "'schema_version' " + v->value.Scalar() + " is not supported (this einplan reads 1)"});
  if (const DocField* sha = fields.find("graph_sha256")) {
    if (!sha->value.IsScalar()) throw InputError({sha->valueLoc, "'graph_sha256' must be a string"});
    plan.graphSha256 = sha->value.Scalar();
    plan.graphSha256Loc = sha->valueLoc;
  }
  if (const DocField* d = fields.find("devices")) plan.devices = positiveField(doc, d->value, "'devices'");
  if (const DocField* r = fields.find("ranks_per_node")) plan.ranksPerNode = positiveField(doc, r->value, "'ranks_per_node'");
  if (const DocField* r = fields.find("recompute")) plan.recompute = readRecompute(doc, *r);
  if (const DocField* s = fields.find("shard_at_rest")) plan.shardAtRest = readNames<ShardAtRest>(doc, *s, "shard_at_rest", "graph input name");
  if (const DocField* f = fields.find("fused_gradient_casts"))
    plan.fusedGradientCasts = readNames<FusedGradientCast>(doc, *f, "fused_gradient_casts", "node name");
  if (const DocField* o = fields.find("partials_on_owners")) {
    if (!o->value.IsScalar() || (o->value.Scalar() != "true" && o->value.Scalar() != "false"))
      throw InputError({o->valueLoc, "'partials_on_owners' must be true or false"});
    plan.partialsOnOwners = o->value.Scalar() == "true";
  }
  if (const DocField* o = fields.find("invariants_per_micro_batch")) {
    if (!o->value.IsScalar() || (o->value.Scalar() != "true" && o->value.Scalar() != "false"))
      throw InputError({o->valueLoc, "'invariants_per_micro_batch' must be true or false"});
    plan.invariantsPerMicroBatch = o->value.Scalar() == "true";
  }
  const DocField* nodes = fields.find("nodes");
  if (!nodes) throw InputError({doc.at(root), "plan file has no 'nodes' list"});
  if (!nodes->value.IsSequence()) throw InputError({nodes->valueLoc, "'nodes' must be a list"});
  for (const YamlValue& entry : nodes->value.items()) plan.nodes.push_back(readNode(doc, entry));
  return plan;
}

PlanFile readPlanFile(const std::string& path) {
  return readPlanDocument(Document::read(path, "plan file", GraphFormat::Auto, kMaxInputFileBytes));
}

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
    if (!index.findNode(r.node) && !plan.fusedGradientCasts.empty())
      throw InputError({r.loc, "unknown node " + quoted(r.node) + ": the plan's fused_gradient_casts rewrite the graph first, "
                                                                 "so its nodes name the graph with those casts fused"});
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
