// Loading EinGraph files (SPEC 1) from YAML or JSON, with complete validation. Every
// problem is thrown as an InputError whose Diagnostic names the file, line and column
// (where the parser knows them) and the offending field. A graph returned from here is
// well-formed (see graph.h) with its nodes in topological order.
#pragma once

#include <string>

#include "planner/graph/document.h"
#include "planner/graph/graph.h"

namespace eindecomp {


// Reads and validates a graph file; `path` "-" reads standard input. With Auto the
// format follows the extension (.json -> JSON, .yaml/.yml -> YAML; stdin: JSON when the
// first non-blank character is '{', YAML otherwise).
Graph loadGraphFile(const std::string& path, GraphFormat format = GraphFormat::Auto);

// The same from text already in memory; `displayName` is used in diagnostics.
Graph loadGraphText(const std::string& text, const std::string& displayName, GraphFormat format);

}  // namespace eindecomp
