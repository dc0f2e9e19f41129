#include "planner/report/explain.h"

#include <algorithm>

#include "planner/cost/cost_model.h"
#include "planner/partition/partition.h"
#include "planner/report/render.h"

namespace eindecomp {

std::string layoutText(const Labels& dims, const Parts& parts, int64_t kernelCalls) {
  std::string s = "[";
  int64_t blocks = 1;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    s += (k ? ", " : "") + (parts[k] > 1 ? "Shard(" + dims[k] + ":" + std::to_string(parts[k]) + ")" : "Replicate(" + dims[k] + ")");
    blocks *= parts[k];
  }
  if (dims.empty()) s += "scalar";
  s += "]";
  if (kernelCalls / blocks > 1) s += ", each block on " + std::to_string(kernelCalls / blocks) + " kernel calls (Replicate)";
  return s;
}

std::string edgeCollective(const Parts& producer, const Parts& consumer) {
  if (producer == consumer) return "none (layouts match)";
  bool coarser = true, finer = true;
  for (std::size_t k = 0; k < producer.size(); ++k) {
    if (producer[k] % consumer[k] != 0) coarser = false;
    if (consumer[k] % producer[k] != 0) finer = false;
  }
  if (coarser) return "BCAST/all-gather (consumer blocks are unions of producer blocks)";
  if (finer) return "SHUF/scatter (consumer blocks are slices of producer blocks)";
  return "SHUF/all-to-all (layouts do not nest)";
}

namespace {

std::string shapeText(const std::vector<int64_t>& bounds, const Parts& parts) {
  std::string s;
  for (std::size_t k = 0; k < bounds.size(); ++k) s += (k ? "x" : "") + std::to_string(bounds[k] / parts[k]);
  return s.empty() ? "scalar" : s;
}

Labels operandNames(const Node& n, std::size_t k) { return n.operandLabels[k]; }

int64_t blockCount(const Parts& parts) {
  int64_t b = 1;
  for (int64_t d : parts) b *= d;
  return b;
}

}  // namespace

std::string explainPlan(const Graph& g, const Plan& plan) {
  std::string out = "tensor-relational program for '" + g.name + "' on " + std::to_string(plan.devices) + " devices (" +
                    plan.algorithm + ")\n";
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const NodePlan& np = plan.nodes[i];
    NodeSpace space = nodeSpace(g, n);
    NodeCost c = nodeCost(space, np.parts, dtypeSize(g.dtype));
    out += "\nnode " + n.name + ": \"" + n.einsum + "\" join " + n.joinName + ", agg " + aggName(n.agg) + "\n";
    out += "  partition " + partitionText(np.labels, np.parts) + " -> " + std::to_string(np.kernelCalls) + " kernel calls" +
           (np.fallback ? " (fallback: no partition gives " + std::to_string(plan.devices) + ")" : "") + "\n";
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      Parts consumer = projectParts(np.parts, space.operandDims[k]);
      std::vector<int64_t> bounds = tensorBounds(space, static_cast<int>(k));
      out += "  operand " + std::to_string(k) + " " + n.inputs[k] + ": read as " +
             layoutText(operandNames(n, k), consumer, np.kernelCalls) + ", blocks " + shapeText(bounds, consumer) + "\n";
      auto edge = std::find_if(plan.edges.begin(), plan.edges.end(),
                               [&](const PlanEdge& e) { return e.toNode == static_cast<int>(i) && e.operand == static_cast<int>(k); });
      if (edge == plan.edges.end()) {
        out += "    graph input: laid out as the kernel calls need it, no cost\n";
      } else {
        out += "    repartition from " + n.inputs[k] + " written as " +
               layoutText(g.nodes[edge->fromNode].outputLabels, edge->producerParts, blockCount(edge->producerParts)) +
               ": " + edgeCollective(edge->producerParts, edge->consumerParts) + ", " +
               std::to_string(repartitionCost(edge->bounds, edge->producerParts, edge->consumerParts)) + " elements\n";
      }
    }
    out += "  local join: " + std::to_string(np.kernelCalls) + " kernel calls, each receives its operand blocks (" +
           std::to_string(c.join) + " elements moved) and writes a " + shapeText(tensorBounds(space, -1), np.outputParts) +
           " block\n";
    if (c.nAgg > 1) {
      out += "  local aggregation: result is Partial(" + std::string(aggName(n.agg)) + ") over " + std::to_string(c.nAgg) +
             " kernel calls per output block; reduce them (" + std::to_string(c.agg) + " elements moved)\n";
    } else {
      out += "  local aggregation: none (no aggregated label is partitioned)\n";
    }
    out += "  output " + n.name + ": " + layoutText(n.outputLabels, np.outputParts, np.kernelCalls / c.nAgg) + "\n";
  }
  return out;
}

