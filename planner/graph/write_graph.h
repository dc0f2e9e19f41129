// The graph writer: Graph -> EinGraph text (SPEC 1), YAML in the canonical list form or
// JSON, such that loading the text gives back the same graph (names, shapes, labels,
// joins, aggregations, outputs, dtype). Workload generators (`einplan gen`) and tools
// that transform graphs write through it. Einsums use one character per label when every
// label of the node is one character long, and whitespace-separated labels otherwise.
// Label sizes are written under `sizes` only for labels that no input tensor fixes
// (broadcast labels). Joins and aggregations are written only where they differ from the
// defaults (mul for two operands, the identity for one; sum). A file may start with its
// provenance: YAML as comment lines, JSON (which has no comments) as the top-level object
// "provenance", which the loader accepts and ignores (docs/graph-format.md).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "planner/graph/graph.h"
#include "planner/graph/graph_document.h"

namespace eindecomp {

// "ij,jk->ik" when every label is one character, else "s a, a h d -> s h d".
// Throws std::invalid_argument when multi-character labels cannot be written so that the
// loader reads them back (no operand and no output has two labels to show the spacing).
std::string formatEinsum(const std::vector<Labels>& operands, const Labels& output);

// The same text for reports, never throwing: where no tensor shows the spacing ("tok, tok
// -> tok", a step of a split n-ary node) it is for reading only, since the node's labels,
// not its text, are what runs.
std::string readableEinsum(const std::vector<Labels>& operands, const Labels& output);

// The node's einsum regenerated from its labels (not the text it was loaded from).
std::string formatEinsum(const Node& n);

// Who wrote a graph file: the tool, its version and the command line.
struct GraphProvenance {
  std::string tool;
  std::string version;
  std::string command;
  // Names of the source (an ONNX model) the graph had to change, source name -> graph
  // name: YAML writes them as one comment line `# names: {JSON object}`, JSON as the
  // provenance's "names" object (ASCII-escaped, so no name can end the line).
  std::vector<std::pair<std::string, std::string>> renamed{};
};

std::string writeGraphYaml(const Graph& g, const GraphProvenance* provenance = nullptr);
std::string writeGraphJson(const Graph& g, const GraphProvenance* provenance = nullptr);

// The YAML body yaml-cpp's emitter writes (writeGraphYaml writes the same text directly
// where every value is plain; tests compare the two).
std::string emittedYaml(const Graph& g);

// The document a graph file written from `g` would read back as (the same fields, every
// value located at `file`), for buildGraph to validate a graph a stage built without a
// round trip through text (einplan grad's 300,000-node results).
GraphDocument documentOf(const Graph& g, const std::string& file);
DocNode documentNodeOf(const Node& n, const SourceLoc& at);
// A split input (micro_batches) is written with its whole step's shape, as its file has it.
DocInput documentInputOf(const Graph& g, const InputTensor& t, const SourceLoc& at);

// YAML for paths ending in .yaml/.yml (and "-"), JSON for .json, in any case (.JSON);
// throws std::invalid_argument for any other extension.
std::string writeGraphForPath(const Graph& g, const std::string& path, const GraphProvenance* provenance = nullptr);

}  // namespace eindecomp
