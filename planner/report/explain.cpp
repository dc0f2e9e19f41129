#include "planner/report/explain.h"

#include <algorithm>

#include "planner/cost/cost_model.h"
#include "planner/cost/time_model.h"
#include "planner/graph/identifiers.h"
#include "planner/graph/text_table.h"
#include "planner/graph/micro_batches.h"
#include "planner/graph/tensor_types.h"
#include "planner/graph/units.h"
#include "planner/partition/call_geometry.h"
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

// "[0, 1, 2, 3]", or the first and last ranks of a long list.
std::string rankList(const std::vector<int>& ranks) {
  std::string s;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (ranks.size() > 16 && i == 8) {
      s += ", ...";
      i = ranks.size() - 4;
    }
    s += (i ? ", " : "") + std::to_string(ranks[i]);
  }
  return "[" + s + "]";
}

int64_t blockCount(const Parts& parts) {
  int64_t b = 1;
  for (int64_t d : parts) b *= d;
  return b;
}

}  // namespace

std::string explainPlan(const Graph& g, const Plan& plan, const PlanCost& cost) {
  std::string out = "tensor-relational program for '" + g.name + "' on " + std::to_string(plan.devices) + " devices (" +
                    plan.algorithm + "), " + formatBytes(cost.trafficBytes) + " of traffic per execution";
  if (cost.microBatches > 1)
    out += " (a step of " + std::to_string(cost.microBatches) + " micro-batches: " + formatBytes(cost.perMicroBatchTrafficBytes) +
           " per micro-batch, " + formatBytes(cost.oncePerStepTrafficBytes) + " once per step)";
  out += "\n";
  if (!plan.fusedGradientCasts.empty())
    out += "gradient accumulation fusion: " + std::to_string(plan.fusedGradientCasts.size()) +
           " weight gradients (fused_gradient_casts) each write f32 under their cast's name, accumulated over the "
           "micro-batches and reduced once per step\n";
  const std::vector<DType> types = nodeOutputTypes(g);
  // Micro-batches (micro_batches.h): how often each node runs (the bytes below are the step's).
  const std::vector<NodeRuns> runs = nodeRuns(g, plan.invariants());
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const NodePlan& np = plan.nodes[i];
    NodeSpace space = nodeSpace(n);
    NodeCost c = nodeCost(space, np.parts, dtypeSize(types[i]));
    out += "\nnode " + n.name + ": \"" + n.einsum + "\" join " + n.joinName + ", agg " + reduceName(n.agg) +
           (isWideningContraction(n) ? ", widening: its 2-byte operands' products summed in f32" : "") + "\n";
    if (cost.microBatches > 1)
      out += runs[i].calls > 1 ? "  runs once per micro-batch (" + std::to_string(runs[i].calls) + " times)" +
                                     (runs[i].aggregation != 1 ? ""
                                      : cost.nodes[i].reducedAtReadBy >= 0
                                          ? ", its results summed over them and reduced once per step on the way to its reader"
                                          : ", its results summed over them and aggregated once per step") +
                                     "; bytes below are the step's\n"
              : runs[i].once ? "  runs once per step, in the first micro-batch (the same in every one): its blocks and its "
                               "readers' copies of them are kept for all of them\n"
                             : "  runs once per step, after the micro-batches\n";
    out += "  partition " + partitionText(np.labels, np.parts) + " -> " + std::to_string(np.kernelCalls) + " kernel calls" +
           (np.fallback ? " (fallback: no partition gives " + std::to_string(plan.devices) + ")" : "") + "\n";
    out += "  placement: kernel calls on ranks " + rankList(np.placement.callRank) + ", output blocks owned by ranks " +
           rankList(np.placement.blockOwner) + "\n";
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      Parts consumer = projectParts(np.parts, space.operandLabels[k]);
      std::vector<int64_t> bounds = tensorBounds(space, static_cast<int>(k));
      out += "  operand " + std::to_string(k) + " " + n.inputs[k] + ": read as " +
             layoutText(operandNames(n, k), consumer, np.kernelCalls) + ", blocks " + shapeText(bounds, consumer) + "\n";
      auto edge = std::find_if(plan.edges.begin(), plan.edges.end(),
                               [&](const PlanEdge& e) { return e.toNode == static_cast<int>(i) && e.operand == static_cast<int>(k); });
      if (edge == plan.edges.end()) {
        out += "    graph input: each rank makes the blocks its calls read, no traffic\n";
      } else {
        const EdgePlanCost& ec = cost.edges[static_cast<std::size_t>(edge - plan.edges.begin())];
        if (ec.readsCopyOf >= 0) {
          out += "    reads the copy of " + n.inputs[k] + " that " + plan.nodes[static_cast<std::size_t>(ec.readsCopyOf)].name +
                 " received (the same blocks on the same ranks, a few nodes before): no traffic\n";
          continue;
        }
        if (ec.reducesPartials) {
          out += "    repartition from the partial results of " + n.inputs[k] + ", reduced on the way (fewer bytes than " +
                 "aggregating them onto their owners first): " + formatBytes(ec.trafficBytes) + " of traffic\n";
          continue;
        }
        out += "    repartition from " + n.inputs[k] + " written as " +
               layoutText(g.nodes[edge->fromNode].outputLabels, edge->producerParts, blockCount(edge->producerParts)) +
               ": " + edgeCollective(edge->producerParts, edge->consumerParts) + ", " + formatBytes(ec.trafficBytes) +
               " of traffic (paper model: " + std::to_string(ec.paper) + " elements)\n";
      }
    }
    out += "  local join: " + std::to_string(np.kernelCalls) + " kernel calls, each writes a " +
           shapeText(tensorBounds(space, -1), np.outputParts) + " block (paper model: " + std::to_string(c.join) +
           " elements moved)\n";
    if (const int reader = cost.nodes[i].reducedAtReadBy; reader >= 0) {
      out += "  local aggregation: result is Partial(" + std::string(reduceName(n.agg)) + ") over " + std::to_string(c.nAgg) +
             " kernel calls per output block; not reduced on owners: " + plan.nodes[static_cast<std::size_t>(reader)].name +
             " receives the partials reduced (its operand's traffic)\n";
    } else if (c.nAgg > 1) {
      out += "  local aggregation: result is Partial(" + std::string(reduceName(n.agg)) + ") over " + std::to_string(c.nAgg) +
             " kernel calls per output block; reduced on the owners, " + formatBytes(cost.nodes[i].trafficAggBytes) +
             " of traffic (paper model: " + std::to_string(c.agg) + " elements)\n";
    } else {
      out += "  local aggregation: none (no aggregated label is partitioned)\n";
    }
    out += "  output " + n.name + ": " + layoutText(n.outputLabels, np.outputParts, np.kernelCalls / c.nAgg) + "\n";
  }
  return out;
}

