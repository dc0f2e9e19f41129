#include "frontends/eval/input_files.h"

#include <filesystem>
#include <system_error>

#include "einrt/npy.h"
#include "frontends/eval/tensor_npy.h"
#include "planner/graph/diagnostic.h"
#include "planner/graph/micro_batches.h"
#include "planner/graph/tensor_types.h"

namespace eindecomp {

std::map<std::string, Tensor> readInputFiles(const Graph& graph, const std::string& directory) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(directory, ec)) throw InputError({{directory, 0, 0}, "the --inputs directory does not exist"});
  if (!fs::is_directory(directory, ec))
    throw InputError({{directory, 0, 0}, "--inputs must be a directory holding NAME.npy for every graph input"});
  std::map<std::string, Tensor> inputs;
  for (const auto& in : graph.inputs) {
    const std::string path = (fs::path(directory) / (in.name + ".npy")).string();
    if (!fs::exists(fs::symlink_status(path, ec)))
      throw InputError({{path, 0, 0}, "missing: graph input '" + in.name + "' is read from this file"});
    try {
      // The file may hold the tensor in its file shape (a reshape: the same elements in C order).
      inputs[in.name] = readTensorNpy(path, inputType(graph, in), in.fileShape.empty() ? stepShape(graph, in) : in.fileShape);
      inputs[in.name].shape = stepShape(graph, in);
    } catch (const einrt::NpyError& e) {
      throw InputError({{path, 0, 0}, "graph input '" + in.name + "': " + e.problem()});
    }
  }
  return inputs;
}

}  // namespace eindecomp
