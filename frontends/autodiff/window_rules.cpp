#include "frontends/autodiff/window_rules.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "planner/graph/diagnostic.h"
#include "planner/graph/excerpt.h"
#include "planner/graph/expr_parser.h"
#include "planner/graph/identifiers.h"

namespace eindecomp::autodiff {

namespace {

// True when some label appears twice in `l` (a diagonal or trace).
bool repeatsLabel(const Labels& l) { return std::set<Label>(l.begin(), l.end()).size() != l.size(); }

bool sameSet(const Labels& a, const Labels& b) {
  return std::set<Label>(a.begin(), a.end()) == std::set<Label>(b.begin(), b.end());
}

}  // namespace

bool tappedConvolution(const Node& n) {
  if (!hasTaps(n)) return false;
  auto refuse = [&](const std::string& why) {
    throw InputError({n.loc, "node " + quoted(n.name) + ": einplan grad differentiates windows over tap labels only in a "
                                 "convolution (a product of two operands summed, one read through the windows); " + why});
  };
  if (n.inputs.size() != 2 || !isContraction(n)) refuse("this node's join or aggregation is another");
  if (isWindowed(n, 0) == isWindowed(n, 1)) refuse("both of its operands are read through windows");
  const std::size_t k = isWindowed(n, 0) ? 0 : 1;
  const Labels& lk = n.operandLabels[k];
  const Labels& other = n.operandLabels[1 - k];
  if (repeatsLabel(lk) || repeatsLabel(n.outputLabels)) refuse("a label repeats");
  for (std::size_t d = 0; d < lk.size(); ++d) {
    const bool inOutput = std::find(n.outputLabels.begin(), n.outputLabels.end(), lk[d]) != n.outputLabels.end();
    const bool inOther = std::find(other.begin(), other.end(), lk[d]) != other.end();
    const bool moved = n.windows->offsets[k][d] != 0 || !n.windows->taps[k][d].empty() || n.windows->stepOf(k, d) > 1;
    if (moved && (!inOutput || inOther)) refuse("its windowed label " + quoted(lk[d]) + " is not the output's alone");
    const Label& t = n.windows->taps[k][d];
    if (!t.empty() && (std::find(other.begin(), other.end(), t) == other.end() ||
                       std::find(n.outputLabels.begin(), n.outputLabels.end(), t) != n.outputLabels.end()))
      refuse("its tap label " + quoted(t) + " is not the other operand's alone");
  }
  return true;
}

namespace {

// A node that only copies its one operand through a window: join x, agg sum, every label
// of the operand in the output once.
bool isWindowCopy(const Node& n) {
  if (!n.windows || n.inputs.size() != 1 || !(n.join == Expr::x()) || n.agg != Reduce::Sum) return false;
  const Labels& l = n.operandLabels[0];
  return l.size() == n.outputLabels.size() && !repeatsLabel(l) && sameSet(l, n.outputLabels);
}

// A pooling node (the importer's max pool): max over the taps of x + y, x read through
// windows over tap labels that are y's only labels, x's labels the output's (but labels
// of size 1 on either side).
bool isTapMaximum(const Node& n) {
  if (!hasTaps(n) || n.inputs.size() != 2 || n.agg != Reduce::Max || !isWindowed(n, 0) || isWindowed(n, 1)) return false;
  const Expr sum = Expr::binary(Expr::Kind::Add, Expr::x(), Expr::y());
  const Labels& x = n.operandLabels[0];
  Labels taps;
  for (const Label& t : n.windows->taps[0])
    if (!t.empty()) taps.push_back(t);
  auto within = [&](const Labels& a, const Labels& b) {  // a's labels in b, or of size 1
    return std::all_of(a.begin(), a.end(), [&](const Label& l) {
      return n.labelSizes.at(l) == 1 || std::find(b.begin(), b.end(), l) != b.end();
    });
  };
  return n.join == sum && !repeatsLabel(x) && !repeatsLabel(n.operandLabels[1]) && within(x, n.outputLabels) &&
         within(n.outputLabels, x) && sameSet(taps, n.operandLabels[1]) && taps.size() == n.operandLabels[1].size();
}

// The taps einplan grad unrolls a pooling node into, at most.
constexpr int64_t kMaxUnrolledTaps = 64;

// Node `n` (isTapMaximum) as the maximum of its taps one after the other, the way the
// importer once wrote max pools: per tap t a copy of x's window at t (no taps: the
// offsets moved by dilation * t), plus y's element at t, joined into the maximum so far by
// where(max(y - x, 0), y, x) — on a tie the earlier tap keeps it, so the gradient goes to
// the window's first maximal position (torch's max_pool). The last node takes n's name.
void unrollTapMaximum(const Node& n, std::vector<Node>& nodes, std::unordered_set<std::string>& used,
                      std::unordered_map<std::string, int>& nextSuffix) {
  const NodeWindows& w = *n.windows;
  const Labels& x = n.operandLabels[0];
  const Labels& tapLabels = n.operandLabels[1];
  int64_t taps = 1;
  for (const Label& t : tapLabels) taps *= n.labelSizes.at(t);
  if (taps > kMaxUnrolledTaps)
    throw InputError({n.loc, "node " + quoted(n.name) + ": einplan grad unrolls a pooling node's taps, at most " +
                                 std::to_string(kMaxUnrolledTaps) + "; this one has " + std::to_string(taps)});
  auto made = [&](const std::string& base, std::vector<std::string> inputs, std::vector<Labels> operands, const Labels& out,
                  const Expr& join, std::shared_ptr<const NodeWindows> windows) {
    Node m;
    m.name = base.empty() ? n.name : freshName(base, used, nextSuffix);
    m.inputs = std::move(inputs);
    m.operandLabels = std::move(operands);
    m.outputLabels = out;
    m.join = join;
    m.agg = Reduce::Sum;
    for (const Labels& ls : m.operandLabels)
      for (const Label& l : ls) m.labelSizes[l] = n.labelSizes.at(l);
    m.loc = n.loc;
    m.windows = std::move(windows);
    nodes.push_back(std::move(m));
    return nodes.back().name;
  };
  std::vector<int64_t> tap(tapLabels.size(), 0);
  std::string maximum;
  for (int64_t t = 0; t < taps; ++t) {
    const std::string at = std::to_string(t);
    NodeWindows window{{{}}, {w.bounds[0]}, w.fill};
    for (std::size_t d = 0; d < x.size(); ++d) {
      int64_t offset = w.offsets[0][d];
      const Label& tapLabel = w.taps[0][d];
      if (!tapLabel.empty())
        offset += w.dilations[0][d] * tap[static_cast<std::size_t>(std::find(tapLabels.begin(), tapLabels.end(), tapLabel) - tapLabels.begin())];
      window.offsets[0].push_back(offset);
    }
    if (w.stepped(0)) window.steps = {w.steps[0]};
    const std::string read = made("tap" + at + "_" + n.name, {n.inputs[0]}, {x}, x, Expr::x(),
                                  std::make_shared<const NodeWindows>(std::move(window)));
    // y's element at t: a window of one along each of its labels.
    NodeWindows one{{tap}, {{}}, 0.0};
    for (const Label& l : tapLabels) one.bounds[0].push_back(n.labelSizes.at(l));
    const std::string element = made("tap" + at + "_" + n.inputs[1], {n.inputs[1]}, {tapLabels}, tapLabels, Expr::x(),
                                     std::make_shared<const NodeWindows>(std::move(one)));
    for (const Label& l : tapLabels) nodes.back().labelSizes[l] = 1;
    const bool last = t + 1 == taps;
    const std::string value = made(last && t == 0 ? "" : "value" + at + "_" + n.name, {read, element}, {x, tapLabels},
                                   n.outputLabels, Expr::binary(Expr::Kind::Add, Expr::x(), Expr::y()), nullptr);
    nodes.back().labelSizes = n.labelSizes;
    for (const Label& l : tapLabels) nodes.back().labelSizes[l] = 1;
    if (t == 0) {
      maximum = value;
    } else {
      maximum = made(last ? "" : "max" + at + "_" + n.name, {maximum, value}, {n.outputLabels, n.outputLabels}, n.outputLabels,
                     parseExpr("where(max(y - x, 0), y, x)", n.loc), nullptr);
    }
    for (std::size_t d = tap.size(); d-- > 0;)
      if (++tap[d] < n.labelSizes.at(tapLabels[d])) break;
      else tap[d] = 0;
  }
}

}  // namespace

void splitWindows(Graph& g) {
  std::unordered_set<std::string> used;
  std::unordered_map<std::string, int> nextSuffix;
  for (const auto& in : g.inputs) used.insert(in.name);
  for (const auto& n : g.nodes) used.insert(n.name);
  std::vector<Node> nodes;
  nodes.reserve(g.nodes.size());
  for (Node& n : g.nodes) {
    if (isTapMaximum(n)) {
      unrollTapMaximum(n, nodes, used, nextSuffix);
      continue;
    }
    if (n.windows && !isWindowCopy(n) && !tappedConvolution(n)) {
      NodeWindows rest = *n.windows;  // what the node keeps: windows on diagonals (refused if differentiated)
      bool kept = false;
      for (std::size_t k = 0; k < n.inputs.size(); ++k) {
        if (!isWindowed(n, k)) continue;
        if (repeatsLabel(n.operandLabels[k])) {
          kept = true;
          continue;
        }
        Node copy;
        copy.name = freshName("w" + std::to_string(k) + "_" + n.name, used, nextSuffix);
        copy.inputs = {n.inputs[k]};
        copy.operandLabels = {n.operandLabels[k]};
        copy.outputLabels = n.operandLabels[k];
        copy.join = Expr::x();
        copy.agg = Reduce::Sum;
        for (const Label& l : copy.outputLabels) copy.labelSizes[l] = n.labelSizes.at(l);
        copy.loc = n.loc;
        NodeWindows copied{{n.windows->offsets[k]}, {n.windows->bounds[k]}, n.windows->fill};
        if (n.windows->stepped(k)) copied.steps = {n.windows->steps[k]};
        if (n.windows->spreadOut(k)) copied.spreads = {n.windows->spreads[k]};
        copy.windows = std::make_shared<const NodeWindows>(std::move(copied));
        n.inputs[k] = copy.name;
        nodes.push_back(std::move(copy));
        rest.offsets[k].clear();
        rest.bounds[k].clear();
        if (!rest.steps.empty()) rest.steps[k].clear();
        if (!rest.spreads.empty()) rest.spreads[k].clear();
      }
      n.windows = kept ? std::make_shared<const NodeWindows>(std::move(rest)) : nullptr;
    }
    nodes.push_back(std::move(n));
  }
  g.nodes = std::move(nodes);
}

}  // namespace eindecomp::autodiff
