#include "frontends/autodiff/grad.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "frontends/autodiff/window_rules.h"
#include "frontends/autodiff/expr_derivative.h"
#include "frontends/autodiff/master_weights.h"
#include "frontends/autodiff/micro_batched_step.h"
#include "planner/graph/diagnostic.h"
#include "planner/graph/excerpt.h"
#include "planner/graph/graph_index.h"
#include "planner/graph/identifiers.h"
#include "planner/graph/load.h"
#include "planner/graph/tensor_types.h"
#include "planner/graph/write_graph.h"

namespace eindecomp::autodiff {

namespace {

using K = Expr::Kind;

// A tensor read with a node's labels, one per dimension.
struct Term {
  std::string tensor;
  Labels labels;
};

// Per node, what its max/min or prod gradient shares between its operands.
struct AggWeights {
  std::optional<Term> upstream;  // over the output labels
  std::optional<Term> points;    // over all the node's labels
};

bool contains(const Labels& ls, const Label& l) { return std::find(ls.begin(), ls.end(), l) != ls.end(); }

Labels unionOf(const Labels& a, const Labels& b) {
  Labels u = a;
  for (const auto& l : b)
    if (!contains(u, l)) u.push_back(l);
  return u;
}

bool sameSet(const Labels& a, const Labels& b) {
  return std::set<Label>(a.begin(), a.end()) == std::set<Label>(b.begin(), b.end());
}

class Differentiator {
 public:
  Differentiator(Graph& g, const GradRequest& r) : fwd_(g), fwdIndex_(g), req_(r) {
    for (const auto& in : g.inputs) used_.insert(in.name);
    for (const auto& n : g.nodes) used_.insert(n.name);
    for (const auto& in : g.inputs) fwdType_.emplace(in.name, inputType(g, in));
    const std::vector<DType> types = nodeOutputTypes(g);
    for (std::size_t i = 0; i < g.nodes.size(); ++i) fwdType_.emplace(g.nodes[i].name, types[i]);
    out_.outputs = g.outputs;
  }

