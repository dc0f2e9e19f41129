#include "planner/graph/graph_summary.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "planner/graph/graph_index.h"
#include "planner/graph/units.h"

namespace eindecomp {

GraphSummary summarizeGraph(const Graph& g, const std::map<std::string, int64_t>& flopsOverride) {
  GraphSummary s;
  s.name = g.name;
  s.dtype = dtypeName(g.dtype);
  s.sourceFile = g.sourceFile;
  s.outputs = g.outputs;
  const int64_t elementBytes = static_cast<int64_t>(dtypeSize(g.dtype));
  const GraphIndex index(g);
  auto addTensor = [&](const std::string& name, const char* kind) {
    TensorSummary t;
    t.name = name;
    t.kind = kind;
    t.shape = index.tensorShape(name);
    t.elements = elementCount(t.shape);
    t.bytes = t.elements * elementBytes;
    t.isOutput = index.isOutput(name);
    s.totalBytes += t.bytes;  // the loader guarantees the total fits
    s.tensors.push_back(std::move(t));
  };
  for (const auto& in : g.inputs) addTensor(in.name, "input");
  for (const auto& n : g.nodes) {
    addTensor(n.name, "node");
    const auto overridden = flopsOverride.find(n.name);
    const int64_t flops = overridden != flopsOverride.end() ? overridden->second : nodeFlops(n);
    if (__builtin_add_overflow(s.totalFlops, flops, &s.totalFlops))
      throw InputError({n.loc, "the graph's total FLOP count overflows 64 bits"});
    s.nodes.push_back(NodeSummary{n.name, n.einsum, n.inputs, n.joinName, aggName(n.agg), outputShape(n),
                                  flops, index.isOutput(n.name)});
  }
  return s;
}

namespace {

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

// Left-aligned columns separated by two spaces, each row indented by two.
std::string alignedTable(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], row[c].size());
    }
  std::string out;
  for (const auto& row : rows) {
    std::string line = " ";
    for (std::size_t c = 0; c < row.size(); ++c) {
      line += " " + row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 1, ' ');
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::string renderSummaryTable(const GraphSummary& s) {
  std::string out = "graph " + s.name + " (" + s.dtype + ")" + (s.sourceFile.empty() ? "" : " from " + s.sourceFile) + "\n\n";
  std::vector<std::vector<std::string>> tensorRows = {{"tensor", "kind", "shape", "dtype", "bytes"}};
  for (const auto& t : s.tensors)
    tensorRows.push_back({t.name, t.isOutput ? t.kind + ", output" : t.kind, shapeText(t.shape), s.dtype,
                          formatBytes(t.bytes)});
  out += alignedTable(tensorRows) + "\n";
  std::vector<std::vector<std::string>> nodeRows = {{"node", "einsum", "inputs", "join", "agg", "output shape", "FLOPs"}};
  for (const auto& n : s.nodes)
    nodeRows.push_back({n.name, n.einsum, joined(n.inputs, ", "), n.join, n.agg, shapeText(n.outputShape),
                        formatFlops(n.flops)});
  out += alignedTable(nodeRows) + "\n";
  out += "outputs: " + joined(s.outputs, ", ") + "\n";
  out += "totals: " + std::to_string(s.tensors.size()) + " tensors, " + std::to_string(s.nodes.size()) + " nodes, " +
         formatFlops(s.totalFlops) + ", " + formatBytes(s.totalBytes) + "\n";
  return out;
}

std::string renderSummaryJson(const GraphSummary& s) {
  nlohmann::ordered_json j;
  j["graph"] = s.name;
  j["dtype"] = s.dtype;
  j["file"] = s.sourceFile;
  j["tensors"] = nlohmann::ordered_json::array();
  for (const auto& t : s.tensors)
    j["tensors"].push_back({{"name", t.name}, {"kind", t.kind}, {"shape", t.shape}, {"dtype", s.dtype},
                            {"elements", t.elements}, {"bytes", t.bytes}, {"output", t.isOutput}});
  j["nodes"] = nlohmann::ordered_json::array();
  for (const auto& n : s.nodes)
    j["nodes"].push_back({{"name", n.name}, {"einsum", n.einsum}, {"inputs", n.inputs}, {"join", n.join},
                          {"agg", n.agg}, {"output_shape", n.outputShape}, {"flops", n.flops},
                          {"output", n.isOutput}});
  j["outputs"] = s.outputs;
  j["totals"] = {{"tensors", s.tensors.size()}, {"nodes", s.nodes.size()}, {"flops", s.totalFlops},
                 {"bytes", s.totalBytes}};
  return j.dump(2) + "\n";
}

}  // namespace eindecomp
