// GraphDocument -> Graph: every check of SPEC 1 that concerns meaning rather than the
// shape of the file. The checks run in a fixed order (names, references, operators,
// order of evaluation, label sizes, overflow, outputs) so that each graph has one
// well-defined first error, reported at the field that causes it.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "planner/graph/einsum_lowering.h"
#include "planner/graph/einsum_parser.h"
#include "planner/graph/expr_parser.h"
#include "planner/graph/graph_document.h"
#include "planner/graph/graph_index.h"
#include "planner/graph/graph_order.h"
#include "planner/graph/identifiers.h"
#include "planner/graph/index_nodes.h"
#include "planner/graph/micro_batches.h"
#include "planner/graph/tensor_types.h"
#include "planner/graph/window_checks.h"

namespace eindecomp {

namespace {

std::string atLine(const SourceLoc& loc) { return loc.line > 0 ? " at line " + std::to_string(loc.line) : ""; }

// Where a label got its size first within a node, for the message when another place
// disagrees: dimension `dimension` of operand `operand` (tensor `tensor`), or the node's
// or graph's 'sizes' (tensor null). The text is made only for a message (every node of a
// 300,000-node graph has its labels' origins).
struct LabelOrigin {
  int64_t size;
  const std::string* tensor = nullptr;
  std::size_t operand = 0, dimension = 0;
  SourceLoc loc;

  std::string place() const {
    if (!tensor) return "'sizes'";
    return "dimension " + std::to_string(dimension + 1) + " of " + quoted(*tensor) + " (operand " +
           std::to_string(operand + 1) + ")";
  }
};

class GraphBuilder {
 public:
  explicit GraphBuilder(const GraphDocument& doc) : doc_(doc) {}

  Graph build() {
    graph_.sourceFile = doc_.file;
    readHeader();
    if (doc_.nodes.empty()) throw InputError({doc_.nodesLoc, "empty graph: 'nodes' lists no node"});
    checkNames();
    for (const auto& in : doc_.inputs) {
      graph_.inputs.push_back({in.name.text, shapeOf(in), in.loc, {}, indexTypeOf(in), floatTypeOf(in)});
      if (in.fileShape) graph_.inputs.back().fileShape = fileShapeOf(*in.fileShape, in.name.text, graph_.inputs.back().shape);
    }
    readMicroBatches();
    std::vector<Node> nodes;
    std::vector<EinsumSpec> einsums;
    nodes.reserve(doc_.nodes.size());
    einsums.reserve(doc_.nodes.size());
    for (const auto& dn : doc_.nodes) {
      einsums.push_back(parseInText(dn.einsum, [&](const SourceLoc& w) { return parseEinsum(dn.einsum.text, w); }));
      nodes.push_back(readNode(dn, einsums.back()));
    }
    order_ = topologicalOrder(nodes);
    graph_.nodes.reserve(nodes.size());
    for (int i : order_) graph_.nodes.push_back(std::move(nodes[static_cast<std::size_t>(i)]));
    std::vector<Node>().swap(nodes);
    resolveLabelSizes(einsums);
    const IndexNodeLocations where = indexNodeLocations();
    resolveIndexNodes(graph_, where);
    checkTensorTypes(graph_, castLocations(), where);
    checkCounts();
    readOutputs();
    readFileShapes();
    orderByStepPhase(graph_);
    return std::move(graph_);
  }

