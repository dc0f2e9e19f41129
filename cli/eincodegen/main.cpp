// eincodegen: write a standalone MPI program for an EinGraph and a plan (SPEC 5, 7).
//   eincodegen GRAPH (--plan PLAN | -p N [--algorithm A]) -o DIR [--backend cpu|cuda|both]
// Wiring only: the planning request (the same one `einplan plan` makes, with the same
// options) -> lower -> render -> write. Everything is rendered in memory, then the project
// is written whole or not at all (project_folder.h).
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli/common/command_line.h"
#include "cli/common/planning_options.h"
#include "cli/common/run_command.h"
#include "cli/eincodegen/project_folder.h"
#include "codegen/lower/identifiers.h"
#include "codegen/lower/lower.h"
#include "codegen/render/locations.h"
#include "codegen/render/render.h"
#include "planner/graph/units.h"
#include "planner/report/render.h"
#include "planner/version.h"

namespace {

using namespace eindecomp;

struct Options {
  cli::PlanningArgs planning;
  std::string output;
  std::string backend = "cpu";
  bool force = false;
};

int generate(const Options& o) {
  const codegen::Backend backend = codegen::parseBackend(o.backend);
  PlanningRequest request = cli::toRequest(o.planning, "eincodegen");
  request.checkLoaded = codegen::validateGraphForCodegen;
  // The device backend runs no widening contraction (docs/graph-format.md "Mixed
  // precision"): the planner does not fuse gradient casts for it on its own.
  if (backend != codegen::Backend::Cpu) request.fuseGradients = false;
  const PlannedGraph planned = planRequest(request);
  const Graph& g = planned.loaded.graph;
  const codegen::RankProgram program = codegen::lowerPlan(g, planned.plan, planned.cost);
  const codegen::Provenance provenance{EINDECOMP_VERSION_STRING, codegen::commentSafe(cli::commandLine()),
                                       planned.loaded.sha256};
  const codegen::ToolLocations locations = codegen::locateToolFiles();
  codegen::RenderOptions render;
  render.backend = backend;
  render.templateDir = locations.templateDir;
  render.einrtDir = locations.einrtDir;
  // The project's plan.json leaves out the search time, so the same graph and options
  // give the same bytes (and plan hash): regenerating a project rebuilds nothing.
  Report reproducible = planned.report;
  reproducible.searchSeconds.reset();
  render.planJson = renderReport(reproducible, ReportFormat::Json);
  const codegen::ProjectFiles files = codegen::renderProject(program, provenance, render);

  cli::writeProject(o.output, files, "eincodegen " + std::string(EINDECOMP_VERSION_STRING) + ": " + provenance.commandLine, o.force);
  std::cerr << "eincodegen: wrote " << files.size() << " files to " << o.output << " (" << program.nodes.size() << " nodes, "
            << program.devices << " ranks, " << formatBytes(program.bytesPredicted) << " of traffic per iteration)\n";
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace eindecomp;
  cli::setCommandLine(argc, argv);
  cli::tuneAllocatorForLargeGraphs();
  CLI::App app{"eincodegen: write a standalone MPI(+CUDA) program for an EinGraph and its plan", "eincodegen"};
  app.set_version_flag("--version", std::string("eincodegen ") + EINDECOMP_VERSION_STRING);
  app.footer("Examples:\n"
             "  eincodegen examples/matrix-chain.yaml -p 4 -o prog && make -C prog && mpirun -np 4 prog/matrix_chain --check\n"
             "  einplan plan graph.yaml -p 8 -o plan.json && eincodegen graph.yaml --plan plan.json -o prog\n"
             "  eincodegen graph.yaml -p 2 --backend both -o prog");
  Options o;
  cli::addPlanningOptions(&app, o.planning);
  app.add_option("-o,--output", o.output, "folder to write the project into")->required();
  app.add_option("--backend", o.backend, "cpu (default), cuda or both");
  app.add_flag("--force", o.force, "write into a non-empty folder that holds no project eincodegen wrote");
  if (const std::optional<int> ended = cli::parseCommandLine(app, std::vector<std::string>(argv + 1, argv + argc)))
    return *ended;
  return cli::runCommand([&] { return generate(o); });
}
