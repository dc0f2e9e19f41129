#include "planner/placement/placement.h"

#include <algorithm>
#include <tuple>

#include "planner/placement/assignment.h"

namespace eindecomp {

const char* placementRuleName(PlacementRule rule) { return rule == PlacementRule::Canonical ? "canonical" : "matched"; }

Placement canonicalPlacement(const CallGeometry& g) {
  Placement p;
  const int64_t blocks = g.outputGrid.blockCount();
  p.callRank.resize(static_cast<std::size_t>(g.calls));
  for (std::size_t c = 0; c < p.callRank.size(); ++c)
    p.callRank[c] = static_cast<int>(g.aggCoordinate[c] * blocks + g.outputBlock[c]);
  p.blockOwner = ownersOfBlocks(g, p.callRank);
  return p;
}

std::vector<int> ownersOfBlocks(const CallGeometry& g, const std::vector<int>& callRank) {
  const auto blocks = static_cast<std::size_t>(g.outputGrid.blockCount());
  std::vector<int> owner(blocks, -1);
  std::vector<int64_t> lowest(blocks, -1);
  for (std::size_t c = 0; c < callRank.size(); ++c) {
    const auto b = static_cast<std::size_t>(g.outputBlock[c]);
    if (lowest[b] < 0 || g.aggCoordinate[c] < lowest[b]) {
      lowest[b] = g.aggCoordinate[c];
      owner[b] = callRank[c];
    }
  }
  return owner;
}

namespace {

// Operand elements a call finds already on some ranks: (rank, elements) pairs, few per
// call (the owners of the producer blocks its operand blocks overlap).
using RankElements = std::vector<std::pair<int, int64_t>>;

int64_t elementsOn(const RankElements& list, int rank) {
  for (const auto& [r, elements] : list)
    if (r == rank) return elements;
  return 0;
}

// benefit[c]: rank -> operand elements call c finds already on that rank.
std::vector<RankElements> localElements(const CallGeometry& g,
                                                  const std::vector<std::optional<ProducerBlocks>>& producers) {
  std::vector<RankElements> benefit(static_cast<std::size_t>(g.calls));
  for (std::size_t k = 0; k < producers.size(); ++k) {
    if (!producers[k]) continue;
    const einrt::BlockGrid& need = g.operandGrid[k];
    for (std::size_t c = 0; c < benefit.size(); ++c)
      einrt::forEachOverlap(need, g.operandBlock[k][c], producers[k]->grid, [&](int64_t block, int64_t elements) {
        const int owner = producers[k]->owner[static_cast<std::size_t>(block)];
        auto it = std::find_if(benefit[c].begin(), benefit[c].end(), [&](const auto& e) { return e.first == owner; });
        if (it == benefit[c].end()) benefit[c].emplace_back(owner, elements);
        else it->second += elements;
      });
  }
  return benefit;
}

// True when every call finds all of its operands from producers on its canonical rank.
bool receivesNothing(const CallGeometry& g, const std::vector<std::optional<ProducerBlocks>>& producers,
                     const std::vector<RankElements>& benefit, const std::vector<int>& rank) {
  int64_t needed = 0;
  for (std::size_t k = 0; k < producers.size(); ++k)
    if (producers[k]) needed += g.operandGrid[k].blockElements();
  for (std::size_t c = 0; c < benefit.size(); ++c) {
    if (elementsOn(benefit[c], rank[c]) != needed) return false;
  }
  return true;
}

// What call c pays on each rank: received elements, those from other nodes weighted.
// (need - on rank) + (weight - 1) * (need - on the rank's node), from the sparse
// benefit list: ranks that hold nothing of the call's operands pay the same as each
// other within a node.
class ReceiveCost {
 public:
  ReceiveCost(const std::vector<RankElements>& benefit, const LinkWeights& links) : benefit_(benefit), links_(links) {
    for (const auto& b : benefit)
      for (const auto& [rank, elements] : b) most_ = std::max(most_, elements);
    if (links.interNodeWeight > 1) {
      onNode_.resize(benefit.size());
      for (std::size_t c = 0; c < benefit.size(); ++c)
        for (const auto& [rank, elements] : benefit[c]) {
          const int64_t node = links.nodes.nodeOf(rank);
          auto it = std::find_if(onNode_[c].begin(), onNode_[c].end(), [&](const auto& e) { return e.first == node; });
          if (it == onNode_[c].end()) onNode_[c].emplace_back(node, elements);
          else it->second += elements;
        }
    }
  }
  // Non-negative: `most` stands in for the call's need (the largest benefit of any call).
  int64_t operator()(std::size_t call, int rank) const {
    int64_t cost = most_ - elementsOn(benefit_[call], rank);
    if (!onNode_.empty()) {
      const int64_t node = links_.nodes.nodeOf(rank);
      int64_t held = 0;
      for (const auto& [n, elements] : onNode_[call])
        if (n == node) held = elements;
      cost += (links_.interNodeWeight - 1) * (most_ - held);
    }
    return cost;
  }
  // The nodes holding some of the call's operands (cluster only).
  const std::vector<std::pair<int64_t, int64_t>>& nodesOf(std::size_t call) const { return onNode_[call]; }
  bool weighted() const { return !onNode_.empty(); }

