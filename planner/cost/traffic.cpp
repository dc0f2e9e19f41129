#include "planner/cost/traffic.h"

#include <algorithm>
#include <utility>

#include "planner/cost/checked_math.h"

namespace eindecomp {

BlockHomes::BlockHomes(einrt::BlockGrid grid, std::vector<int> owner, int64_t devices)
    : grid_(std::move(grid)), owner_(std::move(owner)), start_(static_cast<std::size_t>(devices) + 1, 0) {
  for (int o : owner_) ++start_[static_cast<std::size_t>(o) + 1];
  for (std::size_t r = 1; r < start_.size(); ++r) start_[r] += start_[r - 1];
  blocks_.resize(owner_.size());
  std::vector<int64_t> next(start_.begin(), start_.end() - 1);
  for (std::size_t b = 0; b < owner_.size(); ++b) blocks_[static_cast<std::size_t>(next[static_cast<std::size_t>(owner_[b])]++)] = static_cast<int64_t>(b);
}

namespace {

// Per-rank sums and the distinct (sender, receiver) pairs that carry data, per link.
class RankTally {
 public:
  RankTally(int64_t devices, const einrt::RankNodes& nodes) : nodes_(nodes) {
    for (Link& l : links_) {
      l.sent.assign(static_cast<std::size_t>(devices), 0);
      l.received.assign(static_cast<std::size_t>(devices), 0);
    }
  }
  void add(int from, int to, int64_t elements) {
    Link& l = links_[nodes_.sameNode(from, to) ? 0 : 1];
    l.sent[static_cast<std::size_t>(from)] += elements;
    l.received[static_cast<std::size_t>(to)] += elements;
    l.pairs.emplace_back(from, to);
  }
  void finish(Traffic& t) {
    finish(links_[0], t.intraNode);
    finish(links_[1], t.interNode);
  }