 private:
  // micro_batches (micro_batches.h): the split inputs' shapes become one micro-batch's; the
  // accumulated nodes and the phase rules are checked once the nodes are read.
  void readMicroBatches() {
    if (!doc_.microBatches) return;
    const DocMicroBatches& dm = *doc_.microBatches;
    MicroBatches mb;
    mb.loc = dm.loc;
    mb.count = dm.count.value;
    if (mb.count < 1)
      throw InputError({dm.count.loc, "micro_batches' count must be at least 1, got " + std::to_string(mb.count)});
    if (dm.split.empty())
      throw InputError({dm.loc, "micro_batches' 'split' names no input: name the inputs whose dimension is cut into "
                                "micro-batches (the batch), such as {tokens: 0}"});
    if (dm.accumulate.empty())
      throw InputError({dm.loc, "micro_batches' 'accumulate' names no node: name the nodes summed over the micro-batches "
                                "(the gradients, the loss)"});
    for (const DocSize& s : dm.split) {
      InputTensor* in = nullptr;
      for (InputTensor& t : graph_.inputs)
        if (t.name == s.label.text) in = &t;
      if (!in) {
        std::vector<std::string> names;
        for (const InputTensor& t : graph_.inputs) names.push_back(t.name);
        throw InputError({s.label.loc, "micro_batches' 'split' names " + quoted(s.label.text) + ", which is not a graph input" +
                                           didYouMean(s.label.text, names)});
      }
      const int64_t d = s.size.value;
      if (d < 0 || d >= static_cast<int64_t>(in->shape.size()))
        throw InputError({s.size.loc, "micro_batches: input " + quoted(in->name) + " has " + std::to_string(in->shape.size()) +
                                          " dimension(s); dimension " + std::to_string(d) + " is not one of them (0 is the first)"});
      if (!in->fileShape.empty())
        throw InputError({s.label.loc, "micro_batches: input " + quoted(in->name) + " has a file_shape; a split input's file is "
                                           "its shape, the whole step's"});
      const int64_t extent = in->shape[static_cast<std::size_t>(d)];
      if (extent % mb.count != 0)
        throw InputError({s.size.loc, "micro_batches: dimension " + std::to_string(d) + " of input " + quoted(in->name) + " is " +
                                          std::to_string(extent) + ", which " + std::to_string(mb.count) +
                                          " micro-batches do not divide"});
      in->shape[static_cast<std::size_t>(d)] = extent / mb.count;
      mb.split.push_back({in->name, static_cast<int>(d), s.label.loc});
    }
    for (const DocText& a : dm.accumulate) mb.accumulate.push_back({a.text, a.loc});
    graph_.microBatches = std::move(mb);
  }

  void readHeader() {
    if (doc_.name) {
      requireIdentifier(doc_.name->text, "graph name", doc_.name->loc);
      graph_.name = doc_.name->text;
    }
    if (doc_.dtype) {
      if (const auto t = einrt::dtypeFromName(doc_.dtype->text)) graph_.dtype = *t;
      else
        throw InputError({doc_.dtype->loc, "unknown dtype " + quoted(doc_.dtype->text) +
                                               didYouMean(doc_.dtype->text, {"f32", "f64", "bf16", "f16"}) +
                                               "; use f32, f64, bf16 or f16"});
    }
    for (const auto& s : doc_.sizes) {
      checkSizeEntry(s, "'sizes'");
      graphSizes_.emplace(s.label.text, &s);
    }
  }

  // An input's own `dtype`: i32 or i64 makes it an index tensor; a float type other than
  // the graph's makes it a tensor of that type (a mixed-precision graph, SPEC 8, whose
  // nodes convert between types only through cast nodes: tensor_types.h).
  std::optional<DType> indexTypeOf(const DocInput& in) const {
    if (!in.dtype) return std::nullopt;
    const std::string& t = in.dtype->text;
    if (const auto index = einrt::indexDTypeFromName(t)) return index;
    if (einrt::dtypeFromName(t)) return std::nullopt;
    throw InputError({in.dtype->loc, "input " + quoted(in.name.text) + ": unknown dtype " + quoted(t) +
                                         didYouMean(t, {"i32", "i64", "f32", "f64", "bf16", "f16"}) +
                                         "; use i32 or i64 for ids, or f32, f64, bf16 or f16"});
  }
  std::optional<DType> floatTypeOf(const DocInput& in) const {
    const auto t = in.dtype ? einrt::dtypeFromName(in.dtype->text) : std::nullopt;
    if (!t || *t == graph_.dtype) return std::nullopt;
    return t;
  }

  std::vector<SourceLoc> castLocations() const {
    std::vector<SourceLoc> at;
    for (int i : order_) {
      const DocNode& dn = doc_.nodes[static_cast<std::size_t>(i)];
      at.push_back(dn.cast ? dn.cast->loc : dn.loc);
    }
    return at;
  }

  IndexNodeLocations indexNodeLocations() const {
    IndexNodeLocations where;
    for (int i : order_) {
      const DocNode& dn = doc_.nodes[static_cast<std::size_t>(i)];
      where.join.push_back(dn.join ? dn.join->loc : dn.loc);
      where.operands.emplace_back();
      for (const auto& in : dn.inputs) where.operands.back().push_back(in.loc);
    }
    return where;
  }

