// The planning options of SPEC 5, declared and parsed by one piece of code for every
// command that plans: einplan plan, cost, compare, explain, dot and eincodegen. GRAPH,
// --input-format, -p/--devices, --algorithm, --objective, --mem-limit, --fix, --machine,
// --plan and the --path-* options. CLI11 only collects the text as typed; toRequest converts it (64-bit counts,
// unit suffixes), so every bad value is an InputError with exit 2 and a message that
// names the option — never CLI11's range text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "planner/request/planning_request.h"

namespace eindecomp::cli {

// --path-budget, --path-objective, --path-seed as typed (the contraction-path search of
// n-ary nodes, planner/paths/path_options.h), on every command that splits n-ary nodes:
// check, gen --split and the planning commands.
struct PathArgs {
  std::string budget, objective, seed;
};

// Declares the three options; returns them (gen makes them need --split).
std::vector<CLI::Option*> addPathOptions(CLI::App* cmd, PathArgs& args);

// InputError naming the option for a bad value.
PathOptions toPathOptions(const PathArgs& args);

struct PlanningArgs {
  std::string graph;
  std::string inputFormat = "auto";
  std::string devices;    // -p, as typed
  std::string algorithm;  // empty: not given
  std::string objective = "traffic";
  std::optional<std::string> timeMargin;  // --time-margin, as typed
  std::optional<std::string> memLimit;  // given, even empty (an error), or not
  bool noRecompute = false;             // --no-recompute
  bool noShard = false;                 // --no-shard
  bool noGradientFusion = false;        // --no-gradient-fusion
  std::vector<std::string> fixes;
  std::string machine;
  std::string plan;
  PathArgs paths;
};

// Which options a command takes, beyond GRAPH, --input-format, --objective, --mem-limit,
// --fix and --machine, which every planning command takes.
struct PlanningOptionSet {
  bool devices = true;
  bool devicesRequired = false;
  bool algorithm = true;
  bool plan = true;
  bool planRequired = false;
};

void addPlanningOptions(CLI::App* cmd, PlanningArgs& args, const PlanningOptionSet& which = {});

// "8" -> 8 (any positive 64-bit integer); InputError naming `option` otherwise.
int64_t parseCount(const std::string& text, const std::string& option);

// The request for `toolName` ("einplan", "eincodegen"), with provenance.
PlanningRequest toRequest(const PlanningArgs& args, const std::string& toolName);

}  // namespace eindecomp::cli
