#include "planner/paths/internal_layouts.h"

#include <algorithm>
#include <optional>

#include "planner/graph/write_graph.h"
#include "planner/paths/gemm_mapping.h"
#include "planner/graph/graph_index.h"

namespace eindecomp {

namespace {

bool contains(const Labels& ls, const Label& l) { return std::find(ls.begin(), ls.end(), l) != ls.end(); }

// What an order costs a node's GEMM, with whole-tensor extents: the elements its
// permutations move, then (between orders that move as many) the elements of a B operand
// read transposed — the BLAS and LIBXSMM's tiles both run B^T slower (syn's last step,
// 84 x 131072 x 56 with A^T: 103 GFLOP/s with B as stored, 66 with B^T, one thread,
// einrt_bench_gemm_paths). Zero when the node is no GEMM (its generated kernel reads
// any order at the same cost).
struct LayoutCost {
  int64_t permuted = 0, transposedB = 0;
  LayoutCost& operator+=(const LayoutCost& o) {
    permuted += o.permuted;
    transposedB += o.transposedB;
    return *this;
  }
  bool operator<(const LayoutCost& o) const {
    return permuted != o.permuted ? permuted < o.permuted : transposedB < o.transposedB;
  }
};

LayoutCost layoutCost(const Node& n) {
  const std::vector<int64_t> extent = iterationSizes(n);
  auto m = mapContractionToGemm(n, extent);
  if (!m) return {};
  // B as einrt's NodeKernel calls it: Y, or X where Z is computed transposed.
  const bool tz = m->permZ.empty() && m->transZ;
  const bool transB = gemmCallPlanOf(n, *m, extent).call.transB;
  const Labels order = iterationLabels(n);
  int64_t bElements = 1;
  for (const auto& l : n.operandLabels[tz ? 0 : 1])
    bElements *= extent[static_cast<std::size_t>(std::find(order.begin(), order.end(), l) - order.begin())];
  return {m->permutedElements, transB ? bElements : 0};
}

Labels restrictTo(const Labels& order, const Labels& group) {
  Labels out;
  for (const auto& l : order)
    if (contains(group, l)) out.push_back(l);
  return out;
}

Labels concat(const Labels& a, const Labels& b, const Labels& c) {
  Labels out = a;
  out.insert(out.end(), b.begin(), b.end());
  out.insert(out.end(), c.begin(), c.end());
  return out;
}

// The GEMM-friendly orders of `tensor` (labels in `n`'s names) within node `n`, where the
// tensor is operand `operand` (0, 1) or the output (-1).
std::vector<Labels> friendlyOrders(const Node& n, int operand) {
  const Labels& x = n.operandLabels[0];
  const Labels& y = n.operandLabels[1];
  const Labels& z = n.outputLabels;
  Labels c, m, nn, k;
  for (const auto& l : iterationLabels(n)) {
    const bool inX = contains(x, l), inY = contains(y, l), inZ = contains(z, l);
    if (inX && inY && inZ) c.push_back(l);
    else if (inX && inZ) m.push_back(l);
    else if (inY && inZ) nn.push_back(l);
    else if (inX && inY) k.push_back(l);
  }
  // Inner orders from the tensors other than the one being reordered.
  const Labels& other = operand == 0 ? y : x;
  const Labels& groupSource = operand == -1 ? x : z;
  const Labels cOrder = restrictTo(groupSource, c);
  std::vector<Labels> out;
  if (operand == -1) {
    const Labels mOrder = restrictTo(x, m), nOrder = restrictTo(y, nn);
    out = {concat(cOrder, mOrder, nOrder), concat(cOrder, nOrder, mOrder)};
  } else {
    // With Z's first labels promoted to loops as well (gemm_mapping.cpp): those the
    // operand has go first, in Z's order, then its own group and K, either order.
    const Labels& own = operand == 0 ? m : nn;
    const Labels& operandLabels = operand == 0 ? x : y;
    const Labels kOrder = restrictTo(other, k);
    for (std::size_t prefix = 0; prefix == 0 || prefix < z.size(); ++prefix) {
      Labels loops = c;
      for (std::size_t d = 0; d < prefix; ++d)
        if (!contains(loops, z[d])) loops.push_back(z[d]);
      Labels loopOrder = restrictTo(z, loops), ownRest;
      loopOrder = restrictTo(loopOrder, operandLabels);
      for (const auto& l : restrictTo(z, own))
        if (!contains(loops, l)) ownRest.push_back(l);
      if (ownRest.empty() && prefix > 0) break;
      out.push_back(concat(loopOrder, ownRest, kOrder));
      out.push_back(concat(loopOrder, kOrder, ownRest));
    }
  }
  return out;
}

bool binaryContraction(const Node& n) { return n.operandLabels.size() == 2 && isContraction(n); }

// Chooses the order of node i's output where it is an internal step consumed by one
// contraction; true when the order changed.
bool chooseEdgeLayout(Graph& out, const GraphIndex& index, std::size_t i) {
  Node& producer = out.nodes[i];
  if (producer.name.find('.') == std::string::npos || !binaryContraction(producer)) return false;
  if (index.isOutput(producer.name)) return false;
  const std::vector<Use>& uses = index.consumers(producer.name);
  if (uses.size() != 1 || !binaryContraction(out.nodes[uses[0].node])) return false;
  Node& consumer = out.nodes[uses[0].node];
  const int operand = uses[0].operand;
  if (consumer.inputs[0] == consumer.inputs[1]) return false;

  // Candidate orders, as permutations of the producer's output dimensions.
  const Labels current = producer.outputLabels;
  const Labels consumerView = consumer.operandLabels[operand];
  std::vector<std::vector<int>> candidates{{}};
  for (std::size_t d = 0; d < current.size(); ++d) candidates[0].push_back(static_cast<int>(d));
  auto addFromOrder = [&](const Labels& order, const Labels& names) {
    if (order.size() != names.size()) return;
    std::vector<int> perm;
    for (const auto& l : order) perm.push_back(static_cast<int>(std::find(names.begin(), names.end(), l) - names.begin()));
    candidates.push_back(perm);
  };
  for (const auto& o : friendlyOrders(producer, -1)) addFromOrder(o, current);
  for (const auto& o : friendlyOrders(consumer, operand)) addFromOrder(o, consumerView);

  // The current order first: only a strictly cheaper one replaces it.
  std::optional<LayoutCost> best;
  std::vector<int> bestPerm;
  for (const auto& perm : candidates) {
    Node p = producer, c = consumer;
    for (std::size_t d = 0; d < perm.size(); ++d) {
      p.outputLabels[d] = current[perm[d]];
      c.operandLabels[operand][d] = consumerView[perm[d]];
    }
    LayoutCost cost = layoutCost(p);
    cost += layoutCost(c);
    if (!best || cost < *best) {
      best = cost;
      bestPerm = perm;
    }
  }
  bool changed = false;
  for (std::size_t d = 0; d < bestPerm.size(); ++d) {
    changed = changed || bestPerm[d] != static_cast<int>(d);
    producer.outputLabels[d] = current[bestPerm[d]];
    consumer.operandLabels[operand][d] = consumerView[bestPerm[d]];
  }
  producer.einsum = readableEinsum(producer.operandLabels, producer.outputLabels);
  consumer.einsum = readableEinsum(consumer.operandLabels, consumer.outputLabels);
  return changed;
}

}  // namespace

Graph chooseInternalLayouts(const Graph& g) {
  Graph out = g;
  const GraphIndex index(out);  // names, inputs and outputs stay; only label orders change
  // Sweeps until no order changes: an order chosen for one edge changes what suits the
  // edge before it (syn: its last step reads [d g f e i] as stored once its third step
  // writes that order, which the third step does without a permutation once its second
  // writes [b d g e i]). A change lowers the cost of the only two nodes that touch the
  // tensor, so the sweeps end; kMaxSweeps bounds them all the same.
  constexpr int kMaxSweeps = 8;
  bool changed = true;
  for (int sweep = 0; sweep < kMaxSweeps && changed; ++sweep) {
    changed = false;
    for (std::size_t i = 0; i < out.nodes.size(); ++i) changed = chooseEdgeLayout(out, index, i) || changed;
  }
  return out;
}

}  // namespace eindecomp