  static void checkSizeEntry(const DocSize& s, const std::string& where) {
    requireIdentifier(s.label.text, "label", s.label.loc);
    if (s.size.value <= 0)
      throw InputError({s.size.loc, "label " + quoted(s.label.text) + " in " + where + " has size " +
                                        std::to_string(s.size.value) + "; sizes must be positive"});
  }

  // A file shape holds the tensor's elements in another shape: positive extents, the same count.
  static std::vector<int64_t> fileShapeOf(const std::vector<DocInteger>& extents, const std::string& tensor,
                                          const std::vector<int64_t>& shape) {
    std::vector<int64_t> out;
    int64_t count = 1, expected = 1;
    for (const DocInteger& e : extents) {
      if (e.value <= 0)
        throw InputError({e.loc, "the file_shape of " + quoted(tensor) + " has extent " + std::to_string(e.value) +
                                     "; extents must be positive"});
      if (__builtin_mul_overflow(count, e.value, &count))
        throw InputError({e.loc, "the file_shape of " + quoted(tensor) + ": its element count overflows 64 bits"});
      out.push_back(e.value);
    }
    for (const int64_t s : shape) expected *= s;  // checked by checkCounts
    if (count != expected)
      throw InputError({extents.empty() ? SourceLoc{} : extents[0].loc,
                        "the file_shape of " + quoted(tensor) + " holds " + std::to_string(count) + " elements and the " +
                            "tensor " + std::to_string(expected) + "; a file shape is a reshape of the same elements"});
    return out;
  }

  // Nodes' file shapes, which only graph outputs may have (they name the output's .npy).
  void readFileShapes() {
    for (const auto& dn : doc_.nodes) {
      if (!dn.fileShape) continue;
      Node& n = graph_.nodes[static_cast<std::size_t>(nodeIndex(graph_, dn.name.text))];
      if (std::find(graph_.outputs.begin(), graph_.outputs.end(), n.name) == graph_.outputs.end())
        throw InputError({n.loc, "node " + quoted(n.name) + " has a file_shape but is not a graph output; file shapes "
                                 "name the shape of an output's .npy file"});
      n.fileShape = fileShapeOf(*dn.fileShape, n.name, outputShape(n));
    }
  }

  std::vector<int64_t> shapeOf(const DocInput& in) const {
    std::vector<int64_t> shape;
    for (std::size_t k = 0; k < in.shape.size(); ++k) {
      const DocInteger& e = in.shape[k];
      if (e.value <= 0)
        throw InputError({e.loc, "tensor " + quoted(in.name.text) + " has extent " + std::to_string(e.value) +
                                     " in dimension " + std::to_string(k + 1) + "; extents must be positive"});
      shape.push_back(e.value);
    }
    return shape;
  }

  // Names are identifiers and unique over inputs and nodes.
  void checkNames() {
    auto define = [&](const DocText& name, const std::string& kind) {
      requireIdentifier(name.text, kind + " name", name.loc);
      auto [it, added] = definitions_.emplace(name.text, std::make_pair(kind, name.loc));
      if (!added)
        throw InputError({name.loc, "duplicate name " + quoted(name.text) + ": already defined as " +
                                        (it->second.first == "input" ? "an input" : "a node") +
                                        atLine(it->second.second)});
      allNames_.push_back(name.text);
    };
    for (const auto& in : doc_.inputs) define(in.name, "input");
    for (const auto& n : doc_.nodes) define(n.name, "node");
  }

