// eincodegen: write a standalone MPI program for an EinGraph and a plan (SPEC 5, 7).
//   eincodegen GRAPH (--plan PLAN | -p N [--algorithm A]) -o DIR [--backend cpu|cuda|both]
// Wiring only: load -> validate names -> split n-ary nodes -> plan -> lower -> render ->
// write. Everything is rendered in memory before the first file is written.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>

#include "cli/common/run_command.h"
#include "planner/paths/internal_layouts.h"
#include "codegen/lower/identifiers.h"
#include "codegen/lower/lower.h"
#include "codegen/lower/plan_source.h"
#include "codegen/render/locations.h"
#include "codegen/render/render.h"
#include "planner/algorithms/pins.h"
#include "planner/algorithms/planning.h"
#include "planner/graph/load.h"
#include "planner/paths/split_nary.h"
#include "planner/report/plan_file.h"
#include "planner/report/sha256.h"
#include "planner/version.h"

namespace {

using namespace eindecomp;

struct Options {
  std::string graph, plan, output, algorithm = "eindecomp", backend = "cpu", inputFormat = "auto";
  int64_t devices = 0;
  int64_t memLimit = 0;
  std::vector<std::string> fixes;
};

std::string readGraphText(const std::string& path) {
  std::ostringstream text;
  if (path == "-") {
    text << std::cin.rdbuf();
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError({{path, 0, 0}, "cannot read the graph file"});
    text << in.rdbuf();
  }
  return text.str();
}

std::optional<std::string> readIfExists(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

int generate(const Options& o) {
  const std::string text = readGraphText(o.graph);
  const Graph loaded = loadGraphText(text, o.graph, parseGraphFormat(o.inputFormat));
  codegen::validateGraphForCodegen(loaded);
  // Split n-ary contractions, then choose the layouts of the intermediates they create.
  const Graph g = chooseInternalLayouts(splitNaryNodes(loaded));
  const codegen::Backend backend = codegen::parseBackend(o.backend);

  PlanOptions planOptions;
  std::string algorithm = o.algorithm;
  if (!o.plan.empty()) {
    // The planner's plan-file reader (the one `einplan cost --plan` uses, and fuzzed).
    const PlanFile file = readPlanFile(o.plan);
    planOptions.devices = planFileDevices(file, o.devices > 0 ? std::optional<int64_t>(o.devices) : std::nullopt);
    planOptions.pinned = resolvePlanFile(g, file, planOptions.devices);
    algorithm = "eindecomp";  // plans the nodes the file leaves out
  } else {
    if (o.devices < 1) throw InputError({{"-p", 0, 0}, "give the device count with -p N, or a plan with --plan FILE"});
    planOptions.devices = o.devices;
  }
  if (o.memLimit > 0) planOptions.memLimitBytes = o.memLimit;
  for (const auto& fix : o.fixes) {
    PartitionRequest request = parseFixOption(fix, {"--fix", 0, 0});
    planOptions.pinned[request.node] = resolvePartitionRequest(g, request, planOptions.devices);
  }
  Plan plan = planGraph(algorithm, g, planOptions);
  if (!o.plan.empty()) plan.algorithm = "fixed";

  const codegen::RankProgram program = codegen::lowerPlan(g, codegen::partitionsFromPlan(g, plan));
  const codegen::Provenance provenance{EINDECOMP_VERSION_STRING, codegen::commentSafe(cli::commandLine()),
                                       sha256Hex(text)};
  const codegen::ToolLocations locations = codegen::locateToolFiles();
  codegen::RenderOptions render;
  render.backend = backend;
  render.templateDir = locations.templateDir;
  render.einrtDir = locations.einrtDir;
  render.planJson = codegen::planJson(g, plan, program, provenance.toolVersion, provenance.graphSha256, provenance.commandLine);
  const codegen::ProjectFiles files = codegen::renderProject(program, provenance, render);

  std::error_code ec;
  std::filesystem::create_directories(o.output, ec);
  if (ec) throw InputError({{o.output, 0, 0}, "cannot create the output folder: " + ec.message()});
  for (const auto& [name, contents] : files) {
    const std::string path = (std::filesystem::path(o.output) / name).string();
    // A file that already holds exactly this text keeps its timestamp, so regenerating a
    // project (another plan for the same graph) rebuilds only what changed.
    if (readIfExists(path) != contents) cli::writeFileAtomically(path, contents);
  }
  std::cerr << "eincodegen: wrote " << files.size() << " files to " << o.output << " (" << program.nodes.size() << " nodes, "
            << program.devices << " ranks, " << program.bytesPredicted << " bytes predicted per iteration";
  if (program.modelCostElements)
    std::cerr << "; cost model worst case " << *program.modelCostElements * static_cast<int64_t>(dtypeSize(g.dtype)) << " bytes";
  std::cerr << ")\n";
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace eindecomp;
  cli::setCommandLine(argc, argv);
  CLI::App app{"eincodegen: write a standalone MPI(+CUDA) program for an EinGraph and its plan"};
  app.set_version_flag("--version", std::string("eincodegen ") + EINDECOMP_VERSION_STRING);
  Options o;
  app.add_option("GRAPH", o.graph, "graph file (.yaml, .yml, .json; - reads stdin)")->required();
  app.add_option("--plan", o.plan, "plan file (JSON or YAML, SPEC 6)");
  app.add_option("-p,--devices", o.devices, "number of ranks")->check(CLI::PositiveNumber);
  app.add_option("--algorithm", o.algorithm, "planning algorithm when no --plan is given")
      ->check(CLI::IsMember(algorithmNames()));
  app.add_option("-o,--output", o.output, "folder to write the project into")->required();
  app.add_option("--backend", o.backend, "cpu, cuda or both")->check(CLI::IsMember({"cpu", "cuda", "both"}));
  app.add_option("--input-format", o.inputFormat, "format of GRAPH")->check(CLI::IsMember({"auto", "yaml", "json"}));
  app.add_option("--mem-limit", o.memLimit, "per-device peak bytes a partition may need")->check(CLI::PositiveNumber);
  app.add_option("--fix", o.fixes, "pin a node's partition: NODE=i:4,j:2 (repeatable)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitBadInput;
  }
  return cli::runCommand([&] { return generate(o); });
}
