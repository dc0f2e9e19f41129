// The cost report of a plan (SPEC 6): Plan -> Report, plain data that the renderings
// (render.h) turn into table, markdown, csv, json or yaml. Per node: partition, kernel
// calls, join / agg / repart_in cost (elements), FLOPs, bytes per device and, with a
// machine description, an estimated time; per edge: the repartition cost; totals,
// peak bytes per device, search time, fallbacks and provenance. A report is also a plan
// file: plan_file.h reads it back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planner/algorithms/plan.h"
#include "planner/cost/machine.h"
#include "planner/graph/graph.h"

namespace eindecomp {

struct Provenance {
  std::string toolName = "einplan";
  std::string toolVersion;  // EINDECOMP_VERSION_STRING
  std::string commandLine;
  std::string graphSha256;  // of the graph file's bytes
};

struct NodeReport {
  std::string name;
  Labels labels;
  Parts parts;
  int64_t kernelCalls = 1;
  bool fallback = false;
  Labels outputLabels;
  Parts outputParts;
  int64_t join = 0, agg = 0, repartIn = 0, total = 0;  // elements
  int64_t flops = 0;
  int64_t bytesPerDevice = 0;
  std::optional<double> timeSeconds;  // with a machine
};

struct EdgeReport {
  std::string from, to;
  int operand = 0;
  int64_t cost = 0;  // elements
};

struct Report {
  Provenance provenance;
  std::string graph;
  int64_t devices = 1;
  std::string algorithm;
  std::string dtype;
  std::vector<NodeReport> nodes;
  std::vector<EdgeReport> edges;
  int64_t totalCost = 0;         // elements
  int64_t totalBytes = 0;        // totalCost * dtype size
  int64_t totalFlops = 0;
  int64_t peakBytesPerDevice = 0;
  std::optional<double> totalTimeSeconds;
  double searchSeconds = 0;
  bool optimal = false;
  std::vector<std::string> notes;
};

// Costs the plan with the SPEC 3 model. Throws InputError on 64-bit overflow.
Report makeReport(const Graph& g, const Plan& plan, const Provenance& provenance,
                  const std::optional<Machine>& machine = std::nullopt);

}  // namespace eindecomp
