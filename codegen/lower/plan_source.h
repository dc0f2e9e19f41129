// Where the partitions of an emitted program come from: a planner run (`-p N
// --algorithm A`) or a plan file (`--plan FILE`, SPEC 6, read by the planner's
// planner/report/plan_file.h; nodes it leaves out are planned by eindecomp). Also the
// cost model's numbers for the chosen partitions (SPEC 3, elements), so the program's
// predicted bytes can be shown next to the model's worst case, and the plan.json
// written into the emitted project.
#pragma once

#include <map>
#include <string>

#include "codegen/lower/rank_program.h"
#include "planner/algorithms/plan.h"
#include "planner/graph/graph.h"
#include "planner/partition/partition.h"

namespace eindecomp::codegen {

// The partitions of `plan` with the cost model's join+agg+repartition per node and in total.
PlanPartitions partitionsFromPlan(const Graph& g, const Plan& plan);

// The plan as JSON in the SPEC 6 shape (schema_version, tool, graph_sha256, graph, devices,
// algorithm, dtype, nodes[name, partition, kernel_calls, output_partition, cost.total,
// bytes_predicted], total_cost, bytes_predicted, command_line).
std::string planJson(const Graph& g, const Plan& plan, const RankProgram& program, const std::string& toolVersion,
                     const std::string& graphSha256, const std::string& commandLine);

}  // namespace eindecomp::codegen