 private:
  struct Link {
    std::vector<int64_t> sent, received;
    std::vector<std::pair<int, int>> pairs;
  };
  static void finish(Link& l, LinkLoad& load) {
    std::sort(l.pairs.begin(), l.pairs.end());
    l.pairs.erase(std::unique(l.pairs.begin(), l.pairs.end()), l.pairs.end());
    std::vector<int64_t> messages(l.sent.size(), 0);
    for (const auto& [from, to] : l.pairs) {
      ++messages[static_cast<std::size_t>(from)];
      ++messages[static_cast<std::size_t>(to)];
    }
    for (std::size_t r = 0; r < l.sent.size(); ++r) {
      load.busiestElements = std::max({load.busiestElements, l.sent[r], l.received[r]});
      load.busiestMessages = std::max(load.busiestMessages, messages[r]);
    }
  }
  einrt::RankNodes nodes_;
  Link links_[2];  // intra-node, inter-node
};

}  // namespace

Traffic repartitionTraffic(const BlockHomes& producer, const einrt::BlockGrid& consumerGrid,
                           const std::vector<int64_t>& callBlock, const std::vector<int>& callRank, int64_t devices,
                           TrafficDetail detail, const einrt::RankNodes& nodes) {
  const char* what = "repartition traffic";
  // Each rank receives each block its calls read once.
  std::vector<std::pair<int, int64_t>> needs;  // (rank, block)
  needs.reserve(callBlock.size());
  for (std::size_t c = 0; c < callBlock.size(); ++c) needs.emplace_back(callRank[c], callBlock[c]);
  std::sort(needs.begin(), needs.end());
  needs.erase(std::unique(needs.begin(), needs.end()), needs.end());

  Traffic t;
  const int64_t blockElements = consumerGrid.blockElements();
  const einrt::BlockGrid& from = producer.grid();
  if (detail == TrafficDetail::Total) {
    const bool cluster = nodes.spansNodes(devices);
    auto ownedBy = [&](int64_t rank, int64_t block) {
      int64_t n = 0;
      for (const int64_t* o = producer.ownedBegin(static_cast<int>(rank)); o != producer.ownedEnd(static_cast<int>(rank)); ++o)
        n += einrt::overlapElements(consumerGrid, block, from, *o);
      return n;
    };
    for (const auto& [rank, block] : needs) {
      const int64_t local = ownedBy(rank, block);
      t.elements = checkedAdd(t.elements, blockElements - local, what);
      if (!cluster) continue;
      // What the ranks of its node hold does not cross the network.
      const int64_t first = nodes.nodeOf(rank) * nodes.ranksPerNode, end = std::min(first + nodes.ranksPerNode, devices);
      int64_t onNode = 0;
      for (int64_t q = first; q < end; ++q) onNode += q == rank ? local : ownedBy(q, block);
      t.interNodeElements = checkedAdd(t.interNodeElements, blockElements - onNode, what);
    }
    return t;
  }
  RankTally tally(devices, nodes);
  for (const auto& [rank, block] : needs)
    einrt::forEachOverlap(consumerGrid, block, from, [&](int64_t o, int64_t elements) {
      const int owner = producer.owner(o);
      if (owner == rank) return;
      t.elements = checkedAdd(t.elements, elements, what);
      if (!nodes.sameNode(owner, rank)) t.interNodeElements = checkedAdd(t.interNodeElements, elements, what);
      tally.add(owner, rank, elements);
    });
  tally.finish(t);
  return t;
}

RankBlockCoordinates rankBlockCoordinates(const einrt::BlockGrid& grid, const std::vector<int64_t>& blockOfRank) {
  RankBlockCoordinates c;
  c.byDim.assign(grid.dims(), std::vector<int32_t>(blockOfRank.size()));
  for (std::size_t r = 0; r < blockOfRank.size(); ++r) {
    int64_t b = blockOfRank[r];
    for (std::size_t d = grid.dims(); d-- > 0;) {
      c.byDim[d][r] = static_cast<int32_t>(b % grid.parts[d]);
      b /= grid.parts[d];
    }
  }
  return c;
}

RankBlockCoordinates ownedBlockCoordinates(const einrt::BlockGrid& grid) {
  std::vector<int64_t> blocks(static_cast<std::size_t>(grid.blockCount()));
  for (std::size_t b = 0; b < blocks.size(); ++b) blocks[b] = static_cast<int64_t>(b);
  return rankBlockCoordinates(grid, blocks);
}

int64_t canonicalRepartitionElements(const einrt::BlockGrid& producer, const RankBlockCoordinates& owned,
                                     const einrt::BlockGrid& consumer, const RankBlockCoordinates& read) {
  const std::size_t readers = read.ranks();
  const std::size_t holders = std::min(readers, owned.ranks());
  // local[r]: the elements of rank r's read block it already owns, one dimension at a time.
  std::vector<int64_t> local(holders, 1);
  for (std::size_t d = 0; d < consumer.dims(); ++d) {
    const int64_t ec = consumer.extent(d), ep = producer.extent(d);
    const int32_t* rc = read.byDim[d].data();
    const int32_t* oc = owned.byDim[d].data();
    for (std::size_t r = 0; r < holders; ++r) {
      const int64_t loC = rc[r] * ec, loP = oc[r] * ep;
      const int64_t lo = std::max(loC, loP), hi = std::min(loC + ec, loP + ep);
      local[r] *= std::max<int64_t>(0, hi - lo);
    }
  }
  int64_t kept = 0;
  for (int64_t l : local) kept += l;
  return checkedMul(static_cast<int64_t>(readers), consumer.blockElements(), "repartition traffic") - kept;
}

Traffic aggregationTraffic(const CallGeometry& g, const std::vector<int>& callRank, const std::vector<int>& blockOwner,
                           int64_t devices, TrafficDetail detail, const einrt::RankNodes& nodes) {
  const char* what = "aggregation traffic";
  std::vector<std::pair<int64_t, int>> partials;  // (output block, rank holding a partial)
  partials.reserve(callRank.size());
  for (std::size_t c = 0; c < callRank.size(); ++c) partials.emplace_back(g.outputBlock[c], callRank[c]);
  std::sort(partials.begin(), partials.end());
  partials.erase(std::unique(partials.begin(), partials.end()), partials.end());
  Traffic t;
  const int64_t blockElements = g.outputGrid.blockElements();
  RankTally tally(detail == TrafficDetail::PerRank ? devices : 0, nodes);
  for (const auto& [block, rank] : partials) {
    const int owner = blockOwner[static_cast<std::size_t>(block)];
    if (rank == owner) continue;
    t.elements = checkedAdd(t.elements, blockElements, what);
    if (!nodes.sameNode(rank, owner)) t.interNodeElements = checkedAdd(t.interNodeElements, blockElements, what);
    if (detail == TrafficDetail::PerRank) tally.add(rank, owner, blockElements);
  }
  if (detail == TrafficDetail::PerRank) tally.finish(t);
  return t;
}

}  // namespace eindecomp
