#include "planner/fusion/fusion.h"

#include <algorithm>

#include <einrt/block_grid.h>

#include "planner/graph/graph_index.h"
#include "planner/paths/gemm_mapping.h"

namespace eindecomp {

namespace {

// What the rules need of a node, in iteration-label indices.
struct FusionNode {
  std::vector<int64_t> sizes, parts;
  std::vector<int> outputLabelOfDim;
  struct Operand {
    int producer = -1;  // node index, -1 for graph inputs
    std::vector<int> labelOfDim;
  };
  std::vector<Operand> operands;
  bool fusible = false;  // no GEMM, no permutation
  const std::vector<int>* callRank = nullptr;
  const std::vector<int>* blockOwner = nullptr;
};

int labelIndex(const Labels& labels, const Label& l) {
  return static_cast<int>(std::find(labels.begin(), labels.end(), l) - labels.begin());
}

// The rank running the call of `n` that writes output block `block`, when only the group
// dimensions (the first k output dimensions) are cut.
// (The block's coordinates over the group dimensions, row-major, each at its label's
// stride in the row-major call grid; the other labels are uncut. No allocation: it runs
// for every block of every candidate member.)
int rankOfBlock(const FusionNode& n, int k, int64_t block) {
  int64_t call = 0;
  for (int q = k; q-- > 0;) {
    const auto label = static_cast<std::size_t>(n.outputLabelOfDim[static_cast<std::size_t>(q)]);
    const int64_t coordinate = block % n.parts[label];
    block /= n.parts[label];
    int64_t stride = 1;
    for (std::size_t l = label + 1; l < n.parts.size(); ++l) stride *= n.parts[l];
    call += coordinate * stride;
  }
  return (*n.callRank)[static_cast<std::size_t>(call)];
}

// Whether member m (of a group starting at `first`) can run fused with the group's first
// node over their first k output dimensions (the rules in fusion.h).
bool memberFits(const std::vector<FusionNode>& nodes, int first, int m, int k) {
  const FusionNode& ref = nodes[static_cast<std::size_t>(first)];
  const FusionNode& n = nodes[static_cast<std::size_t>(m)];
  if (k < 1 || !n.fusible || static_cast<int>(n.outputLabelOfDim.size()) < k) return false;
  std::vector<bool> isGroup(n.sizes.size(), false);
  for (int q = 0; q < k; ++q) {
    const auto l = static_cast<std::size_t>(n.outputLabelOfDim[static_cast<std::size_t>(q)]);
    const auto r = static_cast<std::size_t>(ref.outputLabelOfDim[static_cast<std::size_t>(q)]);
    if (n.sizes[l] != ref.sizes[r] || n.parts[l] != ref.parts[r]) return false;
    isGroup[l] = true;
  }
  for (std::size_t l = 0; l < n.sizes.size(); ++l)
    if (!isGroup[l] && n.parts[l] != 1) return false;
  for (const FusionNode::Operand& op : n.operands) {
    if (op.producer < first || op.producer >= m) continue;  // read from outside the group
    if (static_cast<int>(op.labelOfDim.size()) < k) return false;
    for (std::size_t d = 0; d < op.labelOfDim.size(); ++d) {
      const bool group = isGroup[static_cast<std::size_t>(op.labelOfDim[d])];
      if (static_cast<int>(d) < k ? op.labelOfDim[d] != n.outputLabelOfDim[d] : group) return false;
    }
  }
  const auto blocks = static_cast<int64_t>(n.blockOwner->size());
  for (int64_t b = 0; b < blocks; ++b) {
    const int rank = rankOfBlock(n, k, b);
    if (rank != rankOfBlock(ref, k, b) || (*n.blockOwner)[static_cast<std::size_t>(b)] != rank) return false;
  }
  return true;
}

bool groupFits(const std::vector<FusionNode>& nodes, int first, int last, int k) {
  for (int m = first; m <= last; ++m)
    if (!memberFits(nodes, first, m, k)) return false;
  return true;
}

}  // namespace

Fusion chooseFusion(const Graph& g, const Plan& plan) {
  const GraphIndex index(g);
  const int count = static_cast<int>(g.nodes.size());
  std::vector<FusionNode> nodes(static_cast<std::size_t>(count));
  std::vector<int> lastReader(static_cast<std::size_t>(count), -1);
  std::vector<bool> isOutput(static_cast<std::size_t>(count), false);
  for (const std::string& o : g.outputs) isOutput[static_cast<std::size_t>(index.nodeIndex(o))] = true;
  for (int i = 0; i < count; ++i) {
    const Node& node = g.nodes[static_cast<std::size_t>(i)];
    const NodePlan& np = plan.nodes[static_cast<std::size_t>(i)];
    FusionNode& n = nodes[static_cast<std::size_t>(i)];
    n.sizes = iterationSizes(node);
    n.parts = np.parts;
    for (const auto& l : node.outputLabels) n.outputLabelOfDim.push_back(labelIndex(np.labels, l));
    for (std::size_t k = 0; k < node.inputs.size(); ++k) {
      FusionNode::Operand op;
      op.producer = index.findInput(node.inputs[k]) ? -1 : index.nodeIndex(node.inputs[k]);
      for (const auto& l : node.operandLabels[k]) op.labelOfDim.push_back(labelIndex(np.labels, l));
      if (op.producer >= 0) lastReader[static_cast<std::size_t>(op.producer)] = i;
      n.operands.push_back(std::move(op));
    }
    n.fusible = !runsAsGemm(node) && !permutationOrder(node);
    n.callRank = &np.placement.callRank;
    n.blockOwner = &np.placement.blockOwner;
  }
  Fusion f;
  f.nodes.resize(static_cast<std::size_t>(count));
  for (int first = 0; first < count;) {
    const FusionNode& start = nodes[static_cast<std::size_t>(first)];
    int k = start.fusible ? static_cast<int>(start.outputLabelOfDim.size()) : 0;
    while (k > 0 && !memberFits(nodes, first, first, k)) --k;
    int last = first;
    // Grow the group while the next node fits. k only shrinks, and only then are the
    // members checked again (at most once per dimension): a long chain takes linear time.
    while (k > 0 && last + 1 < count) {
      int next = k;
      while (next > 0 && !(memberFits(nodes, first, last + 1, next) && (next == k || groupFits(nodes, first, last, next)))) --next;
      if (next == 0) break;
      k = next;
      ++last;
    }
    if (last > first) {
      const int group = static_cast<int>(f.groups.size());
      f.groups.push_back({first, last});
      // Readers come after their producer, so all of them lie in the group when the last does.
      for (int m = first; m <= last; ++m)
        f.nodes[static_cast<std::size_t>(m)] = {group, k, lastReader[static_cast<std::size_t>(m)] <= last && !isOutput[static_cast<std::size_t>(m)]};
    }
    first = last + 1;
  }
  return f;
}

}  // namespace eindecomp
