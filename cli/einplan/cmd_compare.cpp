// `einplan compare GRAPH -p N --algorithms eindecomp,uniform,balanced,data`: the
// algorithms' plans side by side (traffic, paper cost, estimated time), the cheapest
// under --objective marked. With --baseline REPORT --tolerance T it is a CI gate: exit 1
// when the first algorithm's plan is worse than the baseline's by more than T (relative).
// --plans A.json,B.json adds plan files as columns. Exit 3 when nothing fits --mem-limit.
// Loading, planning and pricing go through the one planning request (compareRequest).
#include <cmath>
#include <iostream>
#include <memory>

#include "cli/common/planning_options.h"
#include "cli/common/run_command.h"
#include "cli/einplan/commands.h"
#include "planner/graph/identifiers.h"
#include "planner/graph/units.h"
#include "planner/report/compare.h"

namespace eindecomp::cli {

namespace {

struct CompareArgs {
  PlanningArgs planning;
  std::vector<std::string> algorithms = comparedAlgorithmNames();
  std::vector<std::string> plans;
  std::string baseline;
  std::string tolerance;
  std::string format = "table";
};

double parseTolerance(const std::string& text) {
  double v = 0;
  std::size_t used = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(v) || v < 0)
    throw InputError({{}, "--tolerance: " + quoted(text) + " is not a non-negative number (a relative tolerance: 0.05 is 5%)"});
  return v;
}

int compare(const CompareArgs& args) {
  const ReportFormat format = parseReportFormat(args.format);
  if (!args.tolerance.empty() && args.baseline.empty())
    throw InputError({{}, "--tolerance applies to a --baseline; give the baseline report too"});
  const double tolerance = args.tolerance.empty() ? 0.0 : parseTolerance(args.tolerance);
  std::optional<Baseline> baseline;
  if (!args.baseline.empty()) baseline = readBaseline(args.baseline);

  const PlanningRequest request = toRequest(args.planning, "einplan");
  if (!request.devices) throw InputError({{}, "-p: give the device count with -p N"});
  std::string sha256;
  std::vector<ComparisonEntry> entries = compareRequest(request, args.algorithms, args.plans, sha256);
  std::optional<double> baselineNumber;
  if (baseline) baselineNumber = baselineValue(*baseline, request.objective, sha256, *request.devices);
  bool allLackPlan = !entries.empty();
  for (const ComparisonEntry& e : entries) allLackPlan = allLackPlan && e.noPlan;
  const Comparison comparison = makeComparison(request.objective, std::move(entries));
  std::cout << renderComparison(comparison, format);
  std::cout.flush();
  if (allLackPlan) throw InputError({{}, "no algorithm or plan fits --mem-limit (each column above says why)"}, kExitNoPlan);
  if (baselineNumber) {
    const ComparisonEntry& chosen = comparison.entries.front();
    if (!chosen.report)
      throw InputError({{args.baseline, 0, 0}, chosen.algorithm + " found no plan to check against the baseline: " + chosen.error},
                       kExitFailedCheck);
    const double value = chosen.report->objectiveValue();
    if (regresses(value, *baselineNumber, tolerance))
      throw InputError({{args.baseline, 0, 0}, chosen.algorithm + " " + objectiveName(request.objective) + " " + numberText(value) +
                                                   " is worse than the baseline " + numberText(*baselineNumber) + " by more than " +
                                                   numberText(tolerance) + " (relative)"},
                       kExitFailedCheck);
  }
  return kExitOk;
}

}  // namespace

void addCompareCommand(CLI::App& app, int& status) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand("compare", "compare algorithms side by side (a CI gate with --baseline)");
  cmd->footer("Examples:\n"
              "  einplan compare examples/matrix-chain.yaml -p 8\n"
              "  einplan compare graph.yaml -p 64 --algorithms eindecomp,balanced --format markdown\n"
              "  einplan compare llama.yaml -p 8 --plans megatron.json,sequence.json --mem-limit 8GiB\n"
              "  einplan plan graph.yaml -p 8 --format json > baseline.json   # once\n"
              "  einplan compare graph.yaml -p 8 --baseline baseline.json --tolerance 0.05   # in CI: exit 1 on a regression");
  PlanningOptionSet options;
  options.devicesRequired = true;
  options.algorithm = false;
  options.plan = false;
  addPlanningOptions(cmd, args->planning, options);
  cmd->add_option("--algorithms", args->algorithms, "comma-separated algorithms; the first is the one checked against --baseline")
      ->delimiter(',');
  cmd->add_option("--plans", args->plans, "comma-separated plan files added as columns after the algorithms (named by file), "
                                         "e.g. hand strategies from `einplan gen llama --strategy`")
      ->delimiter(',')
      ->type_name("FILE,...");
  cmd->add_option("--baseline", args->baseline, "a report (einplan plan --format json) or compare's JSON to check the first algorithm against");
  cmd->add_option("--tolerance", args->tolerance, "allowed relative regression against --baseline (0.05 = 5%; default 0)");
  cmd->add_option("--format", args->format, "table (default), json, yaml, markdown, csv");
  cmd->callback([args, &status] { status = runCommand([&] { return compare(*args); }); });
}

}  // namespace eindecomp::cli