  GradResult run() {
    const Node* loss = fwdIndex_.findNode(req_.loss);
    if (!loss) {
      std::vector<std::string> names;
      for (const auto& n : fwd_.nodes) names.push_back(n.name);
      if (fwdIndex_.findInput(req_.loss)) throw InputError({{}, "--loss " + quoted(req_.loss) + " is a graph input, not a node"});
      throw InputError({{}, "--loss " + quoted(req_.loss) + " is not a node of the graph" + didYouMean(req_.loss, names)});
    }
    std::vector<std::string> wrt = req_.wrt;
    if (wrt.empty())
      for (const auto& in : fwd_.inputs)
        if (!in.indexType && !isSplit(in.name)) wrt.push_back(in.name);  // ids are integers: nothing to differentiate
    std::set<std::string> seen;
    for (const auto& w : wrt) {
      if (fwdIndex_.findInput(w) == nullptr) {
        std::vector<std::string> names;
        for (const auto& in : fwd_.inputs) names.push_back(in.name);
        if (fwdIndex_.findNode(w)) throw InputError({{}, "--wrt " + quoted(w) + " is a node; gradients are taken with respect to graph inputs"});
        throw InputError({{}, "--wrt " + quoted(w) + " is not an input of the graph" + didYouMean(w, names)});
      }
      if (!seen.insert(w).second) throw InputError({{}, "--wrt names " + quoted(w) + " twice"});
      if (isSplit(w))
        throw InputError({{}, "--wrt " + quoted(w) + " is split into micro-batches (--split): its gradient differs from one "
                              "micro-batch to the next and is not a sum over them; differentiate by the weights"});
      if (fwdIndex_.findInput(w)->indexType)
        throw InputError({{}, "--wrt " + quoted(w) + " holds ids (dtype " + dtypeName(*fwdIndex_.findInput(w)->indexType) +
                                  "), which have no gradient"});
    }
    markActive(*loss, wrt);
    if (!active_.count(loss->name))
      throw InputError({{}, "the loss " + quoted(loss->name) + " does not depend on any of the inputs it is differentiated by"});

    // The seed: d sum(loss) / d loss = 1 everywhere.
    contributions_[loss->name].push_back(addNode("d_" + loss->name + "_seed", {{loss->name, labelsFor(loss->outputLabels.size())}},
                                                 labelsFor(loss->outputLabels.size()), Expr::num(1), Reduce::Sum,
                                                 sizesOf(loss->name)));
    for (auto it = fwd_.nodes.rbegin(); it != fwd_.nodes.rend(); ++it) {
      const Node& n = *it;
      if (!active_.count(n.name)) continue;
      const std::optional<std::string> g = total(n.name, "d_" + n.name);
      if (!g) continue;  // every consumer's derivative is identically zero
      for (std::size_t i = 0; i < n.inputs.size(); ++i)
        if (active_.count(n.inputs[i]))
          if (auto c = contribution(n, i, *g)) contributions_[n.inputs[i]].push_back(*c);
    }
    std::vector<std::pair<std::string, std::string>> grads;
    for (const auto& w : wrt) {
      const std::optional<std::string> g = total(w, derivedName("grad_" + w, "the gradient of " + quoted(w)), true);
      if (!g) {
        result_.notes.push_back("the gradient of " + quoted(w) + " is identically zero (it does not reach the loss " +
                               quoted(loss->name) + " through a differentiable path); grad_" + w + " is not written");
        continue;
      }
      grads.emplace_back(w, *g);
      if (req_.gradientOutputs || !req_.update) out_.outputs.push_back(*g);
      // An input an importer split (file_shape: the model's own shape) has its gradient
      // written in that shape too.
      out_.nodes[added_.at(*g)].fileShape = fileShapeOf(fwd_, w) == shapeOf(w) ? std::vector<int64_t>{} : fileShapeOf(fwd_, w);
    }
    if (req_.update) appendUpdates(*req_.update, grads);
    // With micro-batches the step outputs the loss summed over them: a copy of the loss,
    // since the backward's seed reads the loss itself once per micro-batch.
    std::string lossSum;
    if (req_.microBatches) {
      const auto it = std::find(out_.outputs.begin(), out_.outputs.end(), loss->name);
      if (it != out_.outputs.end()) {
        const Labels ls = labelsFor(loss->outputLabels.size());
        lossSum = *it = addNode(loss->name + "_step", {{loss->name, ls}}, ls, Expr::x(), Reduce::Sum, sizesOf(loss->name));
      }
    }
    // Through the one validation of graph files: whatever was built is checked as any
    // graph file is (as the document its file would read back as, without the text):
    // the forward graph, then the nodes made here.
    // (The document's place is "<grad>": short enough to need no allocation per value.)
    {
      const std::string sourceFile = fwd_.sourceFile;
      GraphDocument document = documentOf(fwd_, "<grad>");
      document.nodes.reserve(fwd_.nodes.size() + out_.nodes.size());
      for (const Node& n : out_.nodes) document.nodes.push_back(documentNodeOf(n, document.loc));
      for (const InputTensor& in : out_.inputs) document.inputs.push_back(documentInputOf(out_, in, document.loc));  // adamw's state
      document.outputs->clear();
      for (const std::string& o : out_.outputs) document.outputs->push_back({o, document.loc, false});
      // Both graphs are in the document now; their memory goes before the result is built.
      out_ = Graph();
      fwd_.nodes = {};
      fwd_.inputs = {};
      result_.graph = buildGraph(document);
      result_.graph.sourceFile = sourceFile;
    }
    // (`grads` and `lossSum` name nodes of the result: the document kept every name.)
    if (req_.microBatches) result_.graph = withAccumulatedGradients(std::move(result_.graph), *req_.microBatches, grads, lossSum);
    return std::move(result_);
  }

 private:
  bool isSplit(const std::string& input) const { return req_.microBatches && isSplitInput(*req_.microBatches, input); }

