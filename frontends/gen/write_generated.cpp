#include "frontends/gen/write_generated.h"

#include <stdexcept>

#include "frontends/gen/gen_options.h"
#include "planner/graph/load.h"
#include "planner/paths/split_nary.h"

namespace eindecomp::gen {

std::string generatedGraphText(const Graph& generated, const GeneratedFile& file) {
  const Graph g = file.split ? withSanitizedNames(splitNaryNodes(generated, file.paths)) : generated;
  std::string text;
  try {
    text = writeGraphForPath(g, file.path, &file.provenance);
  } catch (const std::invalid_argument& e) {
    throw InputError({{file.path, 0, 0}, e.what()});
  }
  try {
    loadGraphText(text, file.path, file.path == "-" ? GraphFormat::Yaml : GraphFormat::Auto);
  } catch (const InputError& e) {
    badOption(file.sizeOptions, "too large: the graph would be refused by the loader (" + e.diagnostic().message + ")");
  }
  return text;
}

}  // namespace eindecomp::gen
