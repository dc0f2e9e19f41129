// Reading plan files (SPEC 6): the full report that `einplan plan -o` writes (JSON or
// YAML), or a minimal hand-written one: {"devices": 16, "nodes": [{"name": "AB",
// "partition": {"i": 4, "j": 1, "k": 4}}]}. Only `devices` and each node's `name` and
// `partition` are read; everything else in a report is derived again when costing.
// Problems are InputErrors (exit 2) naming the file, line, column and field.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "planner/algorithms/pins.h"
#include "planner/graph/graph.h"

namespace eindecomp {

struct PlanFile {
  std::string path;
  std::optional<int64_t> devices;
  std::vector<PartitionRequest> nodes;
};

PlanFile readPlanFile(const std::string& path);
PlanFile parsePlanText(const std::string& text, const std::string& displayName);

// The partitions of the file's nodes for `devices`, validated against the graph (unknown
// node or label, parts not dividing, product != devices, a node given twice: exit 2).
std::map<std::string, Parts> resolvePlanFile(const Graph& g, const PlanFile& plan, int64_t devices);

// The device count to plan for: the file's `devices`, which -p (`requested`) may repeat
// but not contradict, else -p; neither is an InputError naming the file (exit 2).
int64_t planFileDevices(const PlanFile& plan, std::optional<int64_t> requested);

}  // namespace eindecomp
