#include "planner/paths/internal_layouts.h"

#include <algorithm>
#include <limits>

#include "planner/graph/write_graph.h"
#include "planner/paths/gemm_mapping.h"
#include "planner/graph/graph_index.h"

namespace eindecomp {

namespace {

bool contains(const Labels& ls, const Label& l) { return std::find(ls.begin(), ls.end(), l) != ls.end(); }

// Permuted elements of a node's GEMM with whole-tensor extents; 0 when it is no GEMM
// (the generated kernel reads any order at the same cost).
int64_t permutationCost(const Node& n) {
  auto m = mapContractionToGemm(n, iterationSizes(n));
  return m ? m->permutedElements : 0;
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
    const Labels& own = operand == 0 ? m : nn;
    const Labels ownOrder = restrictTo(z, own), kOrder = restrictTo(other, k);
    out = {concat(cOrder, ownOrder, kOrder), concat(cOrder, kOrder, ownOrder)};
  }
  return out;
}

bool binaryContraction(const Node& n) { return n.operandLabels.size() == 2 && isContraction(n); }

}  // namespace

Graph chooseInternalLayouts(const Graph& g) {
  Graph out = g;
  const GraphIndex index(out);  // names, inputs and outputs stay; only label orders change
  for (std::size_t i = 0; i < out.nodes.size(); ++i) {
    Node& producer = out.nodes[i];
    if (producer.name.find('.') == std::string::npos || !binaryContraction(producer)) continue;
    if (index.isOutput(producer.name)) continue;
    const std::vector<Use>& uses = index.consumers(producer.name);
    if (uses.size() != 1 || !binaryContraction(out.nodes[uses[0].node])) continue;
    Node& consumer = out.nodes[uses[0].node];
    const int operand = uses[0].operand;
    if (consumer.inputs[0] == consumer.inputs[1]) continue;

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

    int64_t best = std::numeric_limits<int64_t>::max();
    std::vector<int> bestPerm;
    for (const auto& perm : candidates) {
      Node p = producer, c = consumer;
      for (std::size_t d = 0; d < perm.size(); ++d) {
        p.outputLabels[d] = current[perm[d]];
        c.operandLabels[operand][d] = consumerView[perm[d]];
      }
      const int64_t cost = permutationCost(p) + permutationCost(c);
      if (cost < best) {
        best = cost;
        bestPerm = perm;
      }
    }
    for (std::size_t d = 0; d < bestPerm.size(); ++d) {
      producer.outputLabels[d] = current[bestPerm[d]];
      consumer.operandLabels[operand][d] = consumerView[bestPerm[d]];
    }
    producer.einsum = readableEinsum(producer.operandLabels, producer.outputLabels);
    consumer.einsum = readableEinsum(consumer.operandLabels, consumer.outputLabels);
  }
  return out;
}

}  // namespace eindecomp