  Graph& fwd_;                 // differentiate's own copy, emptied once the result is built
  const GraphIndex fwdIndex_;  // names of the forward graph, looked up once each (not after)
  GradRequest req_;
  Graph out_;  // the nodes made here (the forward graph's come first in the result) and every output
  GradResult result_;  // its notes gather on the way
  std::unordered_map<std::string, std::size_t> added_;  // nodes this made: name -> index in out_.nodes
  std::unordered_map<std::string, int> nextSuffix_;     // fresh(): the next number to try per base
  std::unordered_set<std::string> used_;
  std::set<std::string> active_;  // tensors on a path from a --wrt input to the loss
  std::unordered_map<std::string, DType> fwdType_;  // each forward tensor's type (tensor_types.h)
  std::map<std::string, std::vector<std::string>> contributions_;
  std::map<std::string, AggWeights> aggWeights_;

  // X_next for each (X, grad_X), and the optimizer's state: update.h's recipe, its
  // inputs added to the graph, its visible names reserved as the user's.
  void appendUpdates(const Update& u, const std::vector<std::pair<std::string, std::string>>& grads) {
    if (grads.empty()) return;
    const UpdateRecipe recipe = updateRecipe(u);
    std::map<std::string, std::string> shared;  // the step's names in the recipe -> in the graph
    // The optimizer's state and step are of the trained tensors' type (the master weights'
    // under --master: the update is applied in f32), not the graph's.
    const DType stateType = fwdType_.at(grads.front().first);
    auto ownType = [&](DType t) { return t == fwd_.dtype ? std::nullopt : std::optional<DType>(t); };
    for (const auto& in : recipe.scalarInputs) {
      shared[in] = reserve(in);
      out_.inputs.push_back({in, {}, {}});
      out_.inputs.back().floatType = ownType(stateType);
    }
    for (const auto& n : recipe.scalarNodes) {
      std::vector<Term> operands;
      for (const auto& op : n.operands) operands.push_back({shared.at(op.name), {}});
      shared[n.name] = addNode(n.name, operands, {}, n.join, Reduce::Sum, {});
    }
    for (const auto& [w, g] : grads) {
      const Labels ls = labelsFor(shapeOf(w).size());
      const auto sizes = sizesOf(w);
      std::map<std::string, std::string> names = shared;  // the recipe's names, with w and g put in
      names[w] = w;
      names[g] = g;
      auto visible = [&](const std::string& pattern) {
        const std::string wanted = updateName(pattern, w, g);
        return names[wanted] = reserve(derivedName(wanted, "the update's " + quoted(wanted)));
      };
      for (const auto& pattern : recipe.stateInputs) {
        out_.inputs.push_back({visible(pattern), shapeOf(w), {}});
        out_.inputs.back().floatType = ownType(fwdType_.at(w));
      }
      for (const auto& n : recipe.tensorNodes) {
        std::vector<Term> operands;
        for (const auto& op : n.operands)
          operands.push_back({names.at(updateName(op.name, w, g)), op.scalar ? Labels{} : ls});
        const std::string name = updateName(n.name, w, g);
        names[name] = n.visible ? addNode(visible(n.name), operands, ls, n.join, Reduce::Sum, sizes, true)
                                : addNode(name, operands, ls, n.join, Reduce::Sum, sizes);
      }
      for (const auto& pattern : recipe.outputs) out_.outputs.push_back(names.at(updateName(pattern, w, g)));
    }
  }

  void markActive(const Node& loss, const std::vector<std::string>& wrt) {
    std::set<std::string> reaches{loss.name};
    for (auto it = fwd_.nodes.rbegin(); it != fwd_.nodes.rend(); ++it)
      if (reaches.count(it->name))
        for (const auto& in : it->inputs) reaches.insert(in);
    std::set<std::string> depends(wrt.begin(), wrt.end());
    for (const auto& n : fwd_.nodes)
      for (const auto& in : n.inputs)
        if (depends.count(in)) depends.insert(n.name);
    for (const auto& t : reaches)
      if (depends.count(t)) active_.insert(t);
  }

  std::vector<int64_t> shapeOf(const std::string& tensor) const { return fwdIndex_.tensorShape(tensor); }

  // Generic labels d0, d1, ... of a tensor's dimensions (a node made for one tensor).
  static Labels labelsFor(std::size_t rank) {
    Labels ls;
    for (std::size_t d = 0; d < rank; ++d) ls.push_back("d" + std::to_string(d));
    return ls;
  }

