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

// Per-rank sums and messages per link. A message is a distinct (sender, receiver) pair
// carrying data; pieces come grouped by one side (all of one receiver's, or one sender's,
// in a row), so a pair is new when the other side was not yet seen with this one.
class RankTally {
 public:
  enum class GroupedBy { Receiver, Sender };
  RankTally(int64_t devices, const einrt::RankNodes& nodes, GroupedBy grouped)
      : nodes_(nodes), grouped_(grouped), seenWith_(static_cast<std::size_t>(devices), -1) {
    for (Link& l : links_) {
      l.sent.assign(static_cast<std::size_t>(devices), 0);
      l.received.assign(static_cast<std::size_t>(devices), 0);
      l.messages.assign(static_cast<std::size_t>(devices), 0);
    }
  }
  void add(int from, int to, int64_t elements) {
    Link& l = links_[nodes_.sameNode(from, to) ? 0 : 1];
    l.sent[static_cast<std::size_t>(from)] += elements;
    l.received[static_cast<std::size_t>(to)] += elements;
    const int side = grouped_ == GroupedBy::Receiver ? to : from, other = grouped_ == GroupedBy::Receiver ? from : to;
    if (seenWith_[static_cast<std::size_t>(other)] != side) {
      seenWith_[static_cast<std::size_t>(other)] = side;
      ++l.messages[static_cast<std::size_t>(from)];
      ++l.messages[static_cast<std::size_t>(to)];
    }
  }
  void finish(Traffic& t) const {
    finish(links_[0], t.intraNode);
    finish(links_[1], t.interNode);
  }

 private:
  struct Link {
    std::vector<int64_t> sent, received, messages;
  };
  static void finish(const Link& l, LinkLoad& load) {
    for (std::size_t r = 0; r < l.sent.size(); ++r) {
      load.busiestElements = std::max({load.busiestElements, l.sent[r], l.received[r]});
      load.busiestMessages = std::max(load.busiestMessages, l.messages[r]);
    }
  }
  einrt::RankNodes nodes_;
  GroupedBy grouped_;
  std::vector<int> seenWith_;  // per rank on the other side: the last rank of the grouped side it met
  Link links_[2];              // intra-node, inter-node
};

}  // namespace

