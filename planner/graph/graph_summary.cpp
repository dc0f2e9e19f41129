#include "planner/graph/graph_summary.h"

#include <nlohmann/json.hpp>

#include "planner/graph/graph_index.h"
#include "planner/graph/micro_batches.h"
#include "planner/graph/tensor_types.h"
#include "planner/graph/text_table.h"
#include "planner/graph/units.h"

namespace eindecomp {

namespace {

void summarizeMicroBatches(const Graph& g, GraphSummary& s) {
  GraphSummary::Steps& mb = s.microBatches;
  mb.count = g.microBatches->count;
  for (const MicroBatchSplit& sp : g.microBatches->split) mb.split.emplace_back(sp.input, sp.dimension);
  for (const AccumulatedNode& a : g.microBatches->accumulate) mb.accumulate.push_back(a.node);
  // (The graph's own counts: its invariants as run per micro-batch; a plan may run them once.)
  const std::vector<NodeRuns> runs = nodeRuns(g, Invariants::PerMicroBatch);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    (runs[i].calls > 1 ? mb.perMicroBatchNodes : mb.oncePerStepNodes) += 1;
    int64_t flops = 0;
    if (__builtin_mul_overflow(s.nodes[i].flops, runs[i].calls, &flops) || __builtin_add_overflow(mb.stepFlops, flops, &mb.stepFlops))
      throw InputError({g.nodes[i].loc, "the step's total FLOP count overflows 64 bits"});
  }
}

}  // namespace

GraphSummary summarizeGraph(const Graph& g, const std::map<std::string, int64_t>& flopsOverride) {
  GraphSummary s;
  s.name = g.name;
  s.dtype = dtypeName(g.dtype);
  s.sourceFile = g.sourceFile;
  s.outputs = g.outputs;
  const GraphIndex index(g);
  const std::vector<DType> nodeTypes = nodeOutputTypes(g);
  auto addTensor = [&](const std::string& name, const char* kind, DType type) {
    TensorSummary t;
    t.name = name;
    t.kind = kind;
    t.shape = index.tensorShape(name);
    t.elements = elementCount(t.shape);
    t.dtype = dtypeName(type);
    t.bytes = t.elements * static_cast<int64_t>(dtypeSize(type));
    t.isOutput = index.isOutput(name);
    s.totalBytes += t.bytes;  // the loader guarantees the total fits
    s.tensors.push_back(std::move(t));
  };
  for (const auto& in : g.inputs) addTensor(in.name, "input", inputType(g, in));
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    addTensor(n.name, "node", nodeTypes[i]);
    const auto overridden = flopsOverride.find(n.name);
    const int64_t flops = overridden != flopsOverride.end() ? overridden->second : nodeFlops(n);
    if (__builtin_add_overflow(s.totalFlops, flops, &s.totalFlops))
      throw InputError({n.loc, "the graph's total FLOP count overflows 64 bits"});
    s.nodes.push_back(NodeSummary{n.name, n.einsum, n.inputs, n.joinName, reduceName(n.agg), outputShape(n),
                                  flops, index.isOutput(n.name)});
  }
  if (g.microBatches) summarizeMicroBatches(g, s);
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

}  // namespace

std::string renderSummaryTable(const GraphSummary& s) {
  std::string out = "graph " + s.name + " (" + s.dtype + ")" + (s.sourceFile.empty() ? "" : " from " + s.sourceFile) + "\n\n";
  TextTable tensors{{"tensor", "kind", "shape", "dtype", "bytes"}, {}, {false, false, false, false, true}};
  for (const auto& t : s.tensors)
    tensors.rows.push_back({t.name, t.isOutput ? t.kind + ", output" : t.kind, shapeText(t.shape), t.dtype,
                            formatBytes(t.bytes)});
  out += renderAligned(tensors, "  ") + "\n";
  TextTable nodes{{"node", "einsum", "inputs", "join", "agg", "output shape", "FLOPs"},
                  {},
                  {false, false, false, false, false, false, true}};
  for (const auto& n : s.nodes)
    nodes.rows.push_back({n.name, n.einsum, joined(n.inputs, ", "), n.join, n.agg, shapeText(n.outputShape),
                          formatFlops(n.flops)});
  out += renderAligned(nodes, "  ") + "\n";
  out += "outputs: " + joined(s.outputs, ", ") + "\n";
  out += "totals: " + std::to_string(s.tensors.size()) + " tensors, " + std::to_string(s.nodes.size()) + " nodes, " +
         formatFlops(s.totalFlops) + ", " + formatBytes(s.totalBytes) + "\n";
  if (const GraphSummary::Steps& mb = s.microBatches; mb.count > 1) {
    std::vector<std::string> split;
    for (const auto& [input, dim] : mb.split) split.push_back(input + ":" + std::to_string(dim));
    out += "micro-batches: " + std::to_string(mb.count) + " (split " + joined(split, ", ") + "; shapes above are one "
           "micro-batch's), " + std::to_string(mb.perMicroBatchNodes) + " nodes per micro-batch, " +
           std::to_string(mb.oncePerStepNodes) + " once per step, " + formatFlops(mb.stepFlops) + " a step; summed: " +
           joined(mb.accumulate, ", ") + "\n";
  }
  return out;
}

std::string renderSummaryJson(const GraphSummary& s) {
  nlohmann::ordered_json j;
  j["graph"] = s.name;
  j["dtype"] = s.dtype;
  j["file"] = s.sourceFile;
  j["tensors"] = nlohmann::ordered_json::array();
  for (const auto& t : s.tensors)
    j["tensors"].push_back({{"name", t.name}, {"kind", t.kind}, {"shape", t.shape}, {"dtype", t.dtype},
                            {"elements", t.elements}, {"bytes", t.bytes}, {"output", t.isOutput}});
  j["nodes"] = nlohmann::ordered_json::array();
  for (const auto& n : s.nodes)
    j["nodes"].push_back({{"name", n.name}, {"einsum", n.einsum}, {"inputs", n.inputs}, {"join", n.join},
                          {"agg", n.agg}, {"output_shape", n.outputShape}, {"flops", n.flops},
                          {"output", n.isOutput}});
  j["outputs"] = s.outputs;
  j["totals"] = {{"tensors", s.tensors.size()}, {"nodes", s.nodes.size()}, {"flops", s.totalFlops},
                 {"bytes", s.totalBytes}};
  if (const GraphSummary::Steps& mb = s.microBatches; mb.count > 1) {
    nlohmann::ordered_json split = nlohmann::ordered_json::object();
    for (const auto& [input, dim] : mb.split) split[input] = dim;
    j["micro_batches"] = {{"count", mb.count}, {"split", split}, {"accumulate", mb.accumulate},
                          {"per_micro_batch_nodes", mb.perMicroBatchNodes}, {"once_per_step_nodes", mb.oncePerStepNodes},
                          {"step_flops", mb.stepFlops}};
  }
  return j.dump(2) + "\n";
}

}  // namespace eindecomp
