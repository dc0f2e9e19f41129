#include "planner/cost/traffic_by_block.h"

#include <algorithm>
#include <tuple>

#include "planner/cost/checked_math.h"

namespace eindecomp {

namespace {

// One link's per-rank sums (RankTally's, traffic.cpp).
struct LinkSums {
  std::vector<int64_t> sent, received, messages;
  explicit LinkSums(int64_t devices)
      : sent(static_cast<std::size_t>(devices), 0), received(sent.size(), 0), messages(sent.size(), 0) {}
  void finish(LinkLoad& load) const {
    for (std::size_t r = 0; r < sent.size(); ++r) {
      load.busiestElements = std::max({load.busiestElements, sent[r], received[r]});
      load.busiestMessages = std::max(load.busiestMessages, messages[r]);
    }
  }
};

// Per node, what one consumer block's owners hold and how many of its readers are there;
// reset node by node after each block (a few nodes of thousands are touched).
struct NodeCounts {
  std::vector<int64_t> elements, owners, readers;
  std::vector<int64_t> touched;
  explicit NodeCounts(int64_t nodes)
      : elements(static_cast<std::size_t>(nodes), 0), owners(elements.size(), 0), readers(elements.size(), 0) {}
  void touch(int64_t node) {
    const auto n = static_cast<std::size_t>(node);
    if (elements[n] == 0 && owners[n] == 0 && readers[n] == 0) touched.push_back(node);
  }
  void clear() {
    for (int64_t n : touched) elements[static_cast<std::size_t>(n)] = owners[static_cast<std::size_t>(n)] = readers[static_cast<std::size_t>(n)] = 0;
    touched.clear();
  }
};

}  // namespace

std::optional<Traffic> perRankTrafficByBlock(const BlockHomes& producer, const einrt::BlockGrid& consumerGrid,
                                             const std::vector<einrt::model::RankBlock>& needs, int64_t devices,
                                             const einrt::RankNodes& nodes) {
  for (std::size_t i = 1; i < needs.size(); ++i)
    if (needs[i].first == needs[i - 1].first) return std::nullopt;
  const char* what = "repartition traffic";
  std::vector<einrt::model::RankBlock> byBlock = needs;  // readers grouped by block
  std::sort(byBlock.begin(), byBlock.end(), [](const auto& a, const auto& b) { return std::tie(a.second, a.first) < std::tie(b.second, b.first); });
  const int64_t nodeCount = nodes.ranksPerNode > 0 ? (devices + nodes.ranksPerNode - 1) / nodes.ranksPerNode : 1;
  LinkSums link[2] = {LinkSums(devices), LinkSums(devices)};  // intra-node, inter-node
  NodeCounts onNode(nodeCount);
  std::vector<int64_t> held(static_cast<std::size_t>(devices), 0);  // per owner: its elements of the block
  std::vector<char> owns(held.size(), 0), reads(held.size(), 0);
  std::vector<int> owners;
  Traffic t;
  for (std::size_t first = 0; first < byBlock.size();) {
    const int64_t block = byBlock[first].second;
    std::size_t end = first;
    while (end < byBlock.size() && byBlock[end].second == block) ++end;
    // The block's pieces, summed by owner (an owner met with no elements still sends a message).
    einrt::forEachOverlap(consumerGrid, block, producer.grid(), [&](int64_t o, int64_t elements) {
      const int owner = producer.owner(o);
      if (!owns[static_cast<std::size_t>(owner)]) {
        owns[static_cast<std::size_t>(owner)] = 1;
        owners.push_back(owner);
      }
      held[static_cast<std::size_t>(owner)] += elements;
    });
    int64_t allElements = 0;
    for (int o : owners) {
      const int64_t n = nodes.nodeOf(o);
      onNode.touch(n);
      onNode.elements[static_cast<std::size_t>(n)] += held[static_cast<std::size_t>(o)];
      ++onNode.owners[static_cast<std::size_t>(n)];
      allElements += held[static_cast<std::size_t>(o)];
    }
    for (std::size_t i = first; i < end; ++i) {
      const int r = byBlock[i].first;
      reads[static_cast<std::size_t>(r)] = 1;
      onNode.touch(nodes.nodeOf(r));
      ++onNode.readers[static_cast<std::size_t>(nodes.nodeOf(r))];
    }
    const auto readers = static_cast<int64_t>(end - first), allOwners = static_cast<int64_t>(owners.size());
    // Each owner sends its elements to every reader but itself: on its node or past it.
    for (int o : owners) {
      const auto so = static_cast<std::size_t>(o);
      const int64_t n = nodes.nodeOf(o), elements = held[so];
      const int64_t near = onNode.readers[static_cast<std::size_t>(n)] - reads[so], far = readers - onNode.readers[static_cast<std::size_t>(n)];
      const int64_t nearElements = checkedMul(elements, near, what), farElements = checkedMul(elements, far, what);
      t.elements = checkedAdd(t.elements, checkedAdd(nearElements, farElements, what), what);
      t.interNodeElements = checkedAdd(t.interNodeElements, farElements, what);
      link[0].sent[so] += nearElements;
      link[1].sent[so] += farElements;
      link[0].messages[so] += near;
      link[1].messages[so] += far;
    }
    // Each reader receives every owner's elements but its own.
    for (std::size_t i = first; i < end; ++i) {
      const auto sr = static_cast<std::size_t>(byBlock[i].first);
      const auto n = static_cast<std::size_t>(nodes.nodeOf(byBlock[i].first));
      link[0].received[sr] += onNode.elements[n] - held[sr];
      link[1].received[sr] += allElements - onNode.elements[n];
      link[0].messages[sr] += onNode.owners[n] - owns[sr];
      link[1].messages[sr] += allOwners - onNode.owners[n];
    }
    for (std::size_t i = first; i < end; ++i) reads[static_cast<std::size_t>(byBlock[i].first)] = 0;
    for (int o : owners) {
      owns[static_cast<std::size_t>(o)] = 0;
      held[static_cast<std::size_t>(o)] = 0;
    }
    owners.clear();
    onNode.clear();
    first = end;
  }
  link[0].finish(t.intraNode);
  link[1].finish(t.interNode);
  return t;
}

}  // namespace eindecomp