Traffic repartitionTraffic(const BlockHomes& producer, const einrt::BlockGrid& consumerGrid,
                           const std::vector<int64_t>& callBlock, const std::vector<int>& callRank, int64_t devices,
                           TrafficDetail detail, const einrt::RankNodes& nodes) {
  const char* what = "repartition traffic";
  // Each rank receives each block its calls read once. The placement rules give every call
  // a rank of its own, so the totals need no sort there (one (rank, block) pair per call).
  std::vector<std::pair<int, int64_t>> needs;  // (rank, block)
  needs.reserve(callBlock.size());
  for (std::size_t c = 0; c < callBlock.size(); ++c) needs.emplace_back(callRank[c], callBlock[c]);
  bool oneCallPerRank = detail == TrafficDetail::Total;
  if (oneCallPerRank) {
    std::vector<char> busy(static_cast<std::size_t>(devices), 0);
    for (int r : callRank) oneCallPerRank = oneCallPerRank && !std::exchange(busy[static_cast<std::size_t>(r)], 1);
  }
  if (!oneCallPerRank) {
    std::sort(needs.begin(), needs.end());
    needs.erase(std::unique(needs.begin(), needs.end()), needs.end());
  }

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
  RankTally tally(devices, nodes, RankTally::GroupedBy::Receiver);  // needs are sorted by rank
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

namespace {

// The elements of each of the first `ranks` ranks' read block it already owns, summed:
// per dimension the overlap of the two intervals, multiplied up rank by rank. The search
// runs this for every pair of layouts it prices, so it is built for the vector units
// this processor has too (x86-64-v4: AVX-512; v3: AVX2), chosen when the program loads.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
int64_t ownedOfRead(std::size_t ranks, std::size_t dims, const int64_t* readExtent, const int64_t* ownedExtent,
                    const int32_t* const* readCoordinate, const int32_t* const* ownedCoordinate, int64_t* local) {
  for (std::size_t r = 0; r < ranks; ++r) local[r] = 1;
  for (std::size_t d = 0; d < dims; ++d) {
    const int64_t ec = readExtent[d], ep = ownedExtent[d];
    const int32_t* rc = readCoordinate[d];
    const int32_t* oc = ownedCoordinate[d];
    for (std::size_t r = 0; r < ranks; ++r) {
      const int64_t loC = rc[r] * ec, loP = oc[r] * ep;
      local[r] *= std::max<int64_t>(0, std::min(loC + ec, loP + ep) - std::max(loC, loP));
    }
  }
  int64_t kept = 0;
  for (std::size_t r = 0; r < ranks; ++r) kept += local[r];
  return kept;
}

}  // namespace

int64_t canonicalRepartitionElements(const einrt::BlockGrid& producer, const RankBlockCoordinates& owned,
                                     const einrt::BlockGrid& consumer, const RankBlockCoordinates& read) {
  const std::size_t readers = read.ranks();
  const std::size_t holders = std::min(readers, owned.ranks());
  const std::size_t dims = consumer.dims();
  std::vector<int64_t> ec(dims), ep(dims), local(holders);
  std::vector<const int32_t*> rc(dims), oc(dims);
  for (std::size_t d = 0; d < dims; ++d) {
    ec[d] = consumer.extent(d), ep[d] = producer.extent(d);
    rc[d] = read.byDim[d].data(), oc[d] = owned.byDim[d].data();
  }
  const int64_t kept = ownedOfRead(holders, dims, ec.data(), ep.data(), rc.data(), oc.data(), local.data());
  return checkedMul(static_cast<int64_t>(readers), consumer.blockElements(), "repartition traffic") - kept;
}

namespace {

// The overlap of rank r's read block with the block rank o owns, per dimension.
struct OverlapOf {
  const einrt::BlockGrid& producer;
  const RankBlockCoordinates& owned;
  const einrt::BlockGrid& consumer;
  const RankBlockCoordinates& read;
  int64_t operator()(std::size_t r, std::size_t o) const {
    int64_t n = 1;
    for (std::size_t d = 0; d < consumer.dims() && n > 0; ++d) {
      const int64_t ec = consumer.extent(d), ep = producer.extent(d);
      const int64_t loC = read.byDim[d][r] * ec, loP = owned.byDim[d][o] * ep;
      n *= std::max<int64_t>(0, std::min(loC + ec, loP + ep) - std::max(loC, loP));
    }
    return n;
  }
};

// How many intervals of extent `other` the interval `i` of extent `mine` meets.
int64_t intervalsMet(int64_t i, int64_t mine, int64_t other) { return ((i + 1) * mine - 1) / other - (i * mine) / other + 1; }

}  // namespace

Traffic canonicalRepartitionTraffic(const einrt::BlockGrid& producer, const RankBlockCoordinates& owned,
                                    const einrt::BlockGrid& consumer, const RankBlockCoordinates& read, int64_t devices,
                                    const einrt::RankNodes& nodes) {
  const auto readers = static_cast<int64_t>(read.ranks()), holders = static_cast<int64_t>(owned.ranks());
  const int64_t perBlock = readers / consumer.blockCount();  // readers of each consumer block
  const int64_t readElements = consumer.blockElements(), ownedElements = producer.blockElements();
  const OverlapOf overlap{producer, owned, consumer, read};
  const bool cluster = nodes.spansNodes(devices);
  Traffic t;
  for (int64_t x = 0; x < devices; ++x) {
    const auto r = static_cast<std::size_t>(x);
    // The ranks of x's node (x alone on one node: every piece is intra-node there).
    const int64_t first = cluster ? nodes.nodeOf(x) * nodes.ranksPerNode : 0;
    const int64_t end = cluster ? std::min(first + nodes.ranksPerNode, devices) : 0;
    int64_t received[2] = {0, 0}, sent[2] = {0, 0}, messages[2] = {0, 0};  // [intra, inter]
    if (x < readers) {
      const int64_t self = x < holders ? overlap(r, r) : 0;
      int64_t met = 1;
      for (std::size_t d = 0; d < consumer.dims(); ++d) met *= intervalsMet(read.byDim[d][r], consumer.extent(d), producer.extent(d));
      int64_t all = readElements - self, pieces = met - (self > 0 ? 1 : 0), near = 0, nearPieces = 0;
      for (int64_t o = first; o < std::min(end, holders); ++o) {
        if (o == x) continue;
        const int64_t n = overlap(r, static_cast<std::size_t>(o));
        near += n;
        nearPieces += n > 0;
      }
      if (!cluster) near = all, nearPieces = pieces;
      received[0] = near, received[1] = all - near;
      messages[0] += nearPieces, messages[1] += pieces - nearPieces;
      t.elements = checkedAdd(t.elements, all, "repartition traffic");
      t.interNodeElements = checkedAdd(t.interNodeElements, all - near, "repartition traffic");
    }
    if (x < holders) {
      const int64_t self = x < readers ? overlap(r, r) : 0;
      int64_t met = perBlock;
      for (std::size_t d = 0; d < consumer.dims(); ++d) met *= intervalsMet(owned.byDim[d][r], producer.extent(d), consumer.extent(d));
      int64_t all = perBlock * ownedElements - self, pieces = met - (self > 0 ? 1 : 0), near = 0, nearPieces = 0;
      for (int64_t q = first; q < std::min(end, readers); ++q) {
        if (q == x) continue;
        const int64_t n = overlap(static_cast<std::size_t>(q), r);
        near += n;
        nearPieces += n > 0;
      }
      if (!cluster) near = all, nearPieces = pieces;
      sent[0] = near, sent[1] = all - near;
      messages[0] += nearPieces, messages[1] += pieces - nearPieces;
    }
    LinkLoad* load[2] = {&t.intraNode, &t.interNode};
    for (int l = 0; l < 2; ++l) {
      load[l]->busiestElements = std::max({load[l]->busiestElements, sent[l], received[l]});
      load[l]->busiestMessages = std::max(load[l]->busiestMessages, messages[l]);
    }
  }
  return t;
}

Traffic aggregationTraffic(const CallGeometry& g, const std::vector<int>& callRank, const std::vector<int>& blockOwner,
                           int64_t devices, TrafficDetail detail, const einrt::RankNodes& nodes) {
  const char* what = "aggregation traffic";
  std::vector<std::pair<int, int64_t>> partials;  // (rank holding a partial, output block), by rank
  partials.reserve(callRank.size());
  for (std::size_t c = 0; c < callRank.size(); ++c) partials.emplace_back(callRank[c], g.outputBlock[c]);
  std::sort(partials.begin(), partials.end());
  partials.erase(std::unique(partials.begin(), partials.end()), partials.end());
  Traffic t;
  const int64_t blockElements = g.outputGrid.blockElements();
  RankTally tally(detail == TrafficDetail::PerRank ? devices : 0, nodes, RankTally::GroupedBy::Sender);
  for (const auto& [rank, block] : partials) {
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
