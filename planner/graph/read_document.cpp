#include "planner/graph/read_document.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string_view>

#include "planner/graph/excerpt.h"
#include "planner/graph/identifiers.h"

namespace eindecomp {

SourceLoc locInText(const DocText& t, std::size_t offset) {
  SourceLoc loc = t.loc;
  if (t.exact && loc.col > 0) loc.col += static_cast<int>(offset);
  return loc;
}

namespace {

class DocumentReader {
 public:
  explicit DocumentReader(const Document& doc) : doc_(doc), file_(doc.file()) {
    const std::string& source = doc.text();
    std::size_t start = 0;
    for (;;) {
      std::size_t end = source.find('\n', start);
      lines_.push_back(std::string_view(source).substr(start, end == std::string::npos ? std::string::npos : end - start));
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }

  GraphDocument read(const YamlValue& root) {
    GraphDocument doc;
    doc.file = file_;
    doc.loc = {file_, 1, 1};
    if (!root.IsMap())
      throw InputError({locOf(root, doc.loc), "a graph file must be a mapping with the fields name, dtype, sizes, "
                                              "inputs, nodes, outputs; this one is " + typeName(root)});
    doc.loc = locOf(root, doc.loc);
    const DocFields fields =
        doc_.fields(root, {"name", "dtype", "sizes", "inputs", "nodes", "outputs", "micro_batches", "provenance"}, "graph");
    // Who wrote the file (einplan gen writes it in JSON, docs/graph-format.md): read by people only.
    if (const DocField* f = fields.find("provenance"); f && !f->value.IsMap())
      throw InputError({f->valueLoc, "'provenance' must be a mapping (it records who wrote the file and is not "
                                     "otherwise read), not " + typeName(f->value)});
    if (const DocField* f = fields.find("name")) doc.name = readString(*f, "the graph's 'name'");
    if (const DocField* f = fields.find("dtype")) doc.dtype = readString(*f, "'dtype'");
    if (const DocField* f = fields.find("sizes")) doc.sizes = readSizes(*f, "'sizes'");
    const DocField& inputs = fields.require("inputs", "the graph", doc.loc);
    doc.inputs = readInputs(inputs);
    const DocField& nodes = fields.require("nodes", "the graph", doc.loc);
    doc.nodesLoc = nodes.valueLoc;
    if (!nodes.value.IsSequence())
      throw InputError({nodes.valueLoc, "'nodes' must be a list of nodes, not " + typeName(nodes.value)});
    const std::vector<YamlValue> items = nodes.value.items();
    doc.nodes.reserve(items.size());
    for (const auto& n : items) doc.nodes.push_back(readNode(n, nodes.valueLoc));
    if (const DocField* f = fields.find("outputs")) {
      doc.outputsLoc = f->valueLoc;
      doc.outputs = readStringList(*f, "'outputs'");
    }
    if (const DocField* f = fields.find("micro_batches")) doc.microBatches = readMicroBatches(*f);
    return doc;
  }

 private:
  // A boolean or number as written, quoted and shortened when it is too long to show whole.
  static std::string shortScalar(const std::string& s) { return s.size() <= kMaxExcerptBytes ? s : quoted(s); }

  SourceLoc locOf(const YamlValue& n, const SourceLoc& fallback) const { return doc_.at(n, fallback); }

  DocText readString(const DocField& f, const std::string& what) const { return readString(f.value, f.valueLoc, what); }

  DocText readString(const YamlValue& n, const SourceLoc& loc, const std::string& what) const {
    if (!n.IsScalar() || kindOf(n) != ScalarKind::String)
      throw InputError({loc, what + " must be a string, not " + typeName(n)});
    return textAt(n, loc);
  }

  // The text of a scalar with its location, exact when it appears verbatim in the file.
  DocText textAt(const YamlValue& n, const SourceLoc& loc) const {
    DocText t{n.Scalar(), loc, false};
    if (loc.line < 1 || loc.col < 1 || static_cast<std::size_t>(loc.line) > lines_.size()) return t;
    const std::string_view line = lines_[static_cast<std::size_t>(loc.line - 1)];
    std::size_t col = static_cast<std::size_t>(loc.col - 1);
    if (col < line.size() && (line[col] == '"' || line[col] == '\'') && n.Tag() == "!") ++col;
    if (line.compare(col, t.text.size(), t.text) == 0) {
      t.loc.col = static_cast<int>(col) + 1;
      t.exact = true;
    }
    return t;
  }

  DocInteger readInteger(const YamlValue& n, const SourceLoc& loc, const std::string& what) const {
    if (!n.IsScalar() || kindOf(n) != ScalarKind::Integer)
      throw InputError({loc, what + " must be an integer, not " + typeName(n)});
    const std::string& s = n.Scalar();
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (errno == ERANGE)
      throw InputError({loc, what + " " + shortScalar(s) + " does not fit in a signed 64-bit integer"});
    return {static_cast<int64_t>(v), loc};
  }

  std::vector<DocText> readStringList(const DocField& f, const std::string& what) const {
    if (!f.value.IsSequence())
      throw InputError({f.valueLoc, what + " must be a list of names, not " + typeName(f.value)});
    std::vector<DocText> out;
    for (const auto& item : f.value.items()) out.push_back(readString(item, locOf(item, f.valueLoc), "an entry of " + what));
    return out;
  }

  // `micro_batches: {count: M, split: {INPUT: DIM, ...}, accumulate: [NODE, ...]}`; what the
  // names and numbers mean is checked by the graph builder.
  DocMicroBatches readMicroBatches(const DocField& f) const {
    DocMicroBatches mb;
    mb.loc = f.valueLoc;
    if (!f.value.IsMap())
      throw InputError({f.valueLoc, "'micro_batches' must be a mapping {count: M, split: {INPUT: DIMENSION}, accumulate: "
                                    "[NODE, ...]}, not " + typeName(f.value)});
    const DocFields fields = doc_.fields(f.value, {"count", "split", "accumulate"}, "micro_batches");
    const DocField& count = fields.require("count", "'micro_batches'", mb.loc);
    mb.count = readInteger(count.value, count.valueLoc, "micro_batches' 'count'");
    const DocField& split = fields.require("split", "'micro_batches'", mb.loc);
    if (!split.value.IsMap())
      throw InputError({split.valueLoc, "micro_batches' 'split' must be a mapping from input name to the dimension cut into "
                                        "micro-batches (0 for the first), such as {tokens: 0}, not " + typeName(split.value)});
    for (const auto& entry : split.value.entries()) {
      const SourceLoc keyLoc = locOf(entry.first, split.valueLoc);
      DocText input = readString(entry.first, keyLoc, "an input name in micro_batches' 'split'");
      for (const auto& s : mb.split)
        if (s.label.text == input.text)
          throw InputError({keyLoc, "input " + quoted(input.text) + " appears twice in micro_batches' 'split'"});
      DocInteger dim = readInteger(entry.second, locOf(entry.second, keyLoc), "the dimension of " + quoted(input.text));
      mb.split.push_back({std::move(input), dim});
    }
    const DocField& accumulate = fields.require("accumulate", "'micro_batches'", mb.loc);
    mb.accumulate = readStringList(accumulate, "micro_batches' 'accumulate'");
    return mb;
  }

  // `what` names the field in messages: "'sizes'" or "the 'sizes' of node 'N'".
  std::vector<DocSize> readSizes(const DocField& f, const std::string& what) const {
    if (!f.value.IsMap())
      throw InputError({f.valueLoc, what + " must be a mapping from label to size, such as {k: 16}, not " +
                                        typeName(f.value)});
    std::vector<DocSize> sizes;
    for (const auto& entry : f.value.entries()) {
      const SourceLoc keyLoc = locOf(entry.first, f.valueLoc);
      DocText label = readString(entry.first, keyLoc, "a label in " + what);
      for (const auto& s : sizes)
        if (s.label.text == label.text)
          throw InputError({keyLoc, "label " + quoted(label.text) + " appears twice in " + what + " (first at line " +
                                        std::to_string(s.label.loc.line) + ")"});
      DocInteger size = readInteger(entry.second, locOf(entry.second, keyLoc), "the size of label " + quoted(label.text));
      sizes.push_back({std::move(label), size});
    }
    return sizes;
  }

  std::vector<DocInteger> readShape(const YamlValue& n, const SourceLoc& loc, const std::string& tensor) const {
    if (!n.IsSequence())
      throw InputError({loc, "the shape of tensor " + quoted(tensor) + " must be a list of integers, not " + typeName(n)});
    std::vector<DocInteger> shape;
    for (const auto& e : n.items())
      shape.push_back(readInteger(e, locOf(e, loc), "extent " + std::to_string(shape.size() + 1) + " of tensor " + quoted(tensor)));
    return shape;
  }

  std::vector<DocInput> readInputs(const DocField& f) const {
    std::vector<DocInput> inputs;
    if (f.value.IsMap()) {  // map form: {A: [1024, 128], ...}
      for (const auto& entry : f.value.entries()) {
        DocInput in;
        in.loc = locOf(entry.first, f.valueLoc);
        in.name = readString(entry.first, in.loc, "a tensor name in 'inputs'");
        if (entry.second.IsMap())  // {ids: {shape: [8, 512], dtype: i64}}
          readInputFields(doc_.fields(entry.second, {"shape", "file_shape", "dtype"}, "tensor"), in);
        else
          in.shape = readShape(entry.second, locOf(entry.second, in.loc), in.name.text);
        inputs.push_back(std::move(in));
      }
      return inputs;
    }
    if (!f.value.IsSequence())
      throw InputError({f.valueLoc, "'inputs' must be a list of {name, shape} or a mapping from name to shape (or to "
                                    "{shape, dtype, file_shape}), not " +
                                        typeName(f.value)});
    for (const auto& item : f.value.items()) {  // list form: [{name: A, shape: [1024, 128]}, ...]
      DocInput in;
      in.loc = locOf(item, f.valueLoc);
      const std::string owner = "input " + std::to_string(inputs.size() + 1);
      if (!item.IsMap())
        throw InputError({in.loc, owner + " must be a mapping {name: ..., shape: [...]}, not " + typeName(item)});
      const DocFields fields = doc_.fields(item, {"name", "shape", "file_shape", "dtype"}, "tensor");
      in.name = readString(fields.require("name", owner, in.loc), "the 'name' of " + owner);
      readInputFields(fields, in);
      inputs.push_back(std::move(in));
    }
    return inputs;
  }

  // An input's shape, file_shape and dtype (list form, or the map form's {shape, ...}).
  void readInputFields(const DocFields& fields, DocInput& in) const {
    const DocField& shape = fields.require("shape", "input " + quoted(in.name.text), in.loc);
    in.shape = readShape(shape.value, shape.valueLoc, in.name.text);
    if (const DocField* f = fields.find("file_shape")) in.fileShape = readShape(f->value, f->valueLoc, in.name.text);
    if (const DocField* f = fields.find("dtype")) in.dtype = readString(*f, "the 'dtype' of input " + quoted(in.name.text));
  }

  DocNode readNode(const YamlValue& item, const SourceLoc& listLoc) const {
    DocNode node;
    node.loc = locOf(item, listLoc);
    if (!item.IsMap())
      throw InputError({node.loc, "a node must be a mapping with the fields name, einsum, inputs, join, agg, sizes, "
                                  "file_shape, windows, fill, cast; not " + typeName(item)});
    const DocFields fields =
        doc_.fields(item, {"name", "einsum", "inputs", "join", "agg", "sizes", "file_shape", "windows", "fill", "cast"}, "node");
    node.name = readString(fields.require("name", "this node", node.loc), "a node's 'name'");
    const std::string owner = "node " + quoted(node.name.text);
    node.einsum = readString(fields.require("einsum", owner, node.loc), "the 'einsum' of " + owner);
    const DocField& inputs = fields.require("inputs", owner, node.loc);
    node.inputsLoc = inputs.valueLoc;
    node.inputs = readStringList(inputs, "the 'inputs' of " + owner);
    if (node.inputs.empty()) throw InputError({node.inputsLoc, "the 'inputs' of " + owner + " are empty"});
    if (const DocField* f = fields.find("join")) {
      // A join is a name or an expression; a bare number such as `join: 2` is an expression too.
      const ScalarKind k = f->value.IsScalar() ? kindOf(f->value) : ScalarKind::Null;
      if (!f->value.IsScalar() || k == ScalarKind::Null || k == ScalarKind::Bool)
        throw InputError({f->valueLoc, "the 'join' of " + owner + " must be a string, not " + typeName(f->value)});
      node.join = textAt(f->value, f->valueLoc);
    }
    if (const DocField* f = fields.find("agg")) node.agg = readString(*f, "the 'agg' of " + owner);
    if (const DocField* f = fields.find("sizes")) node.sizes = readSizes(*f, "the 'sizes' of " + owner);
    if (const DocField* f = fields.find("file_shape")) node.fileShape = readShape(f->value, f->valueLoc, node.name.text);
    if (const DocField* f = fields.find("cast")) node.cast = readString(*f, "the 'cast' of " + owner);
    const DocField* windows = fields.find("windows");
    const DocField* fill = fields.find("fill");
    if (windows || fill) {
      auto w = std::make_shared<DocWindows>();
      if (windows) readWindows(*windows, owner, *w);
      if (fill) {
        w->fillLoc = fill->valueLoc;
        w->fill = readFill(fill->value, fill->valueLoc, "the 'fill' of " + owner);
      }
      node.windows = std::move(w);
    }
    return node;
  }

  // `windows: [{j: 64}, {}]`: per operand, label -> offset (SPEC 8.1).
  void readWindows(const DocField& f, const std::string& owner, DocWindows& node) const {
    const std::string what = "the 'windows' of " + owner;
    node.loc = f.valueLoc;
    node.given = true;
    if (!f.value.IsSequence())
      throw InputError({f.valueLoc, what + " must be a list with one mapping from label to offset per input (such as "
                                           "[{j: 64}, {}]), not " + typeName(f.value)});

    for (const auto& item : f.value.items()) {
      const SourceLoc loc = locOf(item, f.valueLoc);
      const std::string entry = "entry " + std::to_string(node.offsets.size() + 1) + " of " + what;
      if (!item.IsMap() && !(item.IsScalar() && kindOf(item) == ScalarKind::Null))
        throw InputError({loc, entry + " must be a mapping from label to offset, such as {j: 64}, not " + typeName(item)});
      std::vector<DocSize>& offsets = node.offsets.emplace_back();
      std::vector<DocAffineWindow>& taps = node.taps.emplace_back();
      if (!item.IsMap()) continue;
      for (const auto& e : item.entries()) {
        const SourceLoc keyLoc = locOf(e.first, loc);
        DocText label = readString(e.first, keyLoc, "a label in " + entry);
        for (const auto& o : offsets)
          if (o.label.text == label.text)
            throw InputError({keyLoc, "label " + quoted(label.text) + " appears twice in " + entry});
        const SourceLoc valueLoc = locOf(e.second, keyLoc);
        DocAffineWindow& tap = taps.emplace_back();
        tap.dilation.loc = tap.step.loc = tap.spread.loc = valueLoc;
        if (!e.second.IsMap()) {
          offsets.push_back({std::move(label), readInteger(e.second, valueLoc, "the offset of a label in " + entry)});
          continue;
        }
        // {tap: i, dilation: 2, offset: -1, step: 2}: a strided convolution's window, read at
        // 2*label + 2*i - 1; {offset: 1, spread: 2}: read at (label + 1) / 2 where that divides.
        const std::string what = "window of label " + quoted(label.text) + " in " + entry;
        const DocFields fields = doc_.fields(e.second, {"tap", "dilation", "offset", "step", "spread"}, what,
                                             "a window is {tap: LABEL, dilation: INTEGER, offset: INTEGER, step: INTEGER} "
                                             "(each but one optional) or {offset: INTEGER, spread: INTEGER}");
        if (const DocField* f = fields.find("tap")) tap.label = readString(f->value, f->valueLoc, "the 'tap' of the " + what);
        if (const DocField* f = fields.find("dilation")) tap.dilation = readInteger(f->value, f->valueLoc, "the 'dilation' of the " + what);
        if (const DocField* f = fields.find("step")) tap.step = readInteger(f->value, f->valueLoc, "the 'step' of the " + what);
        if (const DocField* f = fields.find("spread")) tap.spread = readInteger(f->value, f->valueLoc, "the 'spread' of the " + what);
        DocInteger offset{0, valueLoc};
        if (const DocField* f = fields.find("offset")) offset = readInteger(f->value, f->valueLoc, "the 'offset' of the " + what);
        offsets.push_back({std::move(label), offset});
      }
    }
  }

  double readFill(const YamlValue& n, const SourceLoc& loc, const std::string& what) const {
    const ScalarKind k = n.IsScalar() ? kindOf(n) : ScalarKind::Null;
    if ((k == ScalarKind::String || k == ScalarKind::Float) && (n.Scalar() == "-inf" || n.Scalar() == "inf"))
      return n.Scalar() == "inf" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
    if (k != ScalarKind::Integer && k != ScalarKind::Float)
      throw InputError({loc, what + " must be a number, -inf or inf, not " + typeName(n)});
    const std::string text = n.Scalar();  // Scalar() may return a temporary: strtod's end points into it
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (!std::isfinite(v) || *end != '\0') throw InputError({loc, what + " " + shortScalar(n.Scalar()) + " is not a finite number"});
    return v;
  }

  const Document& doc_;
  std::string file_;
  std::vector<std::string_view> lines_;  // into the document's text
};

}  // namespace

GraphDocument readGraphDocument(const Document& doc) { return DocumentReader(doc).read(doc.root()); }

}  // namespace eindecomp