  std::map<Label, int64_t> sizesOf(const std::string& tensor) const {
    std::map<Label, int64_t> s;
    const auto shape = shapeOf(tensor);
    for (std::size_t d = 0; d < shape.size(); ++d) s["d" + std::to_string(d)] = shape[d];
    return s;
  }

  // The name of an output the user asks for (grad_X, X_next): as written where it is an
  // identifier of at most 64 characters, else shortened uniquely (identifierFrom: its first
  // 55 characters and a hash of the whole), which a note says.
  std::string derivedName(const std::string& wanted, const std::string& what) {
    const std::string name = identifierFrom(wanted);
    if (name != wanted)
      result_.notes.push_back(what + " is written as " + quoted(name) + " (" + quoted(wanted) + " would pass " +
                              std::to_string(kMaxIdentifierLength) + " characters)");
    return name;
  }

  // A name the user asked for: it must be free.
  std::string reserve(const std::string& name) {
    if (used_.count(name))
      throw InputError({{}, "the graph already has a tensor named " + quoted(name) + ", which einplan grad would write; "
                            "rename that tensor"});
    used_.insert(name);
    return name;
  }

  std::string fresh(const std::string& base) { return freshName(base, used_, nextSuffix_); }

  // A node over `operands`; its labels are renamed to single letters where there are few
  // enough (the written einsum needs no spacing then), their sizes taken from `sizes`.
  // `exactName`: `base` is the name, already reserved by the caller.
  std::string addNode(const std::string& base, const std::vector<Term>& operands, const Labels& output, const Expr& join,
                      Reduce agg, const std::map<Label, int64_t>& sizes, bool exactName = false, const std::string& joinName = "") {
    Node n;
    n.joinName = joinName;
    n.name = exactName ? base : fresh(base);
    std::map<Label, Label> rename;
    auto letter = [&](const Label& l) {
      auto it = rename.find(l);
      if (it != rename.end()) return it->second;
      const std::size_t k = rename.size();
      const Label to = k < 26 ? std::string(1, static_cast<char>('a' + k))
                              : k < 52 ? std::string(1, static_cast<char>('A' + k - 26)) : "l" + std::to_string(k);
      rename[l] = to;
      n.labelSizes[to] = sizes.at(l);
      return to;
    };
    for (const auto& op : operands) {
      n.inputs.push_back(op.tensor);
      Labels ls;
      for (const auto& l : op.labels) ls.push_back(letter(l));
      n.operandLabels.push_back(ls);
    }
    for (const auto& l : output) n.outputLabels.push_back(letter(l));
    n.join = join;
    n.agg = agg;
    added_[n.name] = out_.nodes.size();
    out_.nodes.push_back(std::move(n));
    return out_.nodes.back().name;
  }

  // The gradient of `tensor`: its one contribution (renamed), or their sum; nothing when
  // none. `exact`: the name is the user's (grad_X) and must be free.
  std::optional<std::string> total(const std::string& tensor, const std::string& name, bool exact = false) {
    auto it = contributions_.find(tensor);
    if (it == contributions_.end() || it->second.empty()) return std::nullopt;
    const std::vector<std::string>& cs = it->second;
    const std::string target = exact ? reserve(name) : fresh(name);
    if (cs.size() == 1) {  // the contribution, renamed
      const std::size_t at = added_.at(cs[0]);
      added_.erase(cs[0]);
      out_.nodes[at].name = target;
      added_[target] = at;
      return target;
    }
    const Labels ls = labelsFor(shapeOf(tensor).size());
    const Expr plus = Expr::binary(K::Add, Expr::x(), Expr::y());
    std::string acc = cs[0];
    for (std::size_t k = 1; k < cs.size(); ++k) {
      const bool last = k + 1 == cs.size();
      acc = addNode(last ? target : name + "_sum", {{acc, ls}, {cs[k], ls}}, ls, plus, Reduce::Sum, sizesOf(tensor), last);
    }
    return acc;
  }

  // The node's value at every point of its labels, f(X, Y) before aggregation.
  Term pointValues(const Node& n) {
    const Labels all = iterationLabels(n);
    if (n.inputs.size() == 1 && n.join == Expr::x() && sameSet(n.operandLabels[0], all)) return {n.inputs[0], n.operandLabels[0]};
    std::vector<Term> ops;
    for (std::size_t i = 0; i < n.inputs.size(); ++i) ops.push_back({n.inputs[i], n.operandLabels[i]});
    return {addNode("v_" + n.name, ops, all, n.join, Reduce::Sum, n.labelSizes), all};
  }

