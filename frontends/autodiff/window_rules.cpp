#include "frontends/autodiff/window_rules.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "planner/graph/diagnostic.h"
#include "planner/graph/excerpt.h"
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
    const bool stepped = !n.windows->steps.empty() && !n.windows->steps[k].empty() && n.windows->steps[k][d] > 1;
    const bool moved = n.windows->offsets[k][d] != 0 || !n.windows->taps[k][d].empty() || stepped;
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

}  // namespace

void splitWindows(Graph& g) {
  std::unordered_set<std::string> used;
  std::unordered_map<std::string, int> nextSuffix;
  for (const auto& in : g.inputs) used.insert(in.name);
  for (const auto& n : g.nodes) used.insert(n.name);
  std::vector<Node> nodes;
  nodes.reserve(g.nodes.size());
  for (Node& n : g.nodes) {
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
        if (!n.windows->steps.empty() && !n.windows->steps[k].empty()) copied.steps = {n.windows->steps[k]};
        if (!n.windows->spreads.empty() && !n.windows->spreads[k].empty()) copied.spreads = {n.windows->spreads[k]};
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