  Node readNode(const DocNode& dn, const EinsumSpec& spec) {
    const std::string owner = "node " + quoted(dn.name.text);
    Node node;
    node.name = dn.name.text;
    node.loc = dn.loc;
    node.einsum = dn.einsum.text;
    node.operandLabels = spec.operands;
    node.outputLabels = spec.output;
    if (spec.operands.size() != dn.inputs.size())
      throw InputError({dn.inputsLoc, owner + ": its einsum " + quoted(dn.einsum.text) + " has " +
                                          std::to_string(spec.operands.size()) + " operand" +
                                          (spec.operands.size() == 1 ? "" : "s") + " but 'inputs' lists " +
                                          std::to_string(dn.inputs.size()) + " tensor" +
                                          (dn.inputs.size() == 1 ? "" : "s")});
    for (const auto& in : dn.inputs) {
      if (in.text == dn.name.text)
        throw InputError({in.loc, owner + " uses its own output " + quoted(in.text) + " as an input"});
      if (!definitions_.count(in.text))
        throw InputError({in.loc, owner + ": unknown tensor " + quoted(in.text) +
                                      " (neither a graph input nor a node)" + didYouMean(in.text, allNames_)});
      node.inputs.push_back(in.text);
    }
    readJoin(dn, node);
    readAgg(dn, node);
    if (dn.cast) {
      node.castTo = einrt::dtypeFromName(dn.cast->text);
      if (!node.castTo)
        throw InputError({dn.cast->loc, owner + ": cast to unknown type " + quoted(dn.cast->text) +
                                            didYouMean(dn.cast->text, {"f32", "f64", "bf16", "f16"}) + "; use f32, f64, bf16 or f16"});
    }
    if (node.inputs.size() >= 3 && !isContraction(node))
      throw InputError({dn.join ? dn.join->loc : (dn.agg ? dn.agg->loc : dn.loc),
                        owner + " has " + std::to_string(node.inputs.size()) +
                            " inputs, so it must be a pure contraction (join mul, agg sum); it has join " +
                            quoted(node.joinName) + " and agg " + quoted(reduceName(node.agg)) +
                            ". Write it as a chain of nodes with at most two inputs each"});
    return node;
  }

  void readJoin(const DocNode& dn, Node& node) {
    const std::string owner = "node " + quoted(dn.name.text);
    const bool unary = node.inputs.size() == 1;
    if (!dn.join) {
      node.joinName = unary ? "x" : "mul";
      node.join = unary ? Expr::x() : *namedJoin("mul");
      return;
    }
    const DocText& text = *dn.join;
    node.joinName = text.text;
    if (isIndexJoinName(text.text)) {  // the ids select y's rows (index_nodes.h)
      node.join = Expr::y();
      return;
    }
    if (auto named = namedJoin(text.text)) {
      if (unary)
        throw InputError({text.loc, owner + " has one input, but join " + quoted(text.text) +
                                        " combines two operands; write a unary expression over x instead"});
      node.join = *named;
      return;
    }
    const bool bareWord = isIdentifier(text.text) && !isExpressionWord(text.text);
    if (bareWord) {
      std::string names;
      for (const auto& n : namedJoinNames()) names += (names.empty() ? "" : " ") + n;
      throw InputError({text.loc, owner + ": unknown join " + quoted(text.text) +
                                      didYouMean(text.text, namedJoinNames()) + "; use one of " + names +
                                      " or an expression over x and y"});
    }
    node.join = parseInText(text, [&](const SourceLoc& w) { return parseExpr(text.text, w); });
    if (unary && usesY(node.join)) {
      const std::size_t at = firstY(text.text);
      throw InputError({locInText(text, at), owner + " has one input, so its join may use only x, but " +
                                                  quoted(text.text) + " uses y"});
    }
  }

  // Offset of the first standalone `y` in an expression's text (0 when not found).
  static std::size_t firstY(const std::string& s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
      const bool before = i > 0 && (std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_');
      const bool after = i + 1 < s.size() && (std::isalnum(static_cast<unsigned char>(s[i + 1])) || s[i + 1] == '_');
      if (s[i] == 'y' && !before && !after) return i;
    }
    return 0;
  }

  void readAgg(const DocNode& dn, Node& node) {
    if (!dn.agg) return;
    static const std::vector<std::string> aggs = {"sum", "max", "min", "prod"};
    const std::string& a = dn.agg->text;
    if (a == "sum") node.agg = Reduce::Sum;
    else if (a == "max") node.agg = Reduce::Max;
    else if (a == "min") node.agg = Reduce::Min;
    else if (a == "prod") node.agg = Reduce::Prod;
    else
      throw InputError({dn.agg->loc, "node " + quoted(dn.name.text) + ": unknown agg " + quoted(a) +
                                         didYouMean(a, aggs) + "; use sum, max, min or prod"});
  }