  const AggWeights& weights(const Node& n, const std::string& g) {
    auto it = aggWeights_.find(n.name);
    if (it != aggWeights_.end()) return it->second;
    AggWeights w;
    const Labels all = iterationLabels(n), out = n.outputLabels;
    const bool reduces = !aggregatedLabels(n).empty();
    const Expr x = Expr::x(), y = Expr::y();
    if (n.agg == Reduce::Sum || !reduces) {
      w.upstream = Term{g, out};
    } else if (n.agg == Reduce::Max || n.agg == Reduce::Min) {
      // The points that reach the extremum (v == z), and how many tie there.
      const Term v = pointValues(n);
      const Expr isExtremum = Expr::call(ScalarFunction::Where, {Expr::binary(K::Sub, x, y), Expr::num(0), Expr::num(1)});
      const std::string mask = addNode("m_" + n.name, {v, {n.name, out}}, all, isExtremum, Reduce::Sum, n.labelSizes);
      const std::string count = addNode("c_" + n.name, {{mask, all}}, out, x, Reduce::Sum, n.labelSizes);
      // max(count, 1): where every point is the same infinity (a max pooling's unfold at a
      // padded place: -inf - -inf is NaN) none counts, and the share is G, not G / 0 —
      // its points' derivatives are 0 there. Elsewhere count >= 1 and this is count.
      const Expr atLeastOne = Expr::call(ScalarFunction::Max, {y, Expr::num(1)});
      const std::string share = addNode("s_" + n.name, {{g, out}, {count, out}}, out, Expr::binary(K::Div, x, atLeastOne),
                                        Reduce::Sum, n.labelSizes);
      w.upstream = Term{share, out};
      w.points = Term{mask, all};
    } else {  // prod: d z / d v = z / v
      const Term v = pointValues(n);
      const std::string gz = addNode("gz_" + n.name, {{g, out}, {n.name, out}}, out, Expr::binary(K::Mul, x, y), Reduce::Sum,
                                     n.labelSizes);
      const std::string r = addNode("r_" + n.name, {{gz, out}, v}, all, Expr::binary(K::Div, x, y), Reduce::Sum, n.labelSizes);
      w.points = Term{r, all};
    }
    return aggWeights_.emplace(n.name, w).first->second;
  }

  // df/dv (`d`, no constant factor) as a tensor: an operand itself, the node's result
  // where the derivative is a function of it, or a node computing it.
  Term derivativeTerm(const Node& n, const Expr& d) {
    const Labels& l0 = n.operandLabels[0];
    const Labels* l1 = n.inputs.size() > 1 ? &n.operandLabels[1] : nullptr;
    if (d == Expr::x()) return {n.inputs[0], l0};
    if (d == Expr::y() && l1) return {n.inputs[1], *l1};
    const Labels out = n.outputLabels;
    if (aggregatedLabels(n).empty()) {
      // The node's own value z = f(x, y), read instead of recomputed where the derivative
      // holds it (as the join z, and the operand it still needs as the join's y).
      const Expr z = Expr::x();
      if (containsSubtree(d, n.join)) {
        if (auto e = rewrite(d, n.join, z, std::nullopt, std::nullopt)) {
          if (*e == z) return {n.name, out};
          return {addNode("dz_" + n.name, {{n.name, out}}, out, *e, Reduce::Sum, n.labelSizes), out};
        }
        if (auto e = rewrite(d, n.join, z, Expr::y(), std::nullopt))
          return {addNode("dz_" + n.name, {{n.name, out}, {n.inputs[0], l0}}, out, *e, Reduce::Sum, n.labelSizes), out};
        if (l1)
          if (auto e = rewrite(d, n.join, z, std::nullopt, Expr::y()))
            return {addNode("dz_" + n.name, {{n.name, out}, {n.inputs[1], *l1}}, out, *e, Reduce::Sum, n.labelSizes), out};
      }
    }
    const bool x = usesX(d), y = usesY(d);
    if (x && !y) return {addNode("dx_" + n.name, {{n.inputs[0], l0}}, l0, d, Reduce::Sum, n.labelSizes), l0};
    if (y && !x) return {addNode("dy_" + n.name, {{n.inputs[1], *l1}}, *l1, yAsX(d), Reduce::Sum, n.labelSizes), *l1};
    const Labels both = unionOf(l0, *l1);
    return {addNode("dxy_" + n.name, {{n.inputs[0], l0}, {n.inputs[1], *l1}}, both, d, Reduce::Sum, n.labelSizes), both};
  }

