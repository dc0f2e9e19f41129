// Wiring shared by the planning subcommands (plan, cost, compare, explain, dot): loading
// a graph with its SHA-256 (provenance) and splitting n-ary nodes, the planning options
// of SPEC 5 (-p, --algorithm, --mem-limit, --fix, --machine, --plan) and their
// validation into PlanOptions. Bad values are InputErrors with exit 2.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "planner/algorithms/planning.h"
#include "planner/cost/machine.h"
#include "planner/graph/graph.h"
#include "planner/report/plan_file.h"
#include "planner/report/report.h"

namespace eindecomp::cli {

struct LoadedGraph {
  Graph graph;         // n-ary nodes already split into binary ones
  std::string sha256;  // of the file's bytes
};

LoadedGraph loadGraphForPlanning(const std::string& path, const std::string& inputFormat);

struct PlanningArgs {
  std::string graph;
  std::string inputFormat = "auto";
  std::string devices;        // -p, as typed
  std::string algorithm = "eindecomp";
  std::string memLimit;       // bytes, optional K/M/G/KiB/MiB/GiB suffix
  std::vector<std::string> fixes;
  std::string machine;
  std::string plan;           // --plan FILE
  std::string format = "table";
  std::string output;         // -o
};

void addGraphArgument(CLI::App* cmd, PlanningArgs& args);
void addDeviceOption(CLI::App* cmd, PlanningArgs& args, bool required);
void addConstraintOptions(CLI::App* cmd, PlanningArgs& args);  // --mem-limit, --fix, --machine

// "8" -> 8; 0, negative, non-numeric or trailing garbage: InputError (exit 2).
int64_t parseDevices(const std::string& text);
// "1048576", "64MiB", "2G": bytes; InputError (exit 2) otherwise.
int64_t parseByteCount(const std::string& text, const std::string& option);

// Devices from -p, else from the plan file; both given and different is an error.
int64_t resolveDevices(const PlanningArgs& args, const std::optional<PlanFile>& planFile);

// PlanOptions for the graph: devices, --mem-limit, pins from the plan file and --fix
// (--fix wins over the file for the same node).
PlanOptions planOptionsFor(const Graph& g, const PlanningArgs& args, int64_t devices,
                           const std::optional<PlanFile>& planFile);

std::optional<Machine> machineFor(const PlanningArgs& args);
Provenance provenanceFor(const LoadedGraph& loaded);

}  // namespace eindecomp::cli

namespace eindecomp::cli {

// The plan the arguments ask for: with --plan, the file's partitions (algorithm `fixed`
// when it covers every node, else the rest planned by args.algorithm with them pinned);
// otherwise args.algorithm for -p devices.
Plan planFromArgs(const Graph& g, const PlanningArgs& args);

// `plan` and `cost`: load, plan (pinning the --plan file's nodes), report, write -o and
// print the report; returns the exit status (cmd_plan.cpp).
int planAndReport(const PlanningArgs& args);

}  // namespace eindecomp::cli
