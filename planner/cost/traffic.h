// The traffic model (SPEC 3.1), formula by formula: what crosses between two different
// ranks in one execution of the graph, counted the way einrt's message plan counts it
// (einrt/traffic.h), and so the way the emitted program's byte counters measure it.
// Counts are ELEMENTS (times the dtype size for bytes).
//
//   repartition (an edge from a node to an operand of a consumer):
//     for every rank r and every operand block b that some call on r reads (once per
//     rank, however many of its calls read it):
//       received(r, b) = |b| - sum over producer blocks o owned by r of |b ∩ o|
//     each piece b ∩ o with owner(o) != r is one message payload from owner(o) to r;
//   aggregation (partial results of a node's calls, combined on the block's owner):
//     for every output block: |block| * (number of ranks holding a partial of it, other
//     than its owner);
//   graph inputs cost nothing: every rank makes (or reads) the blocks its calls need.
//
// The totals are all the planner's traffic objective needs; the per-rank view (the
// busiest rank's elements and messages) feeds the time estimate (time_model.h). On a
// cluster (einrt/nodes.h) every count is split by link: a piece between ranks of one
// node crosses the intra-node link, any other the inter-node network.
#pragma once

#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <vector>

#include <einrt/block_grid.h>
#include <einrt/nodes.h>

#include "planner/cost/rank_bits.h"
#include "planner/partition/call_geometry.h"

namespace eindecomp {

// One link's load on its busiest rank (PerRank only).
struct LinkLoad {
  int64_t busiestElements = 0;  // max over ranks of max(sent, received) over this link
  int64_t busiestMessages = 0;  // max over ranks of messages sent + received over this link
};

struct Traffic {
  int64_t elements = 0;           // over all ranks
  int64_t interNodeElements = 0;  // of those, between ranks on different nodes
  LinkLoad intraNode, interNode;  // PerRank only
};

enum class TrafficDetail { Total, PerRank };

// Where a tensor's blocks live: block b of `grid` on rank owner[b], indexed by rank.
class BlockHomes {
 public:
  BlockHomes(einrt::BlockGrid grid, std::vector<int> owner, int64_t devices);
  const einrt::BlockGrid& grid() const { return grid_; }
  int owner(int64_t block) const { return owner_[static_cast<std::size_t>(block)]; }
  // The blocks rank r owns, as a [begin, end) range into a flat list.
  const int64_t* ownedBegin(int rank) const { return blocks_.data() + start_[static_cast<std::size_t>(rank)]; }
  const int64_t* ownedEnd(int rank) const { return blocks_.data() + start_[static_cast<std::size_t>(rank) + 1]; }

