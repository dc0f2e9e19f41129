#include "planner/fusion/fusion.h"

#include <algorithm>

#include <einrt/block_grid.h>

#include "planner/graph/graph_index.h"
#include "planner/graph/micro_batches.h"
#include "planner/graph/node_space.h"
#include "planner/graph/tensor_types.h"
#include "planner/paths/gemm_mapping.h"

namespace eindecomp {

namespace {

// What the rules need of a node, in iteration-label indices.
struct FusionNode : einrt::model::NodeShape {  // the node's positional form (node_space.h)
  std::vector<int64_t> parts;
  std::vector<int> producer;  // per operand: node index, -1 for graph inputs
  bool fusible = false;  // no GEMM, no permutation
  const std::vector<int>* callRank = nullptr;
  const std::vector<int>* blockOwner = nullptr;
};

// The stride in the row-major call grid of each of n's first k output labels (the group
// dimensions): with only those cut, output block b's call is the sum of its coordinates
// over them times these.
std::vector<int64_t> groupStrides(const FusionNode& n, int k) {
  std::vector<int64_t> strides(static_cast<std::size_t>(k));
  for (int q = 0; q < k; ++q) {
    const auto label = static_cast<std::size_t>(n.outputLabels[static_cast<std::size_t>(q)]);
    int64_t stride = 1;
    for (std::size_t l = label + 1; l < n.parts.size(); ++l) stride *= n.parts[l];
    strides[static_cast<std::size_t>(q)] = stride;
  }
  return strides;
}

// Whether member m (of a group starting at `first`) can run fused with the group's first
// node over their first k output dimensions (the rules in fusion.h).
bool memberFits(const std::vector<FusionNode>& nodes, int first, int m, int k) {
  const FusionNode& ref = nodes[static_cast<std::size_t>(first)];
  const FusionNode& n = nodes[static_cast<std::size_t>(m)];
  if (k < 1 || !n.fusible || static_cast<int>(n.outputLabels.size()) < k) return false;
  std::vector<bool> isGroup(n.sizes.size(), false);
  for (int q = 0; q < k; ++q) {
    const auto l = static_cast<std::size_t>(n.outputLabels[static_cast<std::size_t>(q)]);
    const auto r = static_cast<std::size_t>(ref.outputLabels[static_cast<std::size_t>(q)]);
    if (n.sizes[l] != ref.sizes[r] || n.parts[l] != ref.parts[r]) return false;
    isGroup[l] = true;
  }
  for (std::size_t l = 0; l < n.sizes.size(); ++l)
    if (!isGroup[l] && n.parts[l] != 1) return false;
  for (std::size_t o = 0; o < n.producer.size(); ++o) {
    if (n.producer[o] < first || n.producer[o] >= m) continue;  // read from outside the group
    const std::vector<int>& dims = n.operandLabels[o];
    if (static_cast<int>(dims.size()) < k) return false;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const bool group = isGroup[static_cast<std::size_t>(dims[d])];
      if (static_cast<int>(d) < k ? dims[d] != n.outputLabels[d] : group) return false;
    }
  }
  // Every output block written on the rank the group's first node writes it on, and kept
  // there. (The group dimensions' parts are the same in both, checked above; the block's
  // coordinates are row-major over them. It runs for every block of every candidate
  // member: no allocation in the loop.)
  const std::vector<int64_t> strideN = groupStrides(n, k), strideRef = groupStrides(ref, k);
  std::vector<int64_t> parts(static_cast<std::size_t>(k));
  for (int q = 0; q < k; ++q) parts[static_cast<std::size_t>(q)] = n.parts[static_cast<std::size_t>(n.outputLabels[static_cast<std::size_t>(q)])];
  const auto blocks = static_cast<int64_t>(n.blockOwner->size());
  for (int64_t b = 0; b < blocks; ++b) {
    int64_t callN = 0, callRef = 0, rest = b;
    for (std::size_t q = static_cast<std::size_t>(k); q-- > 0;) {
      const int64_t coordinate = rest % parts[q];
      rest /= parts[q];
      callN += coordinate * strideN[q];
      callRef += coordinate * strideRef[q];
    }
    const int rank = (*n.callRank)[static_cast<std::size_t>(callN)];
    if (rank != (*ref.callRank)[static_cast<std::size_t>(callRef)] || (*n.blockOwner)[static_cast<std::size_t>(b)] != rank) return false;
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
  // A fused group's tiles are of the graph's type: casts, and nodes of another float type
  // (SPEC 8), run on their own.
  const std::vector<DType> types = nodeOutputTypes(g);
  // Micro-batches (micro_batches.h): an accumulated node's calls add into its sums, and a
  // group runs in one phase only (per micro-batch, once per step, or an invariant run once
  // in the first micro-batch).
  const std::vector<bool> accumulated = accumulatedNodes(g);
  const std::vector<StepPhase> stepPhase = stepPhases(g);
  const std::vector<NodeRuns> runs = nodeRuns(g, plan.invariants());
  std::vector<int> phase(stepPhase.size());
  for (std::size_t i = 0; i < phase.size(); ++i) phase[i] = runs[i].once ? 2 : static_cast<int>(stepPhase[i]);
  std::vector<FusionNode> nodes(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    const Node& node = g.nodes[static_cast<std::size_t>(i)];
    const NodePlan& np = plan.nodes[static_cast<std::size_t>(i)];
    FusionNode& n = nodes[static_cast<std::size_t>(i)];
    static_cast<einrt::model::NodeShape&>(n) = nodeShape(node, np.labels, iterationSizes(node));
    n.parts = np.parts;
    for (const std::string& input : node.inputs) n.producer.push_back(index.findInput(input) ? -1 : index.nodeIndex(input));
    n.fusible = !runsAsGemm(node) && !permutationOrder(node) && !isIndexNode(node) && !node.windows && !node.castTo &&
                types[static_cast<std::size_t>(i)] == g.dtype && !accumulated[static_cast<std::size_t>(i)];
    n.callRank = &np.placement.callRank;
    n.blockOwner = &np.placement.blockOwner;
  }
  Fusion f;
  f.nodes.resize(static_cast<std::size_t>(count));
  for (int first = 0; first < count;) {
    const FusionNode& start = nodes[static_cast<std::size_t>(first)];
    int k = start.fusible ? static_cast<int>(start.outputLabels.size()) : 0;
    while (k > 0 && !memberFits(nodes, first, first, k)) --k;
    int last = first;
    // Grow the group while the next node fits. k only shrinks, and only then are the
    // members checked again (at most once per dimension): a long chain takes linear time.
    while (k > 0 && last + 1 < count && phase[static_cast<std::size_t>(last + 1)] == phase[static_cast<std::size_t>(first)]) {
      int next = k;
      while (next > 0 && !(memberFits(nodes, first, last + 1, next) && (next == k || groupFits(nodes, first, last, next)))) --next;
      if (next == 0) break;
      k = next;
      ++last;
    }
    if (last > first) {
      const int group = static_cast<int>(f.groups.size());
      f.groups.push_back({first, last});
      for (int m = first; m <= last; ++m) f.nodes[static_cast<std::size_t>(m)] = {group, k};
    }
    first = last + 1;
  }
  return f;
}

}  // namespace eindecomp
