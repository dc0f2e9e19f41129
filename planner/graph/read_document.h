// Reading a parsed graph document (document.h: the one route of every file the tools read) into a
// GraphDocument: it checks that the top level and every tensor and node are mappings
// with only known fields, that required fields are there, and that each value has the
// right type (strings, integers, lists), recording where every value came from.
// Meaning (names, labels, sizes, references) is checked later by buildGraph.
#pragma once

#include <string>

#include "planner/graph/graph_document.h"
#include "planner/graph/document.h"

namespace eindecomp {

// The document's text tells whether a scalar appears verbatim (for exact columns inside
// einsums and expressions).
GraphDocument readGraphDocument(const Document& doc);

}  // namespace eindecomp
