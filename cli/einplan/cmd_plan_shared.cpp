#include "cli/einplan/cmd_plan_shared.h"

#include <cctype>
#include <charconv>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "cli/common/run_command.h"
#include "planner/algorithms/pins.h"
#include "planner/graph/load.h"
#include "planner/paths/split_nary.h"
#include "planner/report/sha256.h"
#include "planner/version.h"

namespace eindecomp::cli {

LoadedGraph loadGraphForPlanning(const std::string& path, const std::string& inputFormat) {
  GraphFormat format = parseGraphFormat(inputFormat);
  std::string bytes;
  LoadedGraph loaded;
  if (path == "-") {
    bytes.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    loaded.graph = loadGraphText(bytes, "-", format);
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError({{path, 0, 0}, "cannot read graph file"});
    std::ostringstream text;
    text << in.rdbuf();
    bytes = text.str();
    loaded.graph = loadGraphFile(path, format);
  }
  loaded.sha256 = sha256Hex(bytes);
  loaded.graph = splitNaryNodes(loaded.graph);
  return loaded;
}

void addGraphArgument(CLI::App* cmd, PlanningArgs& args) {
  cmd->add_option("GRAPH", args.graph, "graph file (.yaml, .yml, .json; - reads stdin)")->required();
  cmd->add_option("--input-format", args.inputFormat, "format of GRAPH (auto, yaml, json)")
      ->check(CLI::IsMember({"auto", "yaml", "json"}));
}

void addDeviceOption(CLI::App* cmd, PlanningArgs& args, bool required) {
  auto* opt = cmd->add_option("-p,--devices", args.devices, "number of devices = kernel calls per node (any positive integer)");
  if (required) opt->required();
}

void addConstraintOptions(CLI::App* cmd, PlanningArgs& args) {
  cmd->add_option("--mem-limit", args.memLimit, "per-device peak in bytes (suffixes K, M, G, KiB, MiB, GiB); partitions above it are not considered");
  cmd->add_option("--fix", args.fixes, "pin a node's partition: NODE=i:4,j:2 (repeatable)");
  cmd->add_option("--machine", args.machine, "machine file (bandwidth, latency, flops) for estimated times");
}

int64_t parseDevices(const std::string& text) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || v <= 0)
    throw InputError({{}, "-p/--devices: '" + text + "' is not a positive integer"});
  return v;
}

int64_t parseByteCount(const std::string& text, const std::string& option) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  std::string suffix = text.substr(digits);
  int64_t unit = 0;
  if (suffix.empty() || suffix == "B") unit = 1;
  else if (suffix == "K" || suffix == "KB") unit = 1000;
  else if (suffix == "M" || suffix == "MB") unit = 1000 * 1000;
  else if (suffix == "G" || suffix == "GB") unit = 1000LL * 1000 * 1000;
  else if (suffix == "KiB") unit = 1024;
  else if (suffix == "MiB") unit = 1024 * 1024;
  else if (suffix == "GiB") unit = 1024LL * 1024 * 1024;
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + digits, value);
  int64_t bytes = 0;
  if (digits == 0 || unit == 0 || ec != std::errc() || ptr != text.data() + digits || __builtin_mul_overflow(value, unit, &bytes) ||
      bytes <= 0)
    throw InputError({{}, option + ": '" + text + "' is not a positive byte count (e.g. 1048576, 64MiB, 2G)"});
  return bytes;
}

int64_t resolveDevices(const PlanningArgs& args, const std::optional<PlanFile>& planFile) {
  std::optional<int64_t> fromArgs;
  if (!args.devices.empty()) fromArgs = parseDevices(args.devices);
  if (planFile) return planFileDevices(*planFile, fromArgs);
  if (!fromArgs) throw InputError({{}, "-p/--devices is required"});
  return *fromArgs;
}

PlanOptions planOptionsFor(const Graph& g, const PlanningArgs& args, int64_t devices, const std::optional<PlanFile>& planFile) {
  PlanOptions options;
  options.devices = devices;
  if (!args.memLimit.empty()) options.memLimitBytes = parseByteCount(args.memLimit, "--mem-limit");
  if (planFile) options.pinned = resolvePlanFile(g, *planFile, devices);
  for (const std::string& fix : args.fixes) {
    PartitionRequest request = parseFixOption(fix, {"--fix", 0, 0});
    options.pinned[request.node] = resolvePartitionRequest(g, request, devices);
  }
  return options;
}

std::optional<Machine> machineFor(const PlanningArgs& args) {
  if (args.machine.empty()) return std::nullopt;
  return loadMachineFile(args.machine);
}

Provenance provenanceFor(const LoadedGraph& loaded) {
  Provenance p;
  p.toolVersion = EINDECOMP_VERSION_STRING;
  p.commandLine = commandLine();
  p.graphSha256 = loaded.sha256;
  return p;
}

}  // namespace eindecomp::cli

namespace eindecomp::cli {

Plan planFromArgs(const Graph& g, const PlanningArgs& args) {
  std::optional<PlanFile> planFile;
  if (!args.plan.empty()) planFile = readPlanFile(args.plan);
  const int64_t devices = resolveDevices(args, planFile);
  PlanOptions options = planOptionsFor(g, args, devices, planFile);
  std::string algorithm = args.algorithm;
  if (planFile && options.pinned.size() == g.nodes.size()) algorithm = "fixed";
  return planGraph(algorithm, g, options);
}

}  // namespace eindecomp::cli
