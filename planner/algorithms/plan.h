// The Plan: what every planning algorithm returns and what the cost report and the
// code generator consume. Plain data: for every node (aligned with Graph::nodes) the
// partition over iterationLabels(node) — order of first appearance in the operands,
// then the output — its kernel calls and output layout; for every node-to-node edge
// the tensor's bounds and its layout on each side (parts per tensor dimension), from
// which the repartition follows. Graph inputs have no layout of their own: each
// consumer reads them in its operand layout at no cost (SPEC 3).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/graph/graph.h"
#include "planner/partition/partition.h"

namespace eindecomp {

struct NodePlan {
  std::string name;
  Labels labels;            // iterationLabels(node)
  Parts parts;              // parts per label, aligned with `labels`
  int64_t kernelCalls = 1;  // prod(parts)
  bool fallback = false;    // no partition reaches the device count: kernelCalls is the largest feasible count below it
  Labels outputLabels;
  Parts outputParts;        // parts per output dimension
};

struct PlanEdge {
  std::string from;              // producer node
  std::string to;                // consumer node
  int fromNode = 0, toNode = 0;  // indices into Graph::nodes
  int operand = 0;               // operand position in the consumer
  std::vector<int64_t> bounds;   // the tensor's shape
  Parts producerParts;           // parts per dimension as the producer writes it
  Parts consumerParts;           // parts per dimension as the consumer reads it
};

struct Plan {
  int64_t devices = 1;
  std::string algorithm;
  std::vector<NodePlan> nodes;       // aligned with Graph::nodes
  std::vector<PlanEdge> edges;       // every node-to-node edge, consumers in node order
  std::vector<std::string> notes;    // fallbacks, truncated enumerations, the search's guarantee
  bool optimal = false;              // proven optimal under the cost model over the partitions considered
  double searchSeconds = 0;
};

// Builds a Plan from one partition per node (aligned with g.nodes and iterationLabels),
// deriving output layouts, edges and the fallback flags for `devices`.
Plan makePlan(const Graph& g, int64_t devices, const std::string& algorithm, const std::vector<Parts>& nodeParts);

}  // namespace eindecomp
