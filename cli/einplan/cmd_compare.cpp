// `einplan compare GRAPH -p N --algorithms eindecomp,uniform,balanced,data`: the
// algorithms' reports side by side, the cheapest marked; with --baseline REPORT.json
// --tolerance T it exits 1 when the first algorithm's plan costs more than the
// baseline's total_cost * (1 + T) (for CI).
#include <iostream>
#include <memory>

#include "cli/common/run_command.h"
#include "cli/einplan/cmd_plan_shared.h"
#include "cli/einplan/commands.h"
#include "planner/report/compare.h"

namespace eindecomp::cli {

void addCompareCommand(CLI::App& app, int& status) {
  struct Options {
    PlanningArgs planning;
    std::vector<std::string> algorithms{"eindecomp", "uniform", "balanced", "data"};
    std::string baseline;
    double tolerance = 0.0;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("compare", "compare algorithms side by side");
  addGraphArgument(cmd, opts->planning);
  addDeviceOption(cmd, opts->planning, true);
  cmd->add_option("--algorithms", opts->algorithms, "comma-separated algorithms; the first is the one checked against --baseline")
      ->delimiter(',');
  cmd->add_option("--baseline", opts->baseline, "report (JSON/YAML) whose total_cost the first algorithm must not exceed");
  cmd->add_option("--tolerance", opts->tolerance, "allowed relative regression against --baseline (e.g. 0.05)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--format", opts->planning.format, "table, json, yaml, markdown, csv");
  addConstraintOptions(cmd, opts->planning);
  cmd->callback([opts, &status] {
    status = runCommand([&] {
      ReportFormat format = parseReportFormat(opts->planning.format);
      std::optional<int64_t> baseline;
      if (!opts->baseline.empty()) baseline = readBaselineTotalCost(opts->baseline);
      LoadedGraph loaded = loadGraphForPlanning(opts->planning.graph, opts->planning.inputFormat);
      const int64_t devices = parseDevices(opts->planning.devices);
      PlanOptions options = planOptionsFor(loaded.graph, opts->planning, devices, std::nullopt);
      std::optional<Machine> machine = machineFor(opts->planning);
      std::vector<ComparisonEntry> entries;
      for (const std::string& algorithm : opts->algorithms) {
        if (algorithm == "fixed") throw InputError({{}, "compare: 'fixed' needs a plan; use `einplan cost`"});
        ComparisonEntry entry{algorithm, std::nullopt, ""};
        try {
          Plan plan = planGraph(algorithm, loaded.graph, options);
          entry.report = makeReport(loaded.graph, plan, provenanceFor(loaded), machine);
        } catch (const InputError& e) {
          if (algorithm != "brute" && e.exitCode() != kExitNoPlan) throw;
          entry.error = e.diagnostic().message;
        }
        entries.push_back(std::move(entry));
      }
      Comparison comparison = makeComparison(std::move(entries));
      std::cout << renderComparison(comparison, format);
      if (baseline) {
        const ComparisonEntry& chosen = comparison.entries.front();
        if (!chosen.report) {
          std::cerr << "error: " << chosen.algorithm << " found no plan to check against the baseline\n";
          return static_cast<int>(kExitFailedCheck);
        }
        if (regresses(chosen.report->totalCost, *baseline, opts->tolerance)) {
          std::cerr << "error: " << chosen.algorithm << " total cost " << chosen.report->totalCost
                    << " is worse than the baseline " << *baseline << " by more than " << opts->tolerance << " (relative)\n";
          return static_cast<int>(kExitFailedCheck);
        }
      }
      return static_cast<int>(kExitOk);
    });
  });
}

}  // namespace eindecomp::cli
