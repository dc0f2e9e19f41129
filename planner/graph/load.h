// Loading EinGraph files (SPEC 1) from YAML or JSON, with complete validation. Every
// problem is thrown as an InputError whose Diagnostic names the file, line and column
// (where the parser knows them) and the offending field. A graph returned from here is
// well-formed (see graph.h) with its nodes in topological order.
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

#include "planner/graph/graph.h"

namespace eindecomp {

enum class GraphFormat { Auto, Yaml, Json };

// Parses "auto" | "yaml" | "json"; throws InputError otherwise.
GraphFormat parseGraphFormat(const std::string& s);

// Reads and validates a graph file; `path` "-" reads standard input. With Auto the
// format follows the extension (.json -> JSON, .yaml/.yml -> YAML; stdin: JSON when the
// first non-blank character is '{', YAML otherwise).
Graph loadGraphFile(const std::string& path, GraphFormat format = GraphFormat::Auto);

// The same from text already in memory; `displayName` is used in diagnostics.
Graph loadGraphText(const std::string& text, const std::string& displayName, GraphFormat format);

// The one reader of structured text (graph, plan, machine and baseline files): JSON is
// checked strictly first (exact line and column of syntax errors), then the text is read
// as exactly one YAML document (several documents, or none, are errors naming `what`),
// keeping every node's position. Auto: JSON when `displayName` ends in .json (any case)
// or the text starts with '{'.
YAML::Node loadStructuredText(const std::string& text, const std::string& displayName, GraphFormat format,
                              const std::string& what);

// True when a mapping lists some key twice (yaml-cpp keeps both); the second key is
// returned through `duplicate`.
bool hasDuplicateKey(const YAML::Node& map, YAML::Node* duplicate);

}  // namespace eindecomp