std::string explainNodeCandidates(const Graph& g, const Plan& plan, const std::string& nodeName, const ObjectiveModel& model) {
  const int idx = nodeIndex(g, nodeName);
  if (idx < 0) throw InputError({{}, "--node: unknown node " + quoted(nodeName) + didYouMean(nodeName, [&] {
                                                    std::vector<std::string> names;
                                                    for (const auto& n : g.nodes) names.push_back(n.name);
                                                    return names;
                                                  }())});
  const auto node = static_cast<std::size_t>(idx);
  const NodeSpace space = nodeSpace(g.nodes[node]);
  const DType type = nodeComputeTypes(g)[node];  // what its calls are priced in
  const ViablePartitions viable = viablePartitions(einrt::model::cuttableSizes(space), plan.devices);
  std::vector<Parts> parts;
  std::vector<Placement> placements;
  for (const NodePlan& np : plan.nodes) {
    parts.push_back(np.parts);
    placements.push_back(np.placement);
  }
  struct Row {
    Parts parts;
    PlanCost cost;
  };
  std::vector<Row> rows;
  for (const Parts& candidate : viable.partitions) {
    parts[node] = candidate;
    placements[node] = candidate == plan.nodes[node].parts ? plan.nodes[node].placement
                                                           : canonicalPlacement(callGeometry(space, candidate),
                                                                                model.nodes().spansNodes(plan.devices));
    rows.push_back({candidate, costPlan(g, makePlan(g, plan.devices, plan.algorithm, parts, placements), model.machine)});
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) { return model.key(a.cost) < model.key(b.cost); });
  std::string out = "candidates for node " + nodeName + " (" + std::to_string(viable.kernelCalls) +
                    " kernel calls; the whole plan's cost with this node changed; * = chosen)\n";
  TextTable t;
  t.header = {"", "partition", std::string("plan ") + objectiveName(model.objective), "plan traffic", "join", "agg", "repart_in",
              "repart_out", "plan paper cost", "plan peak"};
  t.numeric = {false, false, true, true, true, true, true, true, true, true};
  // With a machine: where the node's own time goes — its kernel calls on the busiest rank
  // and its messages (operands in, partial results out) — and what one call runs.
  if (model.machine) {
    t.header.insert(t.header.end(), {"node kernels", "node messages", "one call"});
    t.numeric.insert(t.numeric.end(), {true, true, false});
  }
  for (const Row& r : rows) {
    const NodePlanCost& c = r.cost.nodes[node];
    int64_t out = 0;
    for (std::size_t e = 0; e < plan.edges.size(); ++e)
      if (plan.edges[e].fromNode == idx) out += r.cost.edges[e].paper;
    const std::string objectiveText = model.objective == Objective::Traffic ? formatBytes(model.total(r.cost))
                                      : model.objective == Objective::Time ? formatSeconds(picosecondsToSeconds(model.total(r.cost)))
                                                                            : std::to_string(model.total(r.cost));
    t.rows.push_back({r.parts == plan.nodes[node].parts ? "*" : "", partitionText(space.labels, r.parts), objectiveText,
                      formatBytes(r.cost.trafficBytes), std::to_string(c.join), std::to_string(c.agg), std::to_string(c.repartIn),
                      std::to_string(out), std::to_string(r.cost.paper),
                      formatBytes(r.cost.peakBytesPerDevice) + (model.fits(r.cost) ? "" : " (over --mem-limit)")});
    if (model.machine) {
      const int64_t kernels = c.computePs, all = c.timePs;
      t.rows.back().insert(t.rows.back().end(),
                           {formatSeconds(picosecondsToSeconds(kernels)), formatSeconds(picosecondsToSeconds(all - kernels)),
                            describeCallTime(*model.machine, g.nodes[node], space, r.parts, type, c.resultFromMemory)});
    }
  }
  out += renderAligned(t);
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

