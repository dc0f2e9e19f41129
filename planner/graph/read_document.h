// Reading a parsed YAML tree (yaml_tree.h: the form every graph file takes inside the loader) into a
// GraphDocument: it checks that the top level and every tensor and node are mappings
// with only known fields, that required fields are there, and that each value has the
// right type (strings, integers, lists), recording where every value came from.
// Meaning (names, labels, sizes, references) is checked later by buildGraph.
#pragma once

#include <string>

#include "planner/graph/graph_document.h"
#include "planner/graph/yaml_tree.h"

namespace eindecomp {

// `source` is the file's text, used to tell whether a scalar appears verbatim (for
// exact columns inside einsums and expressions).
GraphDocument readGraphDocument(const YamlValue& root, const std::string& file, const std::string& source);

}  // namespace eindecomp
