// `einplan plan GRAPH -p N`: compute a plan with an algorithm of SPEC 4, write it as a
// plan file (-o, JSON or YAML by extension) and print its cost report; `einplan cost
// GRAPH --plan PLAN` prices a given plan the same way (nodes it leaves out are planned by
// eindecomp). Also registers the other planning subcommands (compare, explain, dot; one
// file each). Planning itself is the planning request (planner/request).
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/common/planning_options.h"
#include "cli/common/run_command.h"
#include "cli/einplan/commands.h"
#include "planner/report/render.h"

namespace eindecomp::cli {

void addCompareCommand(CLI::App& app, int& status);
void addExplainCommand(CLI::App& app, int& status);
void addDotCommand(CLI::App& app, int& status);

namespace {

struct PlanCommandArgs {
  PlanningArgs planning;
  std::string output;  // -o
  std::string format = "table";
};

// -o must not replace the graph being planned (an easy slip: `-o graph.yaml`).
void refuseOverwritingInput(const std::string& output, const std::string& graph) {
  std::error_code ec;
  if (output != "-" && graph != "-" && std::filesystem::equivalent(output, graph, ec))
    throw InputError({{output, 0, 0}, "-o would overwrite the graph file being planned; write the plan elsewhere"});
}

int planAndReport(const PlanCommandArgs& args) {
  const ReportFormat format = parseReportFormat(args.format);
  if (!args.output.empty()) {
    const ReportFormat fileFormat = reportFormatForPath(args.output);
    if (fileFormat != ReportFormat::Json && fileFormat != ReportFormat::Yaml && args.output != "-")
      throw InputError({{args.output, 0, 0}, "-o: a plan file must end in .json, .yaml or .yml"});
    refuseOverwritingInput(args.output, args.planning.graph);
    checkOutputFile(args.output, "-o");
  }
  const PlanningRequest request = toRequest(args.planning, "einplan");
  const PlannedGraph planned = planRequest(request);
  if (!args.output.empty()) {
    if (request.progress) request.progress("writing the plan file");  // seconds at p = 16,384
    writeFileAtomically(args.output,
                        renderReport(planned.report, args.output == "-" ? ReportFormat::Json : reportFormatForPath(args.output)));
    if (args.output == "-") return kExitOk;
  }
  std::cout << renderReport(planned.report, format);
  return kExitOk;
}

void addPlanningCommand(CLI::App& app, int& status, const std::string& name, const std::string& description,
                        const PlanningOptionSet& options, const std::string& examples) {
  auto args = std::make_shared<PlanCommandArgs>();
  CLI::App* cmd = app.add_subcommand(name, description);
  cmd->footer(examples);
  addPlanningOptions(cmd, args->planning, options);
  cmd->add_option("-o,--output", args->output, "plan file to write (.json, .yaml or .yml; - for stdout as JSON)");
  cmd->add_option("--format", args->format, "report format: table (default), json, yaml, markdown, csv");
  cmd->callback([args, &status] { status = runCommand([&] { return planAndReport(*args); }); });
}

}  // namespace

void addPlanCommands(CLI::App& app, int& status) {
  addPlanningCommand(app, status, "plan", "compute a plan, write it (-o) and print its cost report", {},
                     "Examples:\n"
                     "  einplan plan examples/matrix-chain.yaml -p 8\n"
                     "  einplan plan examples/matrix-chain.yaml -p 8 --objective paper -o plan.json\n"
                     "  einplan plan graph.yaml -p 16 --mem-limit 64MiB --machine machine.yaml --objective time");
  PlanningOptionSet cost;
  cost.algorithm = false;
  cost.planRequired = true;
  addPlanningCommand(app, status, "cost", "price a given plan (nodes it leaves out are planned by eindecomp)", cost,
                     "Examples:\n"
                     "  einplan cost examples/matrix-chain.yaml --plan plan.json\n"
                     "  einplan cost examples/matrix-chain.yaml --plan plan.json --machine machine.yaml --format json");
  addCompareCommand(app, status);
  addExplainCommand(app, status);
  addDotCommand(app, status);
}

}  // namespace eindecomp::cli