  // A window's copy (splitWindows leaves no other windowed node): Z[i] = X[s i + o], the
  // fill outside X, so dX[m] = dZ[(m - o) / s] where that divides and lies in Z, 0
  // elsewhere: a window of the upstream gradient the other way (a step's is a spread, and
  // a spread's, Z[i] = X[(i + o) / s], a step: dX[m] = dZ[s m - o]), X's extents as its
  // labels' sizes.
  std::string windowContribution(const Node& n, const std::string& g, const std::string& base) {
    const Labels& li = n.operandLabels[0];
    const NodeWindows& w = *n.windows;
    std::map<Label, int64_t> sizes, offset, step, spread;
    for (std::size_t d = 0; d < li.size(); ++d) {
      sizes[li[d]] = w.bounds[0][d];
      offset[li[d]] = w.offsets[0][d];
      step[li[d]] = w.stepOf(0, d);
      spread[li[d]] = w.spreadOf(0, d);
    }
    const std::string name = addNode(base, {{g, n.outputLabels}}, li, Expr::x(), Reduce::Sum, sizes);
    NodeWindows back;
    back.offsets.assign(1, {});
    back.bounds.assign(1, {});
    std::vector<int64_t> backStep, backSpread;
    for (const Label& l : n.outputLabels) {
      back.offsets[0].push_back(-offset.at(l));
      back.bounds[0].push_back(n.labelSizes.at(l));
      backStep.push_back(spread.at(l));
      backSpread.push_back(step.at(l));
    }
    auto any = [](const std::vector<int64_t>& v) { return std::any_of(v.begin(), v.end(), [](int64_t x) { return x > 1; }); };
    if (any(backStep)) back.steps = {backStep};
    if (any(backSpread)) back.spreads = {backSpread};
    out_.nodes[added_.at(name)].windows = std::make_shared<const NodeWindows>(std::move(back));
    return name;
  }

  // `g` (over `labels`, extents from `sizes`) with each labels' rows placed `spread` apart,
  // the fill 0 between (extents spread times theirs): what a strided convolution's image
  // gradient reads with the taps of a stride-1 one.
  std::string spreadCopy(const std::string& g, const Labels& labels, const std::map<Label, int64_t>& spread,
                         const std::map<Label, int64_t>& sizes, const std::string& base) {
    std::map<Label, int64_t> spreadSizes = sizes;
    NodeWindows w;
    w.offsets.assign(1, std::vector<int64_t>(labels.size(), 0));
    w.bounds.assign(1, {});
    w.spreads.assign(1, {});
    for (const Label& l : labels) {
      const auto it = spread.find(l);
      const int64_t s = it == spread.end() ? 1 : it->second;
      spreadSizes[l] = s * sizes.at(l);
      w.bounds[0].push_back(sizes.at(l));
      w.spreads[0].push_back(s);
    }
    const std::string name = addNode(base, {{g, labels}}, labels, Expr::x(), Reduce::Sum, spreadSizes);
    out_.nodes[added_.at(name)].windows = std::make_shared<const NodeWindows>(std::move(w));
    return name;
  }

  // The label names node `name` gave the labels of its operand terms and its output
  // (addNode renames).
  std::map<Label, Label> namesIn(const std::string& name, const std::vector<Term>& terms, const Labels& output) const {
    const Node& made = out_.nodes[added_.at(name)];
    std::map<Label, Label> to;
    for (std::size_t d = 0; d < output.size(); ++d) to[output[d]] = made.outputLabels[d];
    for (std::size_t j = 0; j < terms.size(); ++j)
      for (std::size_t d = 0; d < terms[j].labels.size(); ++d) to[terms[j].labels[d]] = made.operandLabels[j][d];
    return to;
  }

