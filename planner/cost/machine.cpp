#include "planner/cost/machine.h"

#include <algorithm>

#include <yaml-cpp/yaml.h>

#include "planner/graph/diagnostic.h"
#include "planner/graph/identifiers.h"
#include "planner/graph/input_file.h"
#include "planner/graph/units.h"

namespace eindecomp {

namespace {

struct Field {
  const char* key;
  Quantity kind;
  bool required;
  bool zeroAllowed;
};

const std::vector<Field>& estimateFields() {
  static const std::vector<Field> fields{{"latency", Quantity::Seconds, true, true},
                                         {"bandwidth", Quantity::BytesPerSecond, true, false},
                                         {"flops", Quantity::FlopsPerSecond, true, false},
                                         {"flops_f64", Quantity::FlopsPerSecond, false, false},
                                         {"memory_bandwidth", Quantity::BytesPerSecond, false, false},
                                         {"flops_bf16", Quantity::FlopsPerSecond, false, false},
                                         {"flops_f16", Quantity::FlopsPerSecond, false, false},
                                         {"inter_node_latency", Quantity::Seconds, false, true},
                                         {"inter_node_bandwidth", Quantity::BytesPerSecond, false, false}};
  return fields;
}

SourceLoc locOf(const std::string& path, const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return {path, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0};
}

std::optional<double> readField(const YAML::Node& root, const std::string& path, const Field& f) {
  const YAML::Node v = root[f.key];
  if (!v) {
    if (f.required) throw InputError({locOf(path, root), std::string("missing field '") + f.key + "'"});
    return std::nullopt;
  }
  const SourceLoc loc = locOf(path, v);
  const std::optional<double> x = v.IsScalar() ? parseQuantity(v.Scalar(), f.kind) : std::nullopt;
  if (!x)
    throw InputError({loc, std::string("field '") + f.key + "' must be a non-negative number, optionally with a unit (" +
                               quantityUnits(f.kind) + ")"});
  if (*x == 0 && !f.zeroAllowed) throw InputError({loc, std::string("field '") + f.key + "' must be positive"});
  return x;
}

// ranks_per_node: a positive whole number.
std::optional<int64_t> readRanksPerNode(const YAML::Node& root, const std::string& path) {
  const YAML::Node v = root["ranks_per_node"];
  if (!v) return std::nullopt;
  const std::string text = v.IsScalar() ? v.Scalar() : "";
  int64_t n = 0;
  bool ok = !text.empty() && text.size() <= 9;
  for (char c : text) {
    ok = ok && c >= '0' && c <= '9';
    if (ok) n = n * 10 + (c - '0');
  }
  if (!ok || n <= 0)
    throw InputError({locOf(path, v), "field 'ranks_per_node' must be a positive whole number below 10^9 (ranks k*N .. k*N+N-1 share node k)"});
  return n;
}

}  // namespace

const std::vector<std::string>& machineInformationKeys() {
  static const std::vector<std::string> keys{"ranks", "tool", "host", "measured", "links_measured", "p2p_latency", "p2p_bandwidth",
                                             "allreduce_bandwidth"};
  return keys;
}

Machine parseMachineText(const std::string& text, const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw InputError({{path, e.mark.line + 1, e.mark.column + 1}, "machine file: " + e.msg});
  }
  if (!root.IsMap())
    throw InputError({{path, 1, 1}, "a machine file must be a mapping with latency, bandwidth and flops (docs/cost-model.md)"});
  std::vector<std::string> known;
  for (const Field& f : estimateFields()) known.push_back(f.key);
  known.push_back("ranks_per_node");
  known.push_back("kernel_model");
  for (const auto& k : machineInformationKeys()) known.push_back(k);
  for (const auto& entry : root) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (const Field& f : estimateFields()) list += (list.empty() ? "" : ", ") + std::string(f.key);
      list += ", ranks_per_node, kernel_model";
      throw InputError({locOf(path, entry.first), "unknown field " + quoted(key) + " in the machine file" +
                                                      didYouMean(key, known) + "; the estimate reads " + list});
    }
  }
  Machine m;
  m.latencySeconds = *readField(root, path, estimateFields()[0]);
  m.bandwidthBytesPerSecond = *readField(root, path, estimateFields()[1]);
  m.flopsPerSecond = *readField(root, path, estimateFields()[2]);
  m.flopsF64PerSecond = readField(root, path, estimateFields()[3]);
  m.memoryBytesPerSecond = readField(root, path, estimateFields()[4]);
  m.flopsBf16PerSecond = readField(root, path, estimateFields()[5]);
  m.flopsF16PerSecond = readField(root, path, estimateFields()[6]);
  const std::optional<double> interLatency = readField(root, path, estimateFields()[7]);
  const std::optional<double> interBandwidth = readField(root, path, estimateFields()[8]);
  m.ranksPerNode = readRanksPerNode(root, path);
  if (m.ranksPerNode && (!interLatency || !interBandwidth))
    throw InputError({locOf(path, root["ranks_per_node"]), std::string("a cluster (ranks_per_node) needs the link between nodes: add ") +
                                                         (interLatency ? "" : "inter_node_latency") +
                                                         (!interLatency && !interBandwidth ? " and " : "") +
                                                         (interBandwidth ? "" : "inter_node_bandwidth") + " (docs/cost-model.md)"});
  if (!m.ranksPerNode && (interLatency || interBandwidth))
    throw InputError({locOf(path, root[interLatency ? "inter_node_latency" : "inter_node_bandwidth"]),
                      "inter_node_latency and inter_node_bandwidth describe a cluster: add ranks_per_node (docs/cost-model.md)"});
  m.interNodeLatencySeconds = interLatency.value_or(0);
  m.interNodeBandwidthBytesPerSecond = interBandwidth.value_or(0);
  if (const YAML::Node k = root["kernel_model"]) m.kernels = parseKernelModel(k, path);
  return m;
}

Machine flatMachine(Machine m) {
  m.ranksPerNode.reset();
  m.interNodeLatencySeconds = 0;
  m.interNodeBandwidthBytesPerSecond = 0;
  return m;
}

Machine loadMachineFile(const std::string& path) { return parseMachineText(readInputFile(path, "machine file"), path); }

}  // namespace eindecomp
