// `einplan cost GRAPH --plan PLAN`: cost a given plan (a report written by `plan -o`, or
// a minimal hand-written plan; nodes it leaves out are planned by eindecomp).
#include <iostream>
#include <memory>

#include "cli/common/run_command.h"
#include "cli/einplan/cmd_plan_shared.h"
#include "cli/einplan/commands.h"
#include "planner/report/render.h"

namespace eindecomp::cli {

int writePlanAndReport(const Report& report, const PlanningArgs& args);

void addCostCommand(CLI::App& app, int& status) {
  auto args = std::make_shared<PlanningArgs>();
  CLI::App* cmd = app.add_subcommand("cost", "cost a given plan");
  addGraphArgument(cmd, *args);
  cmd->add_option("--plan", args->plan, "plan file (JSON or YAML)")->required();
  addDeviceOption(cmd, *args, false);
  cmd->add_option("-o,--output", args->output, "write the completed plan (.json or .yaml)");
  cmd->add_option("--format", args->format, "report format: table, json, yaml, markdown, csv");
  addConstraintOptions(cmd, *args);
  cmd->callback([args, &status] {
    status = runCommand([&] {
      parseReportFormat(args->format);
      LoadedGraph loaded = loadGraphForPlanning(args->graph, args->inputFormat);
      Plan plan = planFromArgs(loaded.graph, *args);
      Report report = makeReport(loaded.graph, plan, provenanceFor(loaded), machineFor(*args));
      return writePlanAndReport(report, *args);
    });
  });
}

}  // namespace eindecomp::cli
