// The cost report of a plan (SPEC 6): Plan -> Report, plain data that the renderings
// (render.h) turn into table, markdown, csv, json or yaml. Per node: partition, kernel
// calls, placement, the paper model's join / agg / repart_in (elements), its traffic
// (bytes, what the emitted program measures for the node), FLOPs, bytes per device and,
// with a machine, an estimated time; per edge: the paper's repartition cost and the
// traffic; totals, the objective, search time, fallbacks and provenance. All numbers
// come from costPlan (planner/cost/plan_cost.h). A report is also a plan file:
// plan_file.h reads it back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planner/cost/objective.h"
#include "planner/cost/plan_cost.h"
#include "planner/graph/graph.h"
#include "planner/placement/plan.h"

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
  int64_t fullCalls = 1;  // the kernel calls a node using every device it can runs
  Labels outputLabels;
  Parts outputParts;
  std::vector<int> placement;                          // rank of each kernel call
  int64_t join = 0, agg = 0, repartIn = 0, total = 0;  // paper model, elements
  int64_t trafficBytes = 0;                            // in + aggregation
  int64_t trafficInBytes = 0, trafficAggBytes = 0;
  int64_t interNodeBytes = 0;                          // of trafficBytes, between nodes (SPEC 9)
  std::string reducedAtReadBy;                         // its partials reduced on the way to this reader, else empty
  int64_t flops = 0;
  int64_t bytesPerDevice = 0;         // the paper's working set of one call (nX + nY + nZ)
  int64_t liveBytes = 0;              // held on the busiest rank while its step runs (SPEC 3.2)
  int64_t residentInputBytes = 0;     // its graph-input blocks on the busiest rank (held all run)
  std::optional<double> timeSeconds;  // with a machine
  // Of timeSeconds: its kernel calls (and the executor's step around them), and the rest,
  // its exchanges (the repartitions into it and its aggregation). The program runs each
  // exchange between kernels, so all of it is exposed: nothing is hidden behind a kernel.
  std::optional<double> kernelTimeSeconds, exchangeTimeSeconds;
  einrt::program::GemmPlanned gemmPath = einrt::program::GemmPlanned::Rule;  // the plan's (plan.h)
};

struct EdgeReport {
  std::string from, to;
  int operand = 0;
  int64_t cost = 0;  // paper repartition, elements
  int64_t trafficBytes = 0;
  int64_t interNodeBytes = 0;
  std::optional<double> timeSeconds;
  std::string readsCopyOf;  // the earlier reader whose received copy the consumer reads (plan_cost.h), else empty
  bool reducesPartials = false;  // the producer's partials are reduced on the way (plan_cost.h)
};

struct Report {
  Provenance provenance;
  std::string graph;
  int64_t devices = 1;
  std::string algorithm;
  Objective objective = Objective::Traffic;
  std::string dtype;
  std::vector<NodeReport> nodes;
  std::vector<EdgeReport> edges;
  int64_t totalCost = 0;          // paper model, elements
  int64_t totalBytes = 0;         // totalCost * dtype size
  int64_t totalTrafficBytes = 0;  // what crosses between ranks per execution
  int64_t totalInterNodeBytes = 0;  // of that, what crosses between nodes (intra-node: the rest)
  int64_t ranksPerNode = 0;         // the machine's nodes (SPEC 9; 0: one node)
  int64_t totalFlops = 0;
  int64_t peakBytesPerDevice = 0;            // max of peakBytesPerRank
  std::vector<int64_t> peakBytesPerRank;      // the program's predicted high-water mark, one thread
  std::vector<int64_t> tileWorkspaceBytesPerRank;  // added per further thread
  std::optional<double> estimatedTimeSeconds;
  std::optional<double> kernelTimeSeconds, exchangeTimeSeconds;  // of it, as the nodes' (NodeReport)
  // A step of micro-batches (microBatches > 1): what one micro-batch moves and takes, and
  // what runs once per step (the totals above are the step's: count x one + once).
  int64_t microBatches = 1;
  int64_t perMicroBatchTrafficBytes = 0, oncePerStepTrafficBytes = 0;
  std::optional<double> perMicroBatchTimeSeconds, oncePerStepTimeSeconds;
  std::optional<double> searchSeconds;  // absent where the report must be reproducible (eincodegen's plan.json)
  bool optimal = false;
  std::vector<std::string> notes;
  std::vector<Recompute> recompute;  // the plan's (planner/graph/recompute.h), written only when some
  std::vector<ShardAtRest> shardAtRest;  // the plan's (planner/graph/shard_at_rest.h), written only when some
  std::vector<FusedGradientCast> fusedGradientCasts;  // the plan's (planner/graph/gradient_fusion.h), only when some
  bool partialsOnOwners = false;         // the plan's (plan.h), written only when set
  bool invariantsPerMicroBatch = false;  // the plan's (plan.h), written only when set

  // The number the objective minimizes, as printed: traffic bytes, paper elements, or
  // time in seconds (0 without a machine).
  double objectiveValue() const;
};

// The report of a plan and its cost (`cost` is costPlan(g, plan, machine)).
Report makeReport(const Graph& g, const Plan& plan, const PlanCost& cost, const Provenance& provenance, Objective objective);

}  // namespace eindecomp