std::string graphDot(const Graph& g, const Plan* plan, const PlanCost* cost) {
  std::string out = "digraph \"" + dotEscape(g.name) + "\" {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n";
  for (const auto& t : g.inputs) {
    std::string shape;
    for (std::size_t k = 0; k < t.shape.size(); ++k) shape += (k ? "x" : "") + std::to_string(t.shape[k]);
    out += "  \"" + t.name + "\" [shape=box, label=\"" + t.name + "\\n" + shape + "\"];\n";
  }
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    std::string label = n.name + "\\n" + dotEscape(n.einsum);
    if (plan)
      label += "\\n" + partitionText(plan->nodes[i].labels, plan->nodes[i].parts) + "\\nranks " +
               rankList(plan->nodes[i].placement.callRank);
    out += "  \"" + n.name + "\" [shape=ellipse, label=\"" + label + "\"];\n";
  }
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      std::string attrs;
      if (plan && cost) {
        for (std::size_t e = 0; e < plan->edges.size(); ++e)
          if (plan->edges[e].toNode == static_cast<int>(i) && plan->edges[e].operand == static_cast<int>(k))
            attrs = " [label=\"" + formatBytes(cost->edges[e].trafficBytes) + "\\nrepart " + std::to_string(cost->edges[e].paper) + "\"]";
      }
      out += "  \"" + n.inputs[k] + "\" -> \"" + n.name + "\"" + attrs + ";\n";
    }
  }
  return out + "}\n";
}

}  // namespace eindecomp
