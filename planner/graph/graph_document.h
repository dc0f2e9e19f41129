// The graph file as written, before any meaning is checked: every field's text or
// number with the place it came from. read_document.cpp fills it from a YAML tree
// (JSON files are read as YAML after a strict JSON syntax check, see load.cpp) and
// checks only shapes and types of fields; build_graph.cpp turns it into a validated
// Graph. Keeping the two apart lets each error point at the exact field that caused it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "planner/graph/diagnostic.h"
#include "planner/graph/graph.h"

namespace eindecomp {

// A piece of text from the file. `loc` is where its first character is; `exact` says
// whether the text appears verbatim on that line from that column (false for text with
// escapes or folded over lines), so that a column inside the text can be computed.
struct DocText {
  std::string text;
  SourceLoc loc;
  bool exact = false;
};

struct DocInteger {
  int64_t value = 0;
  SourceLoc loc;
};

struct DocInput {
  DocText name;
  std::vector<DocInteger> shape;
  std::optional<std::vector<DocInteger>> fileShape;
  std::optional<DocText> dtype;  // an index tensor's type (i32, i64) or its own float type; absent: the graph's
  SourceLoc loc;
};

struct DocSize {
  DocText label;
  DocInteger size;
};

// A node's 'windows' and 'fill' (SPEC 8.1), apart so that a node without them costs one
// pointer (documents of 300,000 nodes are built from graphs).
// A window's tap (a convolution, SPEC 8.1): `{y: {tap: i, dilation: 2, offset: -1}}` reads
// y's dimension at y + 2*i - 1. Empty label: the entry is a plain offset.
// A window entry's mapping form (SPEC 8.1): read at step * label + dilation * tap + offset,
// or at (label + offset) / spread; `label` is the tap label (empty text: none).
struct DocAffineWindow {
  DocText label;
  DocInteger dilation{1, {}};
  DocInteger step{1, {}};
  DocInteger spread{1, {}};
};

struct DocWindows {
  bool given = false;                        // 'windows' was written
  std::vector<std::vector<DocSize>> offsets;  // per operand, label -> offset (DocSize's integer)
  std::vector<std::vector<DocAffineWindow>> taps;  // per operand, one per offsets entry
  SourceLoc loc;
  std::optional<double> fill;  // what a window reads outside its tensor (absent: 0)
  SourceLoc fillLoc;
};

struct DocNode {
  DocText name;
  DocText einsum;
  std::vector<DocText> inputs;
  SourceLoc inputsLoc;
  std::optional<DocText> join;
  std::optional<DocText> agg;
  std::vector<DocSize> sizes;  // the node's own sizes of broadcast labels
  std::optional<std::vector<DocInteger>> fileShape;
  std::shared_ptr<const DocWindows> windows;  // null: neither 'windows' nor 'fill'
  std::optional<DocText> cast;                 // a cast node's output type (SPEC 8)
  SourceLoc loc;
};

// `micro_batches: {count: 4, split: {tokens: 0}, accumulate: [grad_w, loss]}` (docs/graph-format.md).
struct DocMicroBatches {
  DocInteger count;
  std::vector<DocSize> split;  // input name -> dimension (DocSize's integer)
  std::vector<DocText> accumulate;
  SourceLoc loc;
};

struct GraphDocument {
  std::string file;
  SourceLoc loc;  // the top-level mapping
  std::optional<DocText> name;
  std::optional<DocText> dtype;
  std::vector<DocSize> sizes;
  std::vector<DocInput> inputs;
  std::vector<DocNode> nodes;
  SourceLoc nodesLoc;
  std::optional<std::vector<DocText>> outputs;
  SourceLoc outputsLoc;
  std::optional<DocMicroBatches> microBatches;
};

// A location for the character `offset` into `t`: exact when the text is verbatim in
// the file, otherwise the start of the text.
SourceLoc locInText(const DocText& t, std::size_t offset);

// Runs `parse(where)` for a parser that reports columns relative to `where`; when the
// text is not verbatim in the file its diagnostics are moved to the start of the text.
template <class Parse>
auto parseInText(const DocText& t, Parse parse) {
  if (t.exact) return parse(t.loc);
  try {
    return parse(SourceLoc{t.loc.file, t.loc.line, 0});
  } catch (const InputError& e) {
    Diagnostic d = e.diagnostic();
    d.loc = t.loc;
    throw InputError(d, e.exitCode());
  }
}

// Builds the validated Graph (build_graph.cpp); throws InputError on the first problem.
Graph buildGraph(const GraphDocument& doc);

}  // namespace eindecomp