  // A convolution (tappedConvolution: Z = sum X * W, X read at step * a + dilation * t +
  // offset with t a label of W). W's gradient reads X through the same windows: sum dZ * X.
  // X's reads dZ the other way: dX[m] = sum dZ[(m - dilation * t - offset) / step] * W[t]
  // where that divides (a convolution again, over dZ's rows spread step apart; outside it
  // 0), X's extents the sizes of its labels.
  std::string tapContribution(const Node& n, std::size_t i, const std::string& g, const std::string& base) {
    const std::size_t k = isWindowed(n, 0) ? 0 : 1, other = 1 - k;
    const NodeWindows& w = *n.windows;
    const Labels& lk = n.operandLabels[k];
    const bool stepped = w.stepped(k);
    if (i == other) {
      const std::vector<Term> terms{{g, n.outputLabels}, {n.inputs[k], lk}};
      const std::string name = addNode(base, terms, n.operandLabels[other], Expr::binary(K::Mul, Expr::x(), Expr::y()),
                                       Reduce::Sum, n.labelSizes);
      const std::map<Label, Label> to = namesIn(name, terms, n.operandLabels[other]);
      NodeWindows back{{{}, w.offsets[k]}, {{}, w.bounds[k]}, w.fill, {{}, {}}, {{}, w.dilations[k]}};
      for (const Label& t : w.taps[k]) back.taps[1].push_back(t.empty() ? t : to.at(t));
      if (stepped) back.steps = {{}, w.steps[k]};
      out_.nodes[added_.at(name)].windows = std::make_shared<const NodeWindows>(std::move(back));
      return name;
    }
    std::map<Label, int64_t> sizes = n.labelSizes, upstreamSizes = n.labelSizes, spread;
    std::map<Label, std::size_t> dimOf;  // X's windowed labels: their dimension
    for (std::size_t d = 0; d < lk.size(); ++d) {
      sizes[lk[d]] = w.bounds[k][d];
      dimOf[lk[d]] = d;
      if (stepped && w.steps[k][d] > 1) {
        spread[lk[d]] = w.steps[k][d];
        upstreamSizes[lk[d]] *= w.steps[k][d];
      }
    }
    const std::string upstream = spread.empty() ? g : spreadCopy(g, n.outputLabels, spread, n.labelSizes, "s" + base);
    const std::vector<Term> terms{{upstream, n.outputLabels}, {n.inputs[other], n.operandLabels[other]}};
    const std::string name = addNode(base, terms, lk, Expr::binary(K::Mul, Expr::x(), Expr::y()), Reduce::Sum, sizes);
    const std::map<Label, Label> to = namesIn(name, terms, lk);
    NodeWindows back;
    back.offsets.assign(2, {});
    back.bounds.assign(2, {});
    back.taps.assign(2, {});
    back.dilations.assign(2, {});
    for (const Label& l : n.outputLabels) {
      const auto it = dimOf.find(l);
      const std::size_t d = it == dimOf.end() ? 0 : it->second;
      const bool moved = it != dimOf.end();
      back.offsets[0].push_back(moved ? -w.offsets[k][d] : 0);
      back.bounds[0].push_back(upstreamSizes.at(l));
      back.taps[0].push_back(moved && !w.taps[k][d].empty() ? to.at(w.taps[k][d]) : Label{});
      back.dilations[0].push_back(moved && !w.taps[k][d].empty() ? -w.dilations[k][d] : 0);
    }
    out_.nodes[added_.at(name)].windows = std::make_shared<const NodeWindows>(std::move(back));
    return name;
  }

