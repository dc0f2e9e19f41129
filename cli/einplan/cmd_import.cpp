// `einplan import MODEL.onnx -o GRAPH.yaml [--weights DIR] [--dim NAME=SIZE ...]`: the
// EinGraph of an ONNX model (frontends/import) and its initializers as DIR/NAME.npy. The
// graph is written through the graph writer and loaded back by the one graph loader
// before anything is written (an import the loader would refuse is a bug, reported as
// such); the weights are written all or nothing into a folder import owns
// (cli/common/owned_folder.h: a user's non-empty folder is refused without --force, an
// earlier import's weights are replaced and its stale ones removed), then the graph, so a
// graph file never names weights that are not there.
#include <charconv>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/common/owned_folder.h"
#include "cli/common/run_command.h"
#include "cli/einplan/commands.h"
#include "einrt/npy.h"
#include "planner/graph/identifiers.h"
#include "planner/graph/diagnostic.h"
#include "planner/graph/excerpt.h"
#include "planner/graph/load.h"
#include "planner/graph/write_graph.h"
#include "frontends/import/onnx_import.h"
#include "planner/version.h"

namespace eindecomp::cli {

namespace {

std::map<std::string, int64_t> parseDims(const std::vector<std::string>& items) {
  std::map<std::string, int64_t> dims;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    int64_t size = 0;
    const char* first = item.data() + (eq == std::string::npos ? 0 : eq + 1);
    const char* last = item.data() + item.size();
    const auto [stop, ec] = std::from_chars(first, last, size);
    if (eq == std::string::npos || eq == 0 || ec != std::errc() || stop != last || size <= 0 ||
        size > onnx_import::kMaxDimension)
      throw InputError({{}, "--dim " + quoted(item) + ": expected NAME=SIZE with SIZE from 1 to 2^31 - 1"});
    if (!dims.emplace(item.substr(0, eq), size).second)
      throw InputError({{}, "--dim " + quoted(item.substr(0, eq)) + " is given twice"});
  }
  return dims;
}

// A weight's .npy in the graph's type (ids as int64): f16 as NumPy's <f2; bf16, which NumPy lacks, as f32
// (exactly representable; read back rounded, SPEC 8).
std::string npyOf(const onnx_import::HostTensor& t, DType dtype, bool ids) {
  int64_t elements = 1;
  for (const int64_t d : t.shape) elements *= d;
  if (elements != t.elements())  // the encoders read shape-many values
    throw std::logic_error("einplan import: a weight holds " + std::to_string(t.elements()) + " values for a shape of " +
                           std::to_string(elements));
  if (ids) {  // an i64 input (a gather's constant ids)
    const std::vector<int64_t> ids(t.values.begin(), t.values.end());
    return einrt::encodeNpy<int64_t>(t.shape, ids.data());
  }
  if (dtype == DType::F64) return einrt::encodeNpy<double>(t.shape, t.values.data());
  if (dtype == DType::F16) {
    std::vector<einrt::f16> h;
    for (const double v : t.values) h.emplace_back(v);
    return einrt::encodeNpy<einrt::f16>(t.shape, h.data());
  }
  std::vector<float> f(t.values.begin(), t.values.end());
  return einrt::encodeNpy<float>(t.shape, f.data());
}

}  // namespace

void addImportCommand(CLI::App& app, int& status) {
  struct Options {
    std::string model;
    std::string output;
    std::string weights;
    std::vector<std::string> dims;
    bool force = false;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("import", "write the EinGraph of an ONNX model and its weights as NAME.npy");
  cmd->footer(
      "Opsets 13 to 17. Initializers become graph inputs written to --weights DIR (default: GRAPH's name with .weights "
      "beside it); put the model's own inputs there as NAME.npy and `einplan eval GRAPH --inputs DIR` or `mpirun ... "
      "./prog --inputs DIR` runs the model. An operator the graph cannot express exactly is exit 2 naming the ONNX "
      "node (docs/import.md).\n\n"
      "Examples:\n"
      "  einplan import gpt2_block.onnx -o gpt2.yaml\n"
      "  einplan import model.onnx -o model.yaml --weights w/ --dim batch=8 --dim seq=512");
  cmd->add_option("MODEL", opts->model, "the .onnx file")->required();
  cmd->add_option("-o,--output", opts->output, "the graph file to write (.yaml, .yml, .json)")->required()->type_name("GRAPH");
  cmd->add_option("--weights", opts->weights, "folder for the weights (NAME.npy)")->type_name("DIR");
  cmd->add_flag("--force", opts->force,
                "write the weights into a non-empty folder that holds no earlier import's weights, or over files of "
                "the user's in it");
  cmd->add_option("--dim", opts->dims, "size of a symbolic dimension of the model's inputs")->type_name("NAME=SIZE");
  cmd->callback([opts, &status] {
    status = runCommand([&] {
      onnx_import::ImportOptions options;
      options.model = opts->model;
      options.dims = parseDims(opts->dims);
      if (opts->output == "-" && opts->weights.empty())
        throw InputError({{}, "-o -: the graph goes to standard output, so give the weights' folder with --weights DIR"});
      std::string weightsDir = opts->weights;
      if (weightsDir.empty()) {
        std::filesystem::path p(opts->output);
        weightsDir = (p.parent_path() / (p.stem().string() + ".weights")).string();
      }
      checkOutputFile(opts->output, "-o");
      const auto result = whileDoing("importing the model", opts->model, [&] { return onnx_import::importOnnx(options); });

      GraphProvenance provenance{"einplan", EINDECOMP_VERSION_STRING, commandLine(), result.renamed};
      std::string text;
      try {
        text = writeGraphForPath(result.graph, opts->output, &provenance);
      } catch (const std::invalid_argument& e) {
        throw InputError({{opts->output, 0, 0}, e.what()});
      }
      try {
        (void)loadGraphText(text, opts->output, GraphFormat::Auto);
      } catch (const InputError& e) {
        throw InputError({{opts->model, 0, 0}, "einplan import made a graph its own loader refuses (a bug; please report "
                                               "it with the model): " + e.diagnostic().message});
      }
      std::map<std::string, std::string> files;
      int64_t bytes = 0;
      for (const auto& [name, value] : result.weights) {
        const InputTensor* in = findInput(result.graph, name);
        const std::string& npy = files[name + ".npy"] = npyOf(value, result.graph.dtype, in && in->indexType);
        bytes += static_cast<int64_t>(npy.size());
      }
      // Made even when the model has no weights: the model's inputs go there.
      writeOwnedFolder(weightsDir, files, "einplan " + std::string(EINDECOMP_VERSION_STRING) + ": " + commandLine(),
                       {"--weights", "the weights", "einplan import", ".einplan-import", false}, opts->force);
      writeFileAtomically(opts->output, text);
      std::cerr << "imported " << opts->model << " (opset " << result.opset << "): " << result.graph.nodes.size()
                << " nodes, " << result.graph.inputs.size() - result.weights.size() << " model inputs, "
                << result.weights.size() << " weights (" << bytes << " bytes in " << weightsDir << "), "
                << result.renamed.size() << " names changed";
      for (const auto& [copy, twin] : result.tied) std::cerr << "; " << quoted(copy) << " read as " << quoted(twin) << " transposed (one weight)";
      std::cerr << "\n";
      return kExitOk;
    });
  });
}

}  // namespace eindecomp::cli
