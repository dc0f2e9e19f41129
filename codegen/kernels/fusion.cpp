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

// Whether nodes [first, last] can run fused over their first k output dimensions (the
// rules in fusion.h).
bool fits(const RankProgram& rp, int first, int last, int k) {
  if (k < 1) return false;
  const NodeProgram& ref = rp.nodes[static_cast<std::size_t>(first)];
  for (int m = first; m <= last; ++m) {
    const NodeProgram& n = rp.nodes[static_cast<std::size_t>(m)];
    if (n.gemm || static_cast<int>(n.outputLabelOfDim.size()) < k) return false;
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
  }
  return true;
}

// The largest k <= limit for which [first, last] fits, or 0.
int largestTileDims(const RankProgram& rp, int first, int last, int limit) {
  for (int k = limit; k >= 1; --k)
    if (fits(rp, first, last, k)) return k;
  return 0;
}

std::string joinedNames(const NodeProgram& n, int k) {
  std::string s;
  for (int q = 0; q < k; ++q) s += (q ? "," : "") + n.labels[static_cast<std::size_t>(n.outputLabelOfDim[static_cast<std::size_t>(q)])];
  return s;
}

void markGroup(RankProgram& rp, int group, int first, int last, int k) {
  std::vector<bool> readOutside(rp.tensors.size(), false);
  for (std::size_t m = 0; m < rp.nodes.size(); ++m)
    if (static_cast<int>(m) < first || static_cast<int>(m) > last)
      for (const OperandProgram& op : rp.nodes[m].operands) readOutside[static_cast<std::size_t>(op.tensor)] = true;
  const std::string span = rp.nodes[static_cast<std::size_t>(first)].name + " .. " + rp.nodes[static_cast<std::size_t>(last)].name;
  for (int m = first; m <= last; ++m) {
    NodeProgram& n = rp.nodes[static_cast<std::size_t>(m)];
    const auto t = static_cast<std::size_t>(n.outputTensor);
    n.fusion = {group, k, !readOutside[t] && !rp.tensors[t].isOutput};
    n.kernel.why = n.kernel.kind + " (" + n.kernel.why + "), fused with " + span + " (" + std::to_string(last - first + 1) +
                   " nodes, one pass over tiles of " + joinedNames(n, k) + ")" +
                   (n.fusion.scratch ? "; output kept in tiles only" : "");
    n.kernel.kind = "fused elementwise";
  }
}

}  // namespace

void chooseFusion(RankProgram& rp) {
  const int count = static_cast<int>(rp.nodes.size());
  int group = 0;
  for (int first = 0; first < count;) {
    const NodeProgram& start = rp.nodes[static_cast<std::size_t>(first)];
    int k = start.gemm ? 0 : largestTileDims(rp, first, first, static_cast<int>(start.outputLabelOfDim.size()));
    int last = first;
    while (k > 0 && last + 1 < count) {
      const int next = largestTileDims(rp, first, last + 1, k);
      if (next == 0) break;
      k = next;
      ++last;
    }
    if (last > first) markGroup(rp, group++, first, last, k);
    first = last + 1;
  }
}

}  // namespace eindecomp::codegen