  std::vector<int> topologicalOrder(const std::vector<Node>& nodes) const {
    std::map<std::string, int> index;
    for (std::size_t i = 0; i < nodes.size(); ++i) index[nodes[i].name] = static_cast<int>(i);
    std::vector<std::vector<int>> deps(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i)
      for (const auto& in : nodes[i].inputs)
        if (auto it = index.find(in); it != index.end()) deps[i].push_back(it->second);
    NodeOrder order = stableTopologicalOrder(deps);
    if (!order.cycle.empty()) {
      std::string path;
      for (int i : order.cycle) path += nodes[static_cast<std::size_t>(i)].name + " -> ";
      path += nodes[static_cast<std::size_t>(order.cycle.front())].name;
      throw InputError({nodes[static_cast<std::size_t>(order.cycle.front())].loc,
                        "the nodes form a cycle: " + path + " (each feeds the next)"});
    }
    return order.order;
  }

  // Binds every label of every node to one size. Labels are local to their node (as in
  // NumPy): a label takes its size from the node's operand tensors, and must have the same
  // size everywhere it appears within the node; a broadcast label (in the output only)
  // takes it from the node's own 'sizes', else from the graph's.
  void resolveLabelSizes(const std::vector<EinsumSpec>& einsums) {
    // Tensors by name, indexed once: the free tensorShape() searches the lists, which
    // made this loop quadratic (minutes for a 100,000-node chain). Shapes of node outputs
    // are read from nodes resolved earlier (topological order).
    const GraphIndex index(graph_);
    for (std::size_t pos = 0; pos < order_.size(); ++pos) {
      const std::size_t docIndex = static_cast<std::size_t>(order_[pos]);
      const DocNode& dn = doc_.nodes[docIndex];
      const std::string owner = "node " + quoted(dn.name.text);
      // NumPy's ellipsis and size-1 broadcasting become plain labels now that the operand
      // shapes are known (einsum_lowering.h); the node keeps the lowered labels.
      EinsumSpec spec = einsums[docIndex];
      std::vector<std::vector<int64_t>> shapes;
      for (std::size_t k = 0; k < spec.operands.size(); ++k) shapes.push_back(index.tensorShape(dn.inputs[k].text));
      lowerEinsum(spec, shapes, dn.einsum, owner);
      graph_.nodes[pos].operandLabels = spec.operands;
      graph_.nodes[pos].outputLabels = spec.output;
      std::vector<std::map<Label, const DocAffineWindow*>> taps;
      const std::vector<std::map<Label, int64_t>> windows = readNodeWindows(dn, spec, owner, taps);
      std::set<Label> windowedOnly;  // labels met only in windowed dimensions so far
      std::map<Label, LabelOrigin> origins;
      for (std::size_t k = 0; k < spec.operands.size(); ++k) {
        const std::string& tensor = dn.inputs[k].text;
        const std::vector<int64_t>& shape = shapes[k];
        const Labels& labels = spec.operands[k];
        if (labels.size() != shape.size())
          throw InputError({dn.inputs[k].loc, owner + ": operand " + std::to_string(k + 1) + " has " +
                                                  std::to_string(labels.size()) + " label" +
                                                  (labels.size() == 1 ? "" : "s") + " in the einsum but tensor " +
                                                  quoted(tensor) + " has rank " + std::to_string(shape.size()) +
                                                  multiCharacterLabelNote(spec)});
        for (std::size_t d = 0; d < labels.size(); ++d) {
          if (!windows.empty() && windows[k].count(labels[d])) {  // its extent is the tensor's, not the label's
            if (!origins.count(labels[d])) windowedOnly.insert(labels[d]);
            continue;
          }
          windowedOnly.erase(labels[d]);
          const LabelOrigin here{shape[d], &tensor, k, d, locInText(dn.einsum, spec.operandOffsets[k][d])};
          auto [it, added] = origins.emplace(labels[d], here);
          if (!added && it->second.size != shape[d])
            throw InputError({here.loc, owner + ": label " + quoted(labels[d]) + " has size " + std::to_string(shape[d]) +
                                            " in " + here.place() + " but size " + std::to_string(it->second.size) + " in " +
                                            it->second.place() + "; within one node a label has one size everywhere it appears"});
        }
      }
      std::map<Label, const DocSize*> nodeSizes;
      for (const auto& s : dn.sizes) {
        checkSizeEntry(s, "the 'sizes' of " + owner);
        const bool inOutput = std::find(spec.output.begin(), spec.output.end(), s.label.text) != spec.output.end();
        auto known = origins.find(s.label.text);
        if (known == origins.end() && !inOutput && !windowedOnly.count(s.label.text))
          throw InputError({s.label.loc, owner + ": 'sizes' gives label " + quoted(s.label.text) +
                                             ", which its einsum " + quoted(dn.einsum.text) + " does not use"});
        if (known != origins.end() && known->second.size != s.size.value)
          throw InputError({s.size.loc, owner + ": 'sizes' gives label " + quoted(s.label.text) + " size " +
                                            std::to_string(s.size.value) + " but it has size " +
                                            std::to_string(known->second.size) + " in " + known->second.place()});
        nodeSizes.emplace(s.label.text, &s);
      }
      for (std::size_t d = 0; d < spec.output.size(); ++d) {
        const Label& l = spec.output[d];
        if (origins.count(l) || windowedOnly.count(l)) continue;
        const DocSize* given = nullptr;
        if (auto it = nodeSizes.find(l); it != nodeSizes.end()) given = it->second;
        else if (auto g = graphSizes_.find(l); g != graphSizes_.end()) given = g->second;
        if (!given)
          throw InputError({locInText(dn.einsum, spec.outputOffsets[d]),
                            owner + ": output label " + quoted(l) +
                                " is in no operand, so it is a broadcast and needs its size in the node's 'sizes' "
                                "or the graph's (for example sizes: {" + l + ": 16})" + multiCharacterLabelNote(spec)});
        origins.emplace(l, LabelOrigin{given->size.value, nullptr, 0, 0, given->size.loc});
      }
      for (const Label& l : windowedOnly) {
        auto given = nodeSizes.find(l);
        if (given == nodeSizes.end())
          throw InputError({dn.windows->loc, owner + ": label " + quoted(l) + " is read only through windows, so its size "
                                           "(the window's extent) must be in the node's 'sizes' (for example sizes: {" + l + ": 16})"});
        origins.emplace(l, LabelOrigin{given->second->size.value, nullptr, 0, 0, given->second->size.loc});
      }
      Node& node = graph_.nodes[pos];
      for (const auto& l : iterationLabels(node)) node.labelSizes[l] = origins.at(l).size;
      if (!windows.empty()) {
        NodeWindows w;
        w.offsets.assign(spec.operands.size(), {});
        w.bounds.assign(spec.operands.size(), {});
        for (std::size_t k = 0; k < spec.operands.size(); ++k) {
          if (windows[k].empty()) continue;
          w.bounds[k] = shapes[k];
          for (const Label& l : spec.operands[k]) {
            auto it = windows[k].find(l);
            w.offsets[k].push_back(it == windows[k].end() ? 0 : it->second);
          }
        }
        w.fill = dn.windows->fill.value_or(0.0);
        addWindowMoves(node, spec, taps, owner, w);
        node.windows = std::make_shared<const NodeWindows>(std::move(w));
      }
    }
  }

