#include "cli/common/planning_options.h"

#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdio>

#include "cli/common/run_command.h"
#include "planner/graph/identifiers.h"
#include "planner/graph/units.h"
#include "planner/version.h"

namespace eindecomp::cli {

std::vector<CLI::Option*> addPathOptions(CLI::App* cmd, PathArgs& args) {
  return {cmd->add_option("--path-budget", args.budget,
                          "contraction-path search for nodes of more than 12 operands: trials (default 1024, the same "
                          "path on every machine) or a time such as 500ms or 5s")
              ->type_name("BUDGET"),
          cmd->add_option("--path-objective", args.objective,
                          "contraction paths minimize flops (default) or memory (the largest intermediate first, then FLOPs)")
              ->type_name("OBJECTIVE"),
          cmd->add_option("--path-seed", args.seed, "seed of the contraction-path search (default 0)")->type_name("SEED")};
}

PathOptions toPathOptions(const PathArgs& args) { return parsePathOptions(args.budget, args.objective, args.seed); }

void addPlanningOptions(CLI::App* cmd, PlanningArgs& args, const PlanningOptionSet& which) {
  cmd->add_option("GRAPH", args.graph, "graph file (.yaml, .yml, .json; - reads stdin)")->required();
  cmd->add_option("--input-format", args.inputFormat, "format of GRAPH: auto (default: by extension or content), yaml, json");
  if (which.devices) {
    auto* p = cmd->add_option("-p,--devices", args.devices, "number of devices = kernel calls per node (any positive integer)");
    if (which.devicesRequired) p->required();
  }
  if (which.algorithm)
    cmd->add_option("--algorithm", args.algorithm, algorithmList());
  if (which.plan) {
    auto* plan = cmd->add_option("--plan", args.plan, "plan file (JSON or YAML; - reads stdin): its partitions and placements are kept");
    if (which.planRequired) plan->required();
  }
  cmd->add_option("--objective", args.objective, "what to minimize: traffic (default; bytes between ranks), paper (SPEC 3), time (needs --machine)");
  cmd->add_option("--time-margin", args.timeMargin,
                  "with --objective time: keep the traffic objective's plan unless a plan is estimated faster by more "
                  "than this fraction (default 0.05, the kernel model's resolution; 0: the least estimated time)")
      ->type_name("FRACTION");
  cmd->add_option("--mem-limit", args.memLimit, "every rank's whole-program peak, in bytes (suffixes B, K, M, G, T, P and KiB, MiB, GiB, TiB, PiB); exit 3 when no plan fits");
  cmd->add_flag("--no-recompute", args.noRecompute,
                "with --mem-limit: never compute a node again for its later uses (by default, when no plan of the graph "
                "as written fits, some are, and the plan lists them under 'recompute')");
  cmd->add_flag("--no-shard", args.noShard,
                "with --mem-limit: never shard a graph input at rest (by default, when no plan of the graph as written "
                "fits, the large inputs that readers hold whole are, and the plan lists them under 'shard_at_rest')");
  cmd->add_flag("--no-gradient-fusion", args.noGradientFusion,
                "with --objective time on a step of micro-batches: plan the graph's gradient casts as written (by default "
                "the data and megatron plans with each bf16 weight gradient accumulated in f32, as Megatron-LM runs, are "
                "candidates too, and a plan returned with them lists them under 'fused_gradient_casts')");
  cmd->add_option("--fix", args.fixes, "pin a node's partition: NODE=i:4,j:2 (repeatable, once per node)");
  cmd->add_option("--machine", args.machine, "machine file (einrt-calibrate writes one): estimated times");
  addPathOptions(cmd, args.paths);
}

int64_t parseCount(const std::string& text, const std::string& option) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || v <= 0)
    throw InputError({{}, option + ": " + quoted(text) + " is not a positive integer" +
                              (ec == std::errc::result_out_of_range ? " that fits 63 bits" : "")});
  return v;
}

PlanningRequest toRequest(const PlanningArgs& args, const std::string& toolName) {
  PlanningRequest r;
  r.graphPath = args.graph;
  r.inputFormat = parseGraphFormat(args.inputFormat);
  if (!args.devices.empty()) r.devices = parseCount(args.devices, "-p/--devices");
  if (!args.algorithm.empty()) r.algorithm = args.algorithm;
  r.objective = parseObjective(args.objective);
  if (args.timeMargin) {
    const std::optional<double> v = parseNumber(*args.timeMargin);
    if (!v || !(*v >= 0 && *v < 1))
      throw InputError({{}, "--time-margin: " + quoted(*args.timeMargin) + " is not a fraction from 0 to below 1 (e.g. 0.05)"});
    r.timeMargin = *v;
  }
  if (args.memLimit) {
    r.memLimitBytes = parseByteCount(*args.memLimit);
    if (!r.memLimitBytes)
      throw InputError({{}, "--mem-limit: " + quoted(*args.memLimit) +
                                " is not a positive byte count (e.g. 1048576, 64MiB, 1.5GiB, 2G; suffixes B, K, M, G, T, P, KiB, MiB, GiB, TiB, PiB, any case)"});
  }
  r.recompute = !args.noRecompute;
  r.shard = !args.noShard;
  r.fuseGradients = !args.noGradientFusion;
  for (const std::string& fix : args.fixes) r.fixes.push_back(parseFixOption(fix, {"--fix", 0, 0}));
  if (!args.machine.empty()) r.machinePath = args.machine;
  if (!args.plan.empty()) r.planPath = args.plan;
  if (args.graph == "-" && (args.plan == "-" || args.machine == "-"))
    throw InputError({{}, std::string(args.plan == "-" ? "--plan" : "--machine") +
                              ": '-' and GRAPH '-' would both read standard input; give one of them as a file"});
  r.paths = toPathOptions(args.paths);
  r.provenance.toolName = toolName;
  r.provenance.toolVersion = EINDECOMP_VERSION_STRING;
  r.provenance.commandLine = commandLine();
  // A search that takes a while says what it is doing, where someone watches stderr.
  if (isatty(STDERR_FILENO)) {
    const auto start = std::chrono::steady_clock::now();
    r.progress = [toolName, start](const std::string& phase) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::fprintf(stderr, "%s: [%.1f s] %s\n", toolName.c_str(), s, phase.c_str());
    };
  }
  return r;
}

}  // namespace eindecomp::cli
