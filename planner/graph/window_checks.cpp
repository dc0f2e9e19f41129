// The checks of a node's 'windows' (SPEC 8.1) that concern meaning: the entries against
// the node's lowered einsum, the tap labels, dilations, steps and spreads (GraphBuilder's,
// planner/graph/build_graph.cpp, apart so that the window rules are read in one place).
#include "planner/graph/window_checks.h"

#include <algorithm>
#include <set>

#include "planner/graph/excerpt.h"
#include "planner/graph/index_nodes.h"

namespace eindecomp {

namespace {

// The windows' steps and spreads (SPEC 8.1): each within 1 .. 2^20; a spread reads
// neither with a tap nor with a step, and only in a copy (one operand, join x, every label
// of it once in the output), whose kernel writes the rows it reads spread apart.
void addSteps(const Node& node, const EinsumSpec& spec, const std::vector<std::map<Label, const DocAffineWindow*>>& taps,
              const std::string& owner, NodeWindows& w) {
  bool stepped = false, spread = false;
  constexpr int64_t kLimit = int64_t{1} << 20;
  for (const auto& t : taps)
    for (const auto& [label, a] : t) {
      for (const DocInteger* v : {&a->step, &a->spread})
        if (v->value < 1 || v->value > kLimit)
          throw InputError({v->loc, owner + ": the " + (v == &a->step ? "step" : "spread") + " of the window of label " +
                                        quoted(label) + " is " + std::to_string(v->value) + "; it must be within 1 .. 2^20"});
      if (a->spread.value > 1 && (!a->label.text.empty() || a->step.value > 1))
        throw InputError({a->spread.loc, owner + ": the window of label " + quoted(label) + " has a spread and a " +
                                             (a->label.text.empty() ? "step" : "tap label") +
                                             "; a spread window reads (label + offset) / spread alone"});
      stepped = stepped || a->step.value > 1;
      spread = spread || a->spread.value > 1;
    }
  if (spread) {
    const Labels& in = spec.operands[0];
    const bool copy = spec.operands.size() == 1 && node.join == Expr::x() && node.agg == Reduce::Sum &&
                      in.size() == spec.output.size() && std::set<Label>(in.begin(), in.end()).size() == in.size() &&
                      std::set<Label>(in.begin(), in.end()) == std::set<Label>(spec.output.begin(), spec.output.end());
    if (!copy)
      throw InputError({taps[0].empty() ? node.loc : taps[0].begin()->second->spread.loc,
                        owner + ": a window with a spread is read only by a copy (one input, join x, each of its labels "
                                "once in the output, such as \"hw->hw\")"});
  }
  auto fill = [&](std::vector<std::vector<int64_t>>& out, bool any, auto field) {
    if (!any) return;
    out.assign(spec.operands.size(), {});
    for (std::size_t k = 0; k < spec.operands.size(); ++k) {
      bool has = false;
      for (const auto& [label, a] : taps[k]) has = has || field(*a) > 1;
      if (!has) continue;
      for (const Label& l : spec.operands[k]) {
        const auto it = taps[k].find(l);
        out[k].push_back(it == taps[k].end() ? 1 : field(*it->second));
      }
    }
  };
  fill(w.steps, stepped, [](const DocAffineWindow& a) { return a.step.value; });
  fill(w.spreads, spread, [](const DocAffineWindow& a) { return a.spread.value; });
}

}  // namespace

void addWindowMoves(const Node& node, const EinsumSpec& spec, const std::vector<std::map<Label, const DocAffineWindow*>>& taps,
                    const std::string& owner, NodeWindows& w) {
  bool any = false;
  for (const auto& t : taps)
    for (const auto& [label, a] : t) {
      if (a->label.text.empty() && a->dilation.value != 1)
        throw InputError({a->dilation.loc, owner + ": the window of label " + quoted(label) + " has a dilation but no tap "
                                               "label; a dilation spaces a tap's reads ({y: {tap: i, dilation: 2}})"});
      any = any || !a->label.text.empty();
    }
  addSteps(node, spec, taps, owner, w);
  if (!any) return;
  w.taps.assign(spec.operands.size(), {});
  w.dilations.assign(spec.operands.size(), {});
  for (std::size_t k = 0; k < spec.operands.size(); ++k) {
    bool tapped = false;
    for (const auto& [label, a] : taps[k]) tapped = tapped || !a->label.text.empty();
    if (!tapped) continue;
    const Labels& labels = spec.operands[k];
    for (const Label& l : labels) {
      auto it = taps[k].find(l);
      if (it != taps[k].end() && it->second->label.text.empty()) it = taps[k].end();
      w.taps[k].push_back(it == taps[k].end() ? Label{} : it->second->label.text);
      w.dilations[k].push_back(it == taps[k].end() ? 0 : it->second->dilation.value);
      if (it == taps[k].end()) continue;
      const DocAffineWindow& tap = *it->second;
      if (!node.labelSizes.count(tap.label.text))
        throw InputError({tap.label.loc, owner + ": the window of label " + quoted(l) + " names tap label " +
                                             quoted(tap.label.text) + ", which the node's einsum does not use"});
      if (std::find(labels.begin(), labels.end(), tap.label.text) != labels.end())
        throw InputError({tap.label.loc, owner + ": tap label " + quoted(tap.label.text) + " is a label of operand " +
                                             std::to_string(k + 1) + " itself; a tap moves a dimension by another operand's "
                                             "label (a convolution's kernel: {y: {tap: i}} with i in the weights)"});
      constexpr int64_t kLimit = int64_t{1} << 20;
      if (tap.dilation.value == 0 || tap.dilation.value > kLimit || tap.dilation.value < -kLimit)
        throw InputError({tap.dilation.loc, owner + ": the dilation of tap label " + quoted(tap.label.text) + " is " +
                                                std::to_string(tap.dilation.value) + "; it must be nonzero and within +-2^20"});
    }
  }
}

// A node's 'windows' (SPEC 8.1), checked against its lowered einsum: one entry per
// operand, each label one of that operand's, offsets within 2^40. Empty: no windows.
// `taps`: per operand, the labels whose window is more than an offset (a tap label, a
// dilation, a step or a spread).
std::vector<std::map<Label, int64_t>> readNodeWindows(const DocNode& dn, const EinsumSpec& spec, const std::string& owner,
                                                  std::vector<std::map<Label, const DocAffineWindow*>>& taps) {
  if (!dn.windows) return {};
  if (dn.windows->fill && !dn.windows->given)
    throw InputError({dn.windows->fillLoc, owner + " gives a 'fill' but no 'windows'; the fill is what a window reads outside its tensor"});
  if (spec.operands.size() >= 3)
    throw InputError({dn.windows->loc, owner + " has " + std::to_string(spec.operands.size()) +
                                         " inputs; windows are read by nodes of one or two"});
  const auto& docWindows = dn.windows->offsets;
  if (docWindows.size() != spec.operands.size())
    throw InputError({dn.windows->loc, owner + ": 'windows' has " + std::to_string(docWindows.size()) + " entr" +
                                         (docWindows.size() == 1 ? "y" : "ies") + " but the node has " +
                                         std::to_string(spec.operands.size()) + " input" + (spec.operands.size() == 1 ? "" : "s") +
                                         " (one mapping per input; {} for an input read as it is)"});
  if (dn.join && isIndexJoinName(dn.join->text))
    throw InputError({dn.windows->loc, owner + ": a " + dn.join->text + " node reads no operand through a window"});
  std::vector<std::map<Label, int64_t>> windows(docWindows.size());
  taps.assign(docWindows.size(), {});
  for (std::size_t k = 0; k < docWindows.size(); ++k)
    for (std::size_t e = 0; e < docWindows[k].size(); ++e) {
      const DocSize& w = docWindows[k][e];
      if (k < dn.windows->taps.size() && e < dn.windows->taps[k].size()) {
        const DocAffineWindow& a = dn.windows->taps[k][e];
        if (!a.label.text.empty() || a.dilation.value != 1 || a.step.value != 1 || a.spread.value != 1)
          taps[k].emplace(w.label.text, &a);
      }
      const Labels& labels = spec.operands[k];
      if (std::find(labels.begin(), labels.end(), w.label.text) == labels.end())
        throw InputError({w.label.loc, owner + ": 'windows' entry " + std::to_string(k + 1) + " names label " +
                                           quoted(w.label.text) + ", which operand " + std::to_string(k + 1) + " (" +
                                           quoted(dn.inputs[k].text) + ") does not have"});
      constexpr int64_t kLimit = int64_t{1} << 40;
      if (w.size.value > kLimit || w.size.value < -kLimit)
        throw InputError({w.size.loc, owner + ": the window offset " + std::to_string(w.size.value) + " of label " +
                                          quoted(w.label.text) + " is beyond +-2^40"});
      windows[k].emplace(w.label.text, w.size.value);
    }
  return windows;
}

}  // namespace eindecomp