 private:
  const std::vector<RankElements>& benefit_;
  LinkWeights links_;
  int64_t most_ = 0;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> onNode_;  // [call]: (node, elements)
};

// Exact: minimise the weighted received elements, then distance from the canonical rank
// (lexicographic).
std::vector<int> exactAssignment(const ReceiveCost& receive, std::size_t calls, const std::vector<int>& canonical,
                                 int64_t devices) {
  // The tie-break (0 or 1 per call) never outweighs one element.
  const int64_t scale = static_cast<int64_t>(calls) + 1;
  std::vector<std::vector<int64_t>> cost(calls, std::vector<int64_t>(static_cast<std::size_t>(devices)));
  for (std::size_t c = 0; c < calls; ++c)
    for (int r = 0; r < devices; ++r) cost[c][static_cast<std::size_t>(r)] = receive(c, r) * scale + (r == canonical[c] ? 0 : 1);
  return solveAssignment(cost);
}

// Greedy for many calls: the cheapest (call, rank) pairs among the ranks holding data of
// the call (and, on a cluster, every rank of a node holding some) first, then the
// canonical rank where it is free, then the lowest free rank.
std::vector<int> greedyAssignment(const std::vector<RankElements>& benefit, const ReceiveCost& receive,
                                  const std::vector<int>& canonical, const LinkWeights& links, int64_t devices) {
  std::vector<std::tuple<int64_t, int, int>> pairs;  // (cost, call, rank)
  for (std::size_t c = 0; c < benefit.size(); ++c) {
    if (receive.weighted()) {
      for (const auto& [node, elements] : receive.nodesOf(c)) {
        const int64_t first = node * links.nodes.ranksPerNode, end = std::min(first + links.nodes.ranksPerNode, devices);
        for (int64_t r = first; r < end; ++r) pairs.emplace_back(receive(c, static_cast<int>(r)), static_cast<int>(c), static_cast<int>(r));
      }
      continue;
    }
    for (const auto& [rank, elements] : benefit[c])
      if (elements > 0) pairs.emplace_back(receive(c, rank), static_cast<int>(c), rank);
  }
  std::sort(pairs.begin(), pairs.end());
  std::vector<int> rankOf(benefit.size(), -1);
  std::vector<char> taken(static_cast<std::size_t>(devices), 0);
  for (const auto& [cost, call, rank] : pairs) {
    if (rankOf[static_cast<std::size_t>(call)] >= 0 || taken[static_cast<std::size_t>(rank)]) continue;
    rankOf[static_cast<std::size_t>(call)] = rank;
    taken[static_cast<std::size_t>(rank)] = 1;
  }
  std::size_t nextFree = 0;
  for (std::size_t c = 0; c < rankOf.size(); ++c) {
    if (rankOf[c] >= 0) continue;
    int r = canonical[c];
    if (taken[static_cast<std::size_t>(r)]) {
      while (taken[nextFree]) ++nextFree;
      r = static_cast<int>(nextFree);
    }
    rankOf[c] = r;
    taken[static_cast<std::size_t>(r)] = 1;
  }
  return rankOf;
}

}  // namespace

Placement matchedPlacement(const CallGeometry& g, const std::vector<std::optional<ProducerBlocks>>& producers,
                           int64_t devices, const LinkWeights& links) {
  const Placement canonical = canonicalPlacement(g);
  const bool anyProducer = std::any_of(producers.begin(), producers.end(), [](const auto& p) { return p.has_value(); });
  if (!anyProducer) return canonical;
  const std::vector<RankElements> benefit = localElements(g, producers);
  if (receivesNothing(g, producers, benefit, canonical.callRank)) return canonical;  // nothing to improve
  const ReceiveCost receive(benefit, links.nodes.spansNodes(devices) ? links : LinkWeights{});
  Placement p;
  p.callRank = g.calls <= kExactAssignmentCalls && devices <= 4 * kExactAssignmentCalls
                   ? exactAssignment(receive, benefit.size(), canonical.callRank, devices)
                   : greedyAssignment(benefit, receive, canonical.callRank, links, devices);
  p.blockOwner = ownersOfBlocks(g, p.callRank);
  return p;
}

std::string placementProblem(const std::vector<int64_t>& callRank, int64_t calls, int64_t devices) {
  if (static_cast<int64_t>(callRank.size()) != calls)
    return "gives " + std::to_string(callRank.size()) + " ranks for " + std::to_string(calls) + " kernel calls";
  for (std::size_t c = 0; c < callRank.size(); ++c)
    if (callRank[c] < 0 || callRank[c] >= devices)
      return "places call " + std::to_string(c) + " on rank " + std::to_string(callRank[c]) + ", outside 0.." +
             std::to_string(devices - 1);
  return "";
}

}  // namespace eindecomp