 private:
  einrt::BlockGrid grid_;
  std::vector<int> owner_;
  std::vector<int64_t> start_, blocks_;
};

// Repartition into one operand: call c runs on callRank[c] and reads block callBlock[c]
// of `consumerGrid` (a grid over the same shape as the producer's).
Traffic repartitionTraffic(const BlockHomes& producer, const einrt::BlockGrid& consumerGrid,
                           const einrt::model::BlockNumbers& callBlock, const std::vector<int>& callRank, int64_t devices,
                           TrafficDetail detail, const einrt::RankNodes& nodes = {});

// The same repartition's total under the canonical placement (placement.h), which the
// search prices for every pair of layouts: rank r owns block r / s of the producer's grid
// when r is a multiple of s (s = 1, or on a cluster the producer's aggregation parts), and
// reads one block of the consumer's (the calls run on ranks 0..calls-1, one each), so
//   elements = sum over reading ranks r of  |read block| - |read block ∩ owned block|
// — repartitionTraffic's count without its sort, in O(ranks x dims) over coordinates
// decoded once per layout (RankBlockCoordinates).
struct RankBlockCoordinates {
  std::vector<std::vector<int32_t>> byDim;  // [dim][rank]: the grid coordinate of the rank's block (-1: none)
  int64_t ownerStride = 1;                  // owned coordinates: the ranks holding a block are its multiples
  std::optional<RankBits> bits;             // the coordinates as the ranks' bits, where they are (rank_bits.h)
  std::size_t ranks() const { return byDim.empty() ? 0 : byDim[0].size(); }
  bool holds(std::size_t rank) const { return ownerStride == 1 || static_cast<int64_t>(rank) % ownerStride == 0; }
};
// blockOfRank[r]: the block rank r owns or reads.
RankBlockCoordinates rankBlockCoordinates(const einrt::BlockGrid& grid, const einrt::model::BlockNumbers& blockOfRank);
// The same into `c`, in the storage it already has where large enough.
void assignRankBlockCoordinates(const einrt::BlockGrid& grid, const einrt::model::BlockNumbers& blockOfRank,
                                RankBlockCoordinates& c);
// The canonical owners: rank b * ownerStride owns block b, for every block of `grid`
// (the ranks between own none: coordinate -1, which meets no block); of the ranks below
// `rankEnd` only, where given.
RankBlockCoordinates ownedBlockCoordinates(const einrt::BlockGrid& grid, int64_t ownerStride = 1,
                                           int64_t rankEnd = std::numeric_limits<int64_t>::max());
int64_t canonicalRepartitionElements(const einrt::BlockGrid& producer, const RankBlockCoordinates& owned,
                                     const einrt::BlockGrid& consumer, const RankBlockCoordinates& read);

// A floor under a repartition's counts from the two layouts alone, in O(dims) where the
// counts are O(ranks x dims): the search skips a pair of layouts whose floor already
// loses to the best sum found, so that most pairs are never counted, and planning skips
// pricing partitions whose floor already loses to the best plan. It holds for any
// placement that runs each call on a rank of its own (the producer's blocks then live on
// as many distinct ranks), or for the canonical one (`ownerStride`: rank b * s holds block
// b; tighter). A reading rank keeps at most the product over dimensions of the smaller of
// the two block extents (`kept`), and meets at least the product of ceil(read extent /
// owned extent) blocks (a message from each owner, less its own); with more readers than
// holders among them, a reader keeps nothing. A holder sends its block to the readers of
// each consumer block it meets, less what it keeps. On a cluster a node's ranks hold at
// most `kept` each of a read block (or read as much of an owned one): the rest of it
// crosses the network. `readers`: the consumer's calls (ranks 0..readers-1 in the
// canonical placement); `ranksPerNode`: 0 on one node.
// A rank's messages are those it sends and those it receives (LinkLoad), so where some
// rank must both hold a producer block and read a consumer block — the canonical rule's
// rank 0, or any placement where holders and readers together outnumber the `devices`
// ranks — the busiest rank has at least a holding reader's received messages and a
// holder's sent ones together (`holdingReader`). A node's scores read from a thousand
// holders that each send to a thousand readers: every rank does both, and the phase
// takes twice the latency of either side alone.
struct RankFloor {
  int64_t elements = 0;     // sent or received, both links together
  int64_t farElements = 0;  // of those, at least this many over the inter-node link
  int64_t messages = 0;
  // At most this many of its messages stay on its node; -1: one per other rank there.
  int64_t nearMessages = -1;
};
struct RepartitionFloor {
  int64_t elements = 0;      // under the total (repartitionTraffic's elements)
  RankFloor reader, holder;  // one reading rank's received, one holding rank's sent
  // Where some rank must hold and read (else empty): a reader holding a block receives at
  // least `holdingReader` (its messages those it receives), and sends `holder`'s.
  std::optional<RankFloor> holdingReader;
};
RepartitionFloor repartitionFloor(const std::vector<int64_t>& shape, const std::vector<int64_t>& producerParts,
                                  const std::vector<int64_t>& consumerParts, int64_t readers, int64_t ranksPerNode,
                                  std::optional<int64_t> ownerStride, int64_t devices);

// The same repartition per rank and link (the time objective's fast path): exactly
// repartitionTraffic(..., PerRank, nodes) with the canonical homes, given that every block
// of the consumer's grid is read by the same number of ranks (as a node's calls read the
// blocks of an operand). With R readers per block, rank s sends R |owned block| elements
// less what it reads of its own block; a rank's messages are the blocks overlapping its
// read block (or the readers of the blocks overlapping its own), counted per dimension;
// only the split by link looks at the other ranks of the node. O(ranks x dims x
// ranks per node) in time, where enumerating the pieces of an all-to-all costs ranks^2,
// and O(ranks per node) in scratch: the ranks are taken a node (or a few hundred) at a time.
Traffic canonicalRepartitionTraffic(const einrt::BlockGrid& producer, const RankBlockCoordinates& owned,
                                    const einrt::BlockGrid& consumer, const RankBlockCoordinates& read, int64_t devices,
                                    const einrt::RankNodes& nodes);

// The same count over the first group of ranks only (the first node on a cluster, else
// ranks 0..63), from the layouts and the consumer's reads: every figure it gives is at
// most the whole count's (the busiest rank is at least as loaded as any of these), at a
// node's share of the cost, and on a machine whose nodes are alike it is often the whole
// count's busiest. The search's floor under a repartition's phase (time objective).
Traffic firstGroupRepartitionTraffic(const einrt::BlockGrid& producer, int64_t ownerStride, const einrt::BlockGrid& consumer,
                                     const einrt::model::BlockNumbers& readByRank, int64_t devices, const einrt::RankNodes& nodes);

// repartitionTraffic, remembered: a graph's repeated layers (LLaMA-65B: 80 of them) price
// the same edges under the same layouts and placements again and again, each an
// all-to-all of ranks^2 pieces at worst. An entry is keyed by everything the count reads
// (the producer's grid and owners, the consumer's grid, the calls' blocks and ranks, the
// devices, the detail and the cluster), compared whole: a hit is the same count. One
// memo serves every plan a planning request prices, from any number of threads (a lookup
// holds a lock; a count is made outside it, and two threads missing alike both make it).
class TrafficMemo {
 public:
  Traffic repartition(const BlockHomes& producer, const std::vector<int>& owner, const einrt::BlockGrid& consumerGrid,
                      const einrt::model::BlockNumbers& callBlock, const std::vector<int>& callRank, int64_t devices,
                      TrafficDetail detail, const einrt::RankNodes& nodes);