  std::optional<std::string> contribution(const Node& n, std::size_t i, const std::string& g) {
    const Labels& li = n.operandLabels[i];
    for (std::size_t a = 0; a < li.size(); ++a)
      for (std::size_t b = a + 1; b < li.size(); ++b)
        if (li[a] == li[b])
          throw InputError({n.loc, "node " + quoted(n.name) + ": operand " + std::to_string(i + 1) + " repeats label " + quoted(li[a]) +
                                       " (a diagonal or trace); einplan grad cannot differentiate it — write the diagonal as a product with an identity input"});
    const std::string base = "d_" + n.inputs[i] + "_" + n.name;
    if (n.castTo) {
      refuseWideningContraction(n);
      // Gradient accumulation fusion (grad.h): the gradient of the cast's output, one
      // contraction of 2-byte operands made here, computes into the operand's type itself.
      const auto made = added_.find(g);
      if (req_.gradientAccumulationFusion && made != added_.end() &&
          canWriteMasterType(out_.nodes[made->second], fwdType_.at(n.inputs[i]), fwd_.dtype)) {
        out_.nodes[made->second].castTo = fwdType_.at(n.inputs[i]);
        return g;
      }
      // A cast's gradient: the upstream gradient cast back to the operand's type.
      const std::string c = addNode(base, {{g, n.outputLabels}}, li, Expr::x(), Reduce::Sum, n.labelSizes);
      out_.nodes[added_.at(c)].castTo = fwdType_.at(n.inputs[i]);
      return c;
    }
    if (hasTaps(n)) return tapContribution(n, i, g, base);
    if (n.windows) return windowContribution(n, g, base);
    if (isIndexNode(n)) {
      // The ids have no derivative; the values' is the other index operation over the
      // same ids: a gather's table receives each upstream row at its id (a scatter), a
      // scatter's rows read the upstream row of their id (a gather).
      if (i == 0) return std::nullopt;
      const bool gather = n.joinName == "gather";
      return addNode(base, {{n.inputs[0], n.operandLabels[0]}, {g, n.outputLabels}}, li, Expr::y(), Reduce::Sum, n.labelSizes,
                     false, gather ? "scatter" : "gather");
    }
    if (n.inputs.size() >= 3) {
      // A pure contraction: the product of the upstream gradient and the other operands.
      std::vector<Term> ops{{g, n.outputLabels}};
      for (std::size_t j = 0; j < n.inputs.size(); ++j)
        if (j != i) ops.push_back({n.inputs[j], n.operandLabels[j]});
      return addNode(base, ops, li, Expr::binary(K::Mul, Expr::x(), Expr::y()), Reduce::Sum, n.labelSizes);
    }
    const Expr d = partial(n.join, i == 0 ? Var::X : Var::Y);
    if (isNumber(d, 0)) return std::nullopt;
    const AggWeights& w = weights(n, g);
    auto [c, rest] = splitCoefficient(d);
    if (c == 0) return std::nullopt;
    std::vector<Term> ops;
    if (w.upstream) ops.push_back(*w.upstream);
    if (w.points) ops.push_back(*w.points);
    if (!isNumber(rest, 1)) {
      if (ops.size() == 2 && c != 1) {
        // Three factors form a pure contraction, which has no room for a constant.
        ops.push_back(derivativeTerm(n, simplify(Expr::binary(K::Mul, Expr::num(c), rest))));
        c = 1;
      } else {
        ops.push_back(derivativeTerm(n, rest));
      }
    }
    // Labels of the node in no factor and not in X: the summand does not vary along them,
    // so their sum is a multiple of their extents. (With point weights every label is in a
    // factor, so a constant never meets three factors here.)
    Labels seen = li;
    for (const auto& t : ops) seen = unionOf(seen, t.labels);
    for (const auto& l : iterationLabels(n))
      if (!contains(seen, l)) c *= static_cast<double>(n.labelSizes.at(l));
    Expr join = ops.size() == 1 ? Expr::x() : Expr::binary(K::Mul, Expr::x(), Expr::y());
    // Three factors (a pure contraction, join mul) only come with c folded into D above.
    if (c != 1) join = simplify(Expr::binary(K::Mul, Expr::num(c), join));
    return addNode(base, ops, li, join, Reduce::Sum, n.labelSizes);
  }
};

}  // namespace

GradResult differentiate(Graph forward, const GradRequest& request) {
  if (request.microBatches) forward = slicedForMicroBatches(forward, request.microBatches->count, request.microBatches->split);
  splitWindows(forward);
  if (request.master) forward = withMasterWeights(std::move(forward), request.wrt, *request.master);
  return Differentiator(forward, request).run();
}

}  // namespace eindecomp::autodiff
