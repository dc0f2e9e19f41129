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

// Per-rank sums and the distinct (sender, receiver) pairs that carry data.
class RankTally {
 public:
  explicit RankTally(int64_t devices) : sent_(static_cast<std::size_t>(devices)), received_(static_cast<std::size_t>(devices)) {}
  void add(int from, int to, int64_t elements) {
    sent_[static_cast<std::size_t>(from)] += elements;
    received_[static_cast<std::size_t>(to)] += elements;
    pairs_.emplace_back(from, to);
  }
  void finish(Traffic& t) {
    std::sort(pairs_.begin(), pairs_.end());
    pairs_.erase(std::unique(pairs_.begin(), pairs_.end()), pairs_.end());
    std::vector<int64_t> messages(sent_.size(), 0);
    for (const auto& [from, to] : pairs_) {
      ++messages[static_cast<std::size_t>(from)];
      ++messages[static_cast<std::size_t>(to)];
    }
    for (std::size_t r = 0; r < sent_.size(); ++r) {
      t.busiestElements = std::max({t.busiestElements, sent_[r], received_[r]});
      t.busiestMessages = std::max(t.busiestMessages, messages[r]);
    }
  }

 private:
  std::vector<int64_t> sent_, received_;
  std::vector<std::pair<int, int>> pairs_;
};

}  // namespace

Traffic repartitionTraffic(const BlockHomes& producer, const einrt::BlockGrid& consumerGrid,
                           const std::vector<int64_t>& callBlock, const std::vector<int>& callRank, int64_t devices,
                           TrafficDetail detail) {
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
    for (const auto& [rank, block] : needs) {
      int64_t local = 0;
      for (const int64_t* o = producer.ownedBegin(rank); o != producer.ownedEnd(rank); ++o)
        local += einrt::overlapElements(consumerGrid, block, from, *o);
      t.elements = checkedAdd(t.elements, blockElements - local, what);
    }
    return t;
  }
  RankTally tally(devices);
  for (const auto& [rank, block] : needs)
    einrt::forEachOverlap(consumerGrid, block, from, [&](int64_t o, int64_t elements) {
      const int owner = producer.owner(o);
      if (owner == rank) return;
      t.elements = checkedAdd(t.elements, elements, what);
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
                           int64_t devices, TrafficDetail detail) {
  const char* what = "aggregation traffic";
  std::vector<std::pair<int64_t, int>> partials;  // (output block, rank holding a partial)
  partials.reserve(callRank.size());
  for (std::size_t c = 0; c < callRank.size(); ++c) partials.emplace_back(g.outputBlock[c], callRank[c]);
  std::sort(partials.begin(), partials.end());
  partials.erase(std::unique(partials.begin(), partials.end()), partials.end());
  Traffic t;
  const int64_t blockElements = g.outputGrid.blockElements();
  RankTally tally(detail == TrafficDetail::PerRank ? devices : 0);
  for (const auto& [block, rank] : partials) {
    const int owner = blockOwner[static_cast<std::size_t>(block)];
    if (rank == owner) continue;
    t.elements = checkedAdd(t.elements, blockElements, what);
    if (detail == TrafficDetail::PerRank) tally.add(rank, owner, blockElements);
  }
  if (detail == TrafficDetail::PerRank) tally.finish(t);
  return t;
}

}  // namespace eindecomp