  // Element counts, bytes and FLOPs must fit in 63 bits: later stages multiply them freely.
  void checkCounts() {
    int64_t totalBytes = 0;
    auto checkTensor = [&](const std::string& name, const std::vector<int64_t>& shape, const SourceLoc& loc,
                           int64_t elementBytes) {
      int64_t count = 1, bytes = 0;
      for (int64_t e : shape)
        if (__builtin_mul_overflow(count, e, &count))
          throw InputError({loc, "tensor " + quoted(name) + ": its element count overflows 64 bits"});
      if (__builtin_mul_overflow(count, elementBytes, &bytes))
        throw InputError({loc, "tensor " + quoted(name) + ": its size in bytes overflows 64 bits"});
      if (__builtin_add_overflow(totalBytes, bytes, &totalBytes))
        throw InputError({loc, "tensor " + quoted(name) + ": the graph's total size in bytes overflows 64 bits here"});
    };
    for (const auto& in : graph_.inputs) checkTensor(in.name, in.shape, in.loc, static_cast<int64_t>(dtypeSize(inputType(graph_, in))));
    int64_t totalFlops = 0;
    const std::vector<DType> types = nodeOutputTypes(graph_);
    for (std::size_t i = 0; i < graph_.nodes.size(); ++i) {
      const Node& n = graph_.nodes[i];
      const int64_t elementBytes = static_cast<int64_t>(dtypeSize(types[i]));
      checkTensor(n.name, outputShape(n), n.loc, elementBytes);
      // A tapped or strided operand's whole window (one call over the node: each dimension
      // step * (its label's size - 1) + 1 and the halo) is a buffer of its own.
      for (std::size_t k = 0; n.windows && k < n.operandLabels.size(); ++k) {
        const bool tapped = hasTaps(n) && !n.windows->taps[k].empty();
        const bool stepped = n.windows->stepped(k);
        if (!tapped && !stepped) continue;
        std::vector<int64_t> span;
        for (std::size_t d = 0; d < n.operandLabels[k].size(); ++d) {
          int64_t e = n.labelSizes.at(n.operandLabels[k][d]), halo = 0;
          const int64_t step = n.windows->stepOf(k, d);
          const Label tap = tapped ? n.windows->taps[k][d] : Label{};
          const int64_t dilation = tap.empty() ? 0 : n.windows->dilations[k][d];
          if (__builtin_mul_overflow(step, e - 1, &e) || __builtin_add_overflow(e, 1, &e) ||
              (!tap.empty() && __builtin_mul_overflow(dilation < 0 ? -dilation : dilation, n.labelSizes.at(tap) - 1, &halo)) ||
              __builtin_add_overflow(e, halo, &e))
            throw InputError({n.loc, "node " + quoted(n.name) + ": the window of operand " + std::to_string(k + 1) +
                                         " spans more than 2^63 rows"});
          span.push_back(e);
        }
        checkTensor("the window of operand " + std::to_string(k + 1) + " of " + n.name, span, n.loc, elementBytes);
      }
      // A node with three or more operands never runs as one loop nest: the contraction-path
      // optimizer (planner/paths) splits it into binary steps and counts their FLOPs in 128
      // bits, so its naive count (which may exceed 64 bits, e.g. the TRN network) is not checked.
      if (n.inputs.size() >= 3) continue;
      if (__builtin_add_overflow(totalFlops, nodeFlops(n), &totalFlops))
        throw InputError({n.loc, "node " + quoted(n.name) + ": the graph's total FLOP count overflows 64 bits here"});
    }
  }

