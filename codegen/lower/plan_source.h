// Where the partitions of an emitted program come from: a planner run (`-p N
// --algorithm A`) or a plan file (`--plan FILE`, SPEC 6: a full report written by
// `einplan plan -o` or a minimal hand-written plan; nodes it leaves out are planned by
// eindecomp). Also the cost model's numbers for the chosen partitions (SPEC 3, elements),
// so the program's predicted bytes can be shown next to the model's worst case, and the
// plan.json written into the emitted project.
#pragma once

#include <map>
#include <string>

#include "codegen/lower/rank_program.h"
#include "planner/algorithms/plan.h"
#include "planner/graph/graph.h"
#include "planner/partition/partition.h"

namespace eindecomp::codegen {

// A plan file's device count and the partitions it gives (node -> parts aligned with
// iterationLabels). Reads JSON or YAML; errors name the file, line and field (exit 2).
struct PlanFile {
  int64_t devices = 0;
  std::string algorithm;
  std::map<std::string, Parts> partitions;
};
PlanFile readPlanFile(const std::string& path, const Graph& g);

// The partitions of `plan` with the cost model's join+agg+repartition per node and in total.
PlanPartitions partitionsFromPlan(const Graph& g, const Plan& plan);

// The plan as JSON in the SPEC 6 shape (schema_version, tool, graph_sha256, graph, devices,
// algorithm, dtype, nodes[name, partition, kernel_calls, output_partition, cost.total,
// bytes_predicted], total_cost, bytes_predicted, command_line).
std::string planJson(const Graph& g, const Plan& plan, const RankProgram& program, const std::string& toolVersion,
                     const std::string& graphSha256, const std::string& commandLine);

}  // namespace eindecomp::codegen
