#include "planner/cost/machine.h"

#include <algorithm>

#include "planner/graph/diagnostic.h"
#include "planner/graph/document.h"
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

// What a real machine's figures fall within; a value outside is a typo or a forgotten unit
// (bandwidth: 12.5 read as 12.5 B/s), which would price every plan absurdly, or past
// 64 bits: refused with the unit the number probably had.
struct Plausible {
  double low, high;
  const char* range;                 // for the message
  std::vector<std::pair<double, const char*>> guesses;  // factor and unit of a likely intent
};

const Plausible& plausibleFor(Quantity kind) {
  static const Plausible seconds{0, 1, "0 to 1 s", {{1e-6, "us"}, {1e-9, "ns"}}};
  static const Plausible rate{1e6, 1e15, "1 MB/s to 1 PB/s", {{1e9, "GB/s"}, {1e6, "MB/s"}}};
  static const Plausible flops{1e6, 1e19, "1 MFLOP/s to 10 EFLOP/s", {{1e12, "TFLOP/s"}, {1e9, "GFLOP/s"}}};
  return kind == Quantity::Seconds ? seconds : kind == Quantity::BytesPerSecond ? rate : flops;
}

void requirePlausible(const DocField& v, double x, Quantity kind) {
  const Plausible& p = plausibleFor(kind);
  if (x == 0 || (x >= p.low && x <= p.high)) return;
  std::string guess;
  for (const auto& [factor, unit] : p.guesses)
    if (guess.empty() && x * factor >= p.low && x * factor <= p.high) guess = std::string(": did you mean ") + v.value.Scalar() + " " + unit + "?";
  throw InputError({v.valueLoc, "field '" + v.name + "': " + v.value.Scalar() + " is outside any plausible machine (" + p.range +
                                    ")" + (guess.empty() ? "; give a unit (" + quantityUnits(kind) + ")" : guess)});
}

std::optional<double> readField(const DocFields& fields, const SourceLoc& rootLoc, const Field& f) {
  const DocField* v = fields.find(f.key);
  if (!v) {
    if (f.required) throw InputError({rootLoc, std::string("missing field '") + f.key + "'"});
    return std::nullopt;
  }
  const std::optional<double> x = v->value.IsScalar() ? parseQuantity(v->value.Scalar(), f.kind) : std::nullopt;
  if (!x)
    throw InputError({v->valueLoc, std::string("field '") + f.key + "' must be a non-negative number, optionally with a unit (" +
                                       quantityUnits(f.kind) + ")"});
  if (*x == 0 && !f.zeroAllowed) throw InputError({v->valueLoc, std::string("field '") + f.key + "' must be positive"});
  requirePlausible(*v, *x, f.kind);
  return x;
}

// ranks_per_node: a positive whole number.
std::optional<int64_t> readRanksPerNode(const DocFields& fields) {
  const DocField* v = fields.find("ranks_per_node");
  if (!v) return std::nullopt;
  const std::string text = v->value.IsScalar() ? v->value.Scalar() : "";
  int64_t n = 0;
  bool ok = !text.empty() && text.size() <= 9;
  for (char c : text) {
    ok = ok && c >= '0' && c <= '9';
    if (ok) n = n * 10 + (c - '0');
  }
  if (!ok || n <= 0)
    throw InputError({v->valueLoc, "field 'ranks_per_node' must be a positive whole number below 10^9 (ranks k*N .. k*N+N-1 share node k)"});
  return n;
}

}  // namespace

const std::vector<std::string>& machineInformationKeys() {
  static const std::vector<std::string> keys{"ranks", "tool", "host", "measured", "links_measured", "p2p_latency", "p2p_bandwidth",
                                             "allreduce_bandwidth"};
  return keys;
}

Machine readMachineDocument(const Document& doc) {
  const YamlValue root = doc.root();
  if (!root.IsMap())
    throw InputError({{doc.file(), 1, 1}, "a machine file must be a mapping with latency, bandwidth and flops (docs/cost-model.md)"});
  std::vector<std::string> known;
  std::string list;
  for (const Field& f : estimateFields()) {
    known.push_back(f.key);
    list += (list.empty() ? "" : ", ") + std::string(f.key);
  }
  known.push_back("ranks_per_node");
  known.push_back("kernel_model");
  for (const auto& k : machineInformationKeys()) known.push_back(k);
  const DocFields fields = doc.fields(root, known, "machine file", "the estimate reads " + list + ", ranks_per_node, kernel_model");
  const SourceLoc rootLoc = doc.at(root);
  Machine m;
  m.latencySeconds = *readField(fields, rootLoc, estimateFields()[0]);
  m.bandwidthBytesPerSecond = *readField(fields, rootLoc, estimateFields()[1]);
  m.flopsPerSecond = *readField(fields, rootLoc, estimateFields()[2]);
  m.flopsF64PerSecond = readField(fields, rootLoc, estimateFields()[3]);
  m.memoryBytesPerSecond = readField(fields, rootLoc, estimateFields()[4]);
  m.flopsBf16PerSecond = readField(fields, rootLoc, estimateFields()[5]);
  m.flopsF16PerSecond = readField(fields, rootLoc, estimateFields()[6]);
  const std::optional<double> interLatency = readField(fields, rootLoc, estimateFields()[7]);
  const std::optional<double> interBandwidth = readField(fields, rootLoc, estimateFields()[8]);
  m.ranksPerNode = readRanksPerNode(fields);
  if (m.ranksPerNode && (!interLatency || !interBandwidth))
    throw InputError({fields.find("ranks_per_node")->valueLoc,
                      std::string("a cluster (ranks_per_node) needs the link between nodes: add ") +
                          (interLatency ? "" : "inter_node_latency") + (!interLatency && !interBandwidth ? " and " : "") +
                          (interBandwidth ? "" : "inter_node_bandwidth") + " (docs/cost-model.md)"});
  if (!m.ranksPerNode && (interLatency || interBandwidth))
    throw InputError({fields.find(interLatency ? "inter_node_latency" : "inter_node_bandwidth")->valueLoc,
                      "inter_node_latency and inter_node_bandwidth describe a cluster: add ranks_per_node (docs/cost-model.md)"});
  m.interNodeLatencySeconds = interLatency.value_or(0);
  m.interNodeBandwidthBytesPerSecond = interBandwidth.value_or(0);
  if (const DocField* k = fields.find("kernel_model")) m.kernels = parseKernelModel(doc, *k);
  return m;
}

Machine parseMachineText(const std::string& text, const std::string& path) {
  return readMachineDocument(Document(text, path, GraphFormat::Auto, "machine file"));
}

Machine flatMachine(Machine m) {
  m.ranksPerNode.reset();
  m.interNodeLatencySeconds = 0;
  m.interNodeBandwidthBytesPerSecond = 0;
  return m;
}

Machine loadMachineFile(const std::string& path) {
  return readMachineDocument(Document::read(path, "machine file", GraphFormat::Auto, kMaxMachineFileBytes));
}

}  // namespace eindecomp