  void readOutputs() {
    if (!doc_.outputs) {
      // One pass over every node's inputs, not consumers() per node: that was quadratic
      // and took minutes on a 100,000-node chain.
      std::set<std::string> consumed;
      for (const auto& n : graph_.nodes) consumed.insert(n.inputs.begin(), n.inputs.end());
      for (const auto& n : graph_.nodes)
        if (!consumed.count(n.name)) graph_.outputs.push_back(n.name);
      return;
    }
    if (doc_.outputs->empty())
      throw InputError({doc_.outputsLoc, "'outputs' is empty; list the nodes to output, or leave the field out "
                                         "to output every node that nothing consumes"});
    const GraphIndex index(graph_);
    std::set<std::string> listed;
    for (const auto& o : *doc_.outputs) {
      if (index.findInput(o.text))
        throw InputError({o.loc, "output " + quoted(o.text) + " is a graph input; outputs must be nodes"});
      if (!index.findNode(o.text)) {
        std::vector<std::string> nodeNames;
        for (const auto& n : graph_.nodes) nodeNames.push_back(n.name);
        throw InputError({o.loc, "output " + quoted(o.text) + " is not a node of the graph" +
                                     didYouMean(o.text, nodeNames)});
      }
      if (!listed.insert(o.text).second)
        throw InputError({o.loc, "output " + quoted(o.text) + " is listed twice"});
      graph_.outputs.push_back(o.text);
    }
  }

  const GraphDocument& doc_;
  Graph graph_;
  std::vector<int> order_;
  std::map<std::string, std::pair<std::string, SourceLoc>> definitions_;
  std::vector<std::string> allNames_;
  std::map<Label, const DocSize*> graphSizes_;  // the graph's 'sizes', for broadcast labels
};

}  // namespace

Graph buildGraph(const GraphDocument& doc) { return GraphBuilder(doc).build(); }

}  // namespace eindecomp