 private:
  struct Entry {
    std::vector<int64_t> producerShape, producerParts, consumerParts;
    std::vector<int64_t> consumerShape, consumerOrigin, consumerHalo, consumerStep, consumerSpread;  // a window's (else empty)
    std::vector<int> owner, callRank;
    einrt::model::BlockNumbers callBlock;
    int64_t devices, ranksPerNode;
    TrafficDetail detail;
    Traffic traffic;
  };
  std::vector<std::vector<Entry>> buckets_ = std::vector<std::vector<Entry>>(4096);
  std::mutex mutex_;  // guards buckets_
};

// A repartition from a node's partial results, reduced at read (einrt's program model):
// every holder of a producer block (`holders`, per block of `partials`) sends its partial
// of each piece a reading rank needs, but the reader's own (einrt's message plan for a
// partial source). Call c runs on callRank[c] and reads block callBlock[c] of `consumerGrid`.
Traffic reducedReadTraffic(const einrt::BlockGrid& partials, const std::vector<std::vector<int>>& holders,
                           const einrt::BlockGrid& consumerGrid, const einrt::model::BlockNumbers& callBlock,
                           const std::vector<int>& callRank, int64_t devices, TrafficDetail detail,
                           const einrt::RankNodes& nodes = {});

// Aggregation of a node's partial results into the owners of its output blocks.
Traffic aggregationTraffic(const CallGeometry& geometry, const std::vector<int>& callRank,
                           const std::vector<int>& blockOwner, int64_t devices, TrafficDetail detail,
                           const einrt::RankNodes& nodes = {});

}  // namespace eindecomp
