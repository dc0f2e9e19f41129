// `einplan plan GRAPH -p N`: compute a plan with an algorithm of SPEC 4, write it as a
// plan file (-o, JSON or YAML by extension) and print its cost report. Also registers
// the other planning subcommands (cost, compare, explain, dot; one file each).
#include <iostream>
#include <memory>

#include "cli/common/run_command.h"
#include "cli/einplan/cmd_plan_shared.h"
#include "cli/einplan/commands.h"
#include "planner/report/render.h"

namespace eindecomp::cli {

void addCostCommand(CLI::App& app, int& status);
void addCompareCommand(CLI::App& app, int& status);
void addExplainCommand(CLI::App& app, int& status);
void addDotCommand(CLI::App& app, int& status);

// Writes the plan file named by -o (its format from the extension) and prints the report.
static int writePlanAndReport(const Report& report, const PlanningArgs& args) {
  if (!args.output.empty()) {
    ReportFormat fileFormat = reportFormatForPath(args.output);
    if (fileFormat != ReportFormat::Json && fileFormat != ReportFormat::Yaml && args.output != "-")
      throw InputError({{args.output, 0, 0}, "-o: a plan file must end in .json, .yaml or .yml"});
    writeFileAtomically(args.output, renderReport(report, args.output == "-" ? ReportFormat::Json : fileFormat));
    if (args.output == "-") return kExitOk;
  }
  std::cout << renderReport(report, parseReportFormat(args.format));
  return kExitOk;
}

int planAndReport(const PlanningArgs& args) {
  parseReportFormat(args.format);
  LoadedGraph loaded = loadGraphForPlanning(args.graph, args.inputFormat);
  Plan plan = planFromArgs(loaded.graph, args);
  Report report = makeReport(loaded.graph, plan, provenanceFor(loaded), machineFor(args));
  return writePlanAndReport(report, args);
}

static void addPlanCommand(CLI::App& app, int& status) {
  auto args = std::make_shared<PlanningArgs>();
  CLI::App* cmd = app.add_subcommand("plan", "compute a plan, write it (-o) and print its cost report");
  addGraphArgument(cmd, *args);
  addDeviceOption(cmd, *args, false);
  cmd->add_option("--algorithm", args->algorithm, "eindecomp (default), uniform, balanced, data, brute, fixed");
  cmd->add_option("-o,--output", args->output, "plan file to write (.json or .yaml)");
  cmd->add_option("--format", args->format, "report format: table, json, yaml, markdown, csv");
  cmd->add_option("--plan", args->plan, "plan file whose partitions are pinned (nodes left out are planned)");
  addConstraintOptions(cmd, *args);
  cmd->callback([args, &status] {
    status = runCommand([&] { return planAndReport(*args); });
  });
}

void addPlanCommands(CLI::App& app, int& status) {
  addPlanCommand(app, status);
  addCostCommand(app, status);
  addCompareCommand(app, status);
  addExplainCommand(app, status);
  addDotCommand(app, status);
}

}  // namespace eindecomp::cli