std::string explainNodeCandidates(const Graph& g, const Plan& plan, const std::string& nodeName) {
  int idx = nodeIndex(g, nodeName);
  if (idx < 0) throw InputError({{}, "--node: unknown node '" + nodeName + "'"});
  const Node& n = g.nodes[idx];
  NodeSpace space = nodeSpace(g, n);
  ViablePartitions viable = viablePartitions(space.sizes, plan.devices);
  struct Row {
    Parts parts;
    int64_t join, agg, in, out, total, bytes;
  };
  std::vector<Row> rows;
  for (const Parts& parts : viable.partitions) {
    NodeCost c = nodeCost(space, parts, dtypeSize(g.dtype));
    Row r{parts, c.join, c.agg, 0, 0, 0, c.bytesPerDevice};
    for (const PlanEdge& e : plan.edges) {
      if (e.toNode == idx) r.in += repartitionCost(e.bounds, e.producerParts, projectParts(parts, space.operandDims[e.operand]));
      if (e.fromNode == idx) r.out += repartitionCost(e.bounds, projectParts(parts, space.outputDims), e.consumerParts);
    }
    r.total = r.join + r.agg + r.in + r.out;
    rows.push_back(r);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.total < b.total; });
  std::string out = "candidates for node " + nodeName + " (" + std::to_string(viable.kernelCalls) +
                    " kernel calls; other nodes as in the plan; * = chosen)\n";
  std::vector<std::vector<std::string>> table{{"", "partition", "join", "agg", "repart_in", "repart_out", "total", "bytes_per_device"}};
  for (const Row& r : rows)
    table.push_back({r.parts == plan.nodes[idx].parts ? "*" : "", partitionText(space.labels, r.parts), std::to_string(r.join),
                     std::to_string(r.agg), std::to_string(r.in), std::to_string(r.out), std::to_string(r.total), humanBytes(r.bytes)});
  std::vector<std::size_t> width(table[0].size(), 0);
  for (const auto& row : table)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  for (const auto& row : table) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      std::string pad(width[c] - row[c].size(), ' ');
      line += (c >= 2 ? pad + row[c] : row[c] + pad) + (c + 1 < row.size() ? "  " : "");
    }
    out += line + "\n";
  }
  if (viable.truncated) out += "note: enumeration stopped at " + std::to_string(kDefaultPartitionLimit) + " candidates\n";
  return out;
}

namespace {

std::string dotEscape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out;
}

}  // namespace

std::string graphDot(const Graph& g, const Plan* plan) {
  std::string out = "digraph \"" + dotEscape(g.name) + "\" {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n";
  for (const auto& t : g.inputs) {
    std::string shape;
    for (std::size_t k = 0; k < t.shape.size(); ++k) shape += (k ? "x" : "") + std::to_string(t.shape[k]);
    out += "  \"" + t.name + "\" [shape=box, label=\"" + t.name + "\\n" + shape + "\"];\n";
  }
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    std::string label = n.name + "\\n" + dotEscape(n.einsum);
    if (plan) label += "\\n" + partitionText(plan->nodes[i].labels, plan->nodes[i].parts);
    out += "  \"" + n.name + "\" [shape=ellipse, label=\"" + label + "\"];\n";
  }
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      std::string attrs;
      if (plan) {
        for (const PlanEdge& e : plan->edges)
          if (e.toNode == static_cast<int>(i) && e.operand == static_cast<int>(k))
            attrs = " [label=\"" + std::to_string(repartitionCost(e.bounds, e.producerParts, e.consumerParts)) + "\"]";
      }
      out += "  \"" + n.inputs[k] + "\" -> \"" + n.name + "\"" + attrs + ";\n";
    }
  }
  return out + "}\n";
}

}  // namespace eindecomp
