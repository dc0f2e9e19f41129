// What `einplan gen` writes: the generated graph as the text for its output path (YAML,
// or JSON by the extension in any case; "-" is YAML), starting with its provenance, and
// checked by loading that text back through the graph loader `einplan check` uses — so
// gen never writes a graph that check refuses. A graph that does not load is one whose
// parameters make a tensor or a FLOP count overflow 63 bits: the error names the
// family's size options (exit 2).
#pragma once

#include <string>

#include "planner/graph/graph.h"
#include "planner/graph/write_graph.h"
#include "planner/paths/path_options.h"

namespace eindecomp::gen {

struct GeneratedFile {
  std::string path;               // where it goes: its extension picks the format
  GraphProvenance provenance;
  std::string sizeOptions;        // named when the graph does not load, e.g. "--scale"
  bool split = false;             // n-ary contractions written as binary steps (NODE__1, ...)
  PathOptions paths;              // the contraction-path search for `split`
};

// The text to write; throws InputError (exit 2) for an unknown extension or a graph the
// loader refuses.
std::string generatedGraphText(const Graph& g, const GeneratedFile& file);

}  // namespace eindecomp::gen
