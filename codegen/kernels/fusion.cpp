#include "codegen/kernels/fusion.h"

#include <algorithm>

#include <einrt/block_grid.h>

namespace eindecomp::codegen {

namespace {

int producerOf(const RankProgram& rp, int tensor) { return rp.tensors[static_cast<std::size_t>(tensor)].producer; }

// The rank running the call of `n` that writes output block `block`, when only the group
// dimensions (the first k output dimensions) are cut.
int rankOfBlock(const NodeProgram& n, int k, int64_t block) {
  std::vector<int64_t> groupParts;
  for (int q = 0; q < k; ++q)
    groupParts.push_back(n.parts[static_cast<std::size_t>(n.outputLabelOfDim[static_cast<std::size_t>(q)])]);
  const einrt::BlockGrid grid{groupParts, groupParts};
  const std::vector<int64_t> coords = grid.coords(block);
  std::vector<int64_t> cell(n.parts.size(), 0);
  for (int q = 0; q < k; ++q)
    cell[static_cast<std::size_t>(n.outputLabelOfDim[static_cast<std::size_t>(q)])] = coords[static_cast<std::size_t>(q)];
  int64_t call = 0;
  for (std::size_t l = 0; l < n.parts.size(); ++l) call = call * n.parts[l] + cell[l];
  return n.callRank[static_cast<std::size_t>(call)];
}

// Whether member m (of a group starting at `first`) can run fused with the group's first
// node over their first k output dimensions (the rules in fusion.h).
bool memberFits(const RankProgram& rp, int first, int m, int k) {
  const NodeProgram& ref = rp.nodes[static_cast<std::size_t>(first)];
  const NodeProgram& n = rp.nodes[static_cast<std::size_t>(m)];
  if (k < 1 || n.gemm || !n.kernel.permutation.empty() || static_cast<int>(n.outputLabelOfDim.size()) < k) return false;
  std::vector<bool> isGroup(n.labels.size(), false);
  for (int q = 0; q < k; ++q) {
    const auto l = static_cast<std::size_t>(n.outputLabelOfDim[static_cast<std::size_t>(q)]);
    const auto r = static_cast<std::size_t>(ref.outputLabelOfDim[static_cast<std::size_t>(q)]);
    if (n.sizes[l] != ref.sizes[r] || n.parts[l] != ref.parts[r]) return false;
    isGroup[l] = true;
  }
  for (std::size_t l = 0; l < n.labels.size(); ++l)
    if (!isGroup[l] && n.parts[l] != 1) return false;
  for (const OperandProgram& op : n.operands) {
    const int p = producerOf(rp, op.tensor);
    if (p < first || p >= m) continue;  // read from outside the group
    if (static_cast<int>(op.labelOfDim.size()) < k) return false;
    for (std::size_t d = 0; d < op.labelOfDim.size(); ++d) {
      const bool group = isGroup[static_cast<std::size_t>(op.labelOfDim[d])];
      if (static_cast<int>(d) < k ? op.labelOfDim[d] != n.outputLabelOfDim[d] : group) return false;
    }
  }
  const int64_t blocks = static_cast<int64_t>(n.blockOwner.size());
  for (int64_t b = 0; b < blocks; ++b) {
    const int rank = rankOfBlock(n, k, b);
    if (rank != rankOfBlock(ref, k, b) || n.blockOwner[static_cast<std::size_t>(b)] != rank) return false;
  }
  return true;
}

bool groupFits(const RankProgram& rp, int first, int last, int k) {
  for (int m = first; m <= last; ++m)
    if (!memberFits(rp, first, m, k)) return false;
  return true;
}

std::string joinedNames(const NodeProgram& n, int k) {
  std::string s;
  for (int q = 0; q < k; ++q) s += (q ? "," : "") + n.labels[static_cast<std::size_t>(n.outputLabelOfDim[static_cast<std::size_t>(q)])];
  return s;
}

// `lastReader[t]`: the last node reading tensor t (-1: none).
void markGroup(RankProgram& rp, const std::vector<int>& lastReader, int group, int first, int last, int k) {
  const std::string span = rp.nodes[static_cast<std::size_t>(first)].name + " .. " + rp.nodes[static_cast<std::size_t>(last)].name;
  for (int m = first; m <= last; ++m) {
    NodeProgram& n = rp.nodes[static_cast<std::size_t>(m)];
    const auto t = static_cast<std::size_t>(n.outputTensor);
    // Readers come after their producer, so all of them lie in the group when the last does.
    n.fusion = {group, k, lastReader[t] <= last && !rp.tensors[t].isOutput};
    n.kernel.why = n.kernel.kind + " (" + n.kernel.why + "), fused with " + span + " (" + std::to_string(last - first + 1) +
                   " nodes, one pass over tiles of " + joinedNames(n, k) + ")" +
                   (n.fusion.scratch ? "; output kept in tiles only" : "");
    n.kernel.kind = "fused elementwise";
  }
}

}  // namespace

void chooseFusion(RankProgram& rp) {
  const int count = static_cast<int>(rp.nodes.size());
  std::vector<int> lastReader(rp.tensors.size(), -1);
  for (int m = 0; m < count; ++m)
    for (const OperandProgram& op : rp.nodes[static_cast<std::size_t>(m)].operands) lastReader[static_cast<std::size_t>(op.tensor)] = m;
  int group = 0;
  for (int first = 0; first < count;) {
    const NodeProgram& start = rp.nodes[static_cast<std::size_t>(first)];
    int k = start.gemm ? 0 : static_cast<int>(start.outputLabelOfDim.size());
    while (k > 0 && !memberFits(rp, first, first, k)) --k;
    int last = first;
    // Grow the group while the next node fits. k only shrinks, and only then are the
    // members checked again (at most once per dimension): a long chain takes linear time.
    while (k > 0 && last + 1 < count) {
      int next = k;
      while (next > 0 && !(memberFits(rp, first, last + 1, next) && (next == k || groupFits(rp, first, last, next)))) --next;
      if (next == 0) break;
      k = next;
      ++last;
    }
    if (last > first) markGroup(rp, lastReader, group++, first, last, k);
    first = last + 1;
  }
}

}  // namespace eindecomp::codegen
