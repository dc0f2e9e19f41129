// Reading graph files through the one document route (document.h), then building and
// validating the graph (build_graph.h).
#include "planner/graph/load.h"

#include "planner/graph/input_file.h"
#include "planner/graph/read_document.h"

namespace eindecomp {

Graph loadGraphText(const std::string& text, const std::string& displayName, GraphFormat format) {
  // The tree goes before the graph is built: a large file's two forms are never held at once.
  const GraphDocument document = [&] {
    const Document doc(text, displayName, format, "graph file");
    return readGraphDocument(doc);
  }();
  return buildGraph(document);
}

Graph loadGraphFile(const std::string& path, GraphFormat format) {
  return whileDoing("loading the graph", path, [&] { return loadGraphText(readInputFile(path, "graph file"), path, format); });
}

}  // namespace eindecomp
