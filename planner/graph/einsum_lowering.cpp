#include "planner/graph/einsum_lowering.h"

#include <algorithm>
#include <map>
#include <set>

#include "planner/graph/identifiers.h"

namespace eindecomp {

namespace {

// A label name the node does not use: `stem` + index, with more leading underscores if needed.
std::string freshLabel(const std::set<Label>& used, const std::string& stem, int index) {
  std::string prefix = stem;
  for (;;) {
    const std::string name = prefix + std::to_string(index);
    if (!used.count(name)) return name;
    prefix = "_" + prefix;
  }
}

}  // namespace

void lowerEinsum(EinsumSpec& spec, const std::vector<std::vector<int64_t>>& shapes, const DocText& einsum,
                 const std::string& owner) {
  std::set<Label> used;
  for (const auto& op : spec.operands) used.insert(op.begin(), op.end());
  used.insert(spec.output.begin(), spec.output.end());

  // The ellipsis: its rank per operand, the broadcast rank, the labels.
  std::size_t broadcastRank = 0;
  std::vector<std::size_t> ellipsisRank(spec.operands.size(), 0);
  for (std::size_t k = 0; k < spec.operands.size() && k < shapes.size(); ++k) {
    if (spec.operandEllipsis[k] < 0) continue;
    const std::size_t named = spec.operands[k].size();
    if (shapes[k].size() < named)
      throw InputError({locInText(einsum, spec.operandEllipsisOffsets[k]),
                        owner + ": operand " + std::to_string(k + 1) + " names " + std::to_string(named) +
                            " dimensions besides '...' but its tensor has rank " + std::to_string(shapes[k].size()) +
                            " (NumPy: the ellipsis stands for zero or more dimensions, never fewer than none)"});
    ellipsisRank[k] = shapes[k].size() - named;
    broadcastRank = std::max(broadcastRank, ellipsisRank[k]);
  }
  std::vector<Label> ellipsisLabels;
  for (std::size_t j = 0; j < broadcastRank; ++j) {
    ellipsisLabels.push_back(freshLabel(used, "__e", static_cast<int>(j)));
    used.insert(ellipsisLabels.back());
  }
  for (std::size_t k = 0; k < spec.operands.size(); ++k) {
    if (spec.operandEllipsis[k] < 0) continue;
    const auto at = static_cast<std::ptrdiff_t>(spec.operandEllipsis[k]);
    Labels& labels = spec.operands[k];
    std::vector<std::size_t>& offsets = spec.operandOffsets[k];
    // Aligned from the right: an operand with fewer ellipsis dimensions takes the last ones.
    const auto first = ellipsisLabels.end() - static_cast<std::ptrdiff_t>(ellipsisRank[k]);
    labels.insert(labels.begin() + at, first, ellipsisLabels.end());
    offsets.insert(offsets.begin() + at, ellipsisRank[k], spec.operandEllipsisOffsets[k]);
    spec.operandEllipsis[k] = -1;
  }
  if (spec.outputEllipsis < 0 && !spec.implicitOutput && broadcastRank > 0)
    throw InputError({locInText(einsum, einsum.text.size()),
                      owner + ": the operands' '...' stands for " + std::to_string(broadcastRank) +
                          " dimension(s) but the output has no '...' (NumPy refuses this too: write '...' in the "
                          "output, or name the dimensions and leave them out of it to sum them)"});
  if (spec.outputEllipsis >= 0) {
    const auto at = static_cast<std::ptrdiff_t>(spec.outputEllipsis);
    const std::size_t offset = spec.outputOffsets.empty() ? 0 : spec.outputOffsets[std::min<std::size_t>(static_cast<std::size_t>(at), spec.outputOffsets.size() - 1)];
    spec.output.insert(spec.output.begin() + at, ellipsisLabels.begin(), ellipsisLabels.end());
    spec.outputOffsets.insert(spec.outputOffsets.begin() + at, ellipsisLabels.size(), offset);
    spec.outputEllipsis = -1;
  }

  // Size-1 broadcasting: a size-1 dimension of a label that is larger elsewhere gets a
  // label of its own (only where the shapes are known and the ranks match; the caller
  // reports a rank mismatch).
  std::map<Label, int64_t> largest;
  for (std::size_t k = 0; k < spec.operands.size() && k < shapes.size(); ++k)
    if (spec.operands[k].size() == shapes[k].size())
      for (std::size_t d = 0; d < shapes[k].size(); ++d) {
        int64_t& l = largest[spec.operands[k][d]];
        l = std::max(l, shapes[k][d]);
      }
  // A label repeated within an operand (a diagonal) broadcasts where every one of its
  // dimensions there has size 1 (NumPy: 'cacc,bcb->' with c of size 1 in the first
  // operand and 4 in the second), all of them under one new label; where only some are 1
  // its sizes disagree, which the caller reports.
  int broadcasts = 0;
  for (std::size_t k = 0; k < spec.operands.size() && k < shapes.size(); ++k) {
    if (spec.operands[k].size() != shapes[k].size()) continue;
    Labels& labels = spec.operands[k];
    const Labels original = labels;
    std::map<Label, Label> renamed;
    for (std::size_t d = 0; d < shapes[k].size(); ++d) {
      const Label& l = original[d];
      if (shapes[k][d] != 1 || largest[l] <= 1) continue;
      bool allOne = true;
      for (std::size_t e = 0; e < original.size(); ++e) allOne = allOne && (original[e] != l || shapes[k][e] == 1);
      if (!allOne) continue;
      auto [it, added] = renamed.emplace(l, Label());
      if (added) {
        it->second = freshLabel(used, "__b", broadcasts++);
        used.insert(it->second);
      }
      labels[d] = it->second;
    }
  }
}

}  // namespace eindecomp
