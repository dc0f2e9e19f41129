#include "planner/cost/traffic.h"

#include <algorithm>
#include <utility>
#include <vector>

#include <einrt/model/exchange_load.h>
#include <einrt/model/program_model.h>

#include "planner/cost/checked_math.h"
#include "planner/cost/traffic_by_block.h"

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

// Per-rank sums and messages per link: einrt's ExchangeLoad (einrt/model/exchange_load.h,
// the one rule the reduced-at-read choice compares exchanges by), written into a Traffic.
class RankTally : public einrt::model::ExchangeLoad {
 public:
  using ExchangeLoad::ExchangeLoad;
  void finish(Traffic& t) const {
    t.intraNode = load(busiest(0));
    t.interNode = load(busiest(1));
  }

 private:
  static LinkLoad load(const Busiest& b) { return {b.elements, b.messages}; }
};

}  // namespace

Traffic repartitionTraffic(const BlockHomes& producer, const einrt::BlockGrid& consumerGrid,
                           const einrt::model::BlockNumbers& callBlock, const std::vector<int>& callRank, int64_t devices,
                           TrafficDetail detail, const einrt::RankNodes& nodes) {
  const char* what = "repartition traffic";
  // Each rank receives each block its calls read once: the distinct (rank, block) pairs,
  // by rank (einrt's program model's reads).
  const std::vector<einrt::model::RankBlock> needs = einrt::model::distinctPairs(callBlock, callRank);

  Traffic t;
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
      const int64_t local = ownedBy(rank, block), blockElements = consumerGrid.readElements(block);  // a window's fill is not sent
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
  if (std::optional<Traffic> byBlock = perRankTrafficByBlock(producer, consumerGrid, needs, devices, nodes)) return *byBlock;
  RankTally tally(devices, nodes, RankTally::GroupedBy::Receiver);  // needs are sorted by rank
  for (const auto& [rank, block] : needs)
    einrt::forEachOverlap(consumerGrid, block, from, [&](int64_t o, int64_t elements) {
      const int owner = producer.owner(o);
      if (owner == rank) return;
      t.elements = checkedAdd(t.elements, elements, what);
      if (!tally.sameNode(owner, rank)) t.interNodeElements = checkedAdd(t.interNodeElements, elements, what);
      tally.add(owner, rank, elements);
    });
  tally.finish(t);
  return t;
}

Traffic TrafficMemo::repartition(const BlockHomes& producer, const std::vector<int>& owner, const einrt::BlockGrid& consumerGrid,
                                 const einrt::model::BlockNumbers& callBlock, const std::vector<int>& callRank, int64_t devices,
                                 TrafficDetail detail, const einrt::RankNodes& nodes) {
  // FNV-1a over what the count reads; the bucket's entries are then compared whole.
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](int64_t v) { h = (h ^ static_cast<uint64_t>(v)) * 1099511628211ull; };
  const einrt::BlockGrid& from = producer.grid();
  for (int64_t v : from.shape) mix(v);
  for (int64_t v : from.parts) mix(v);
  for (int64_t v : consumerGrid.parts) mix(v);
  for (int64_t v : consumerGrid.origin) mix(v);  // a window: where it lies in the tensor
  for (int64_t v : consumerGrid.halo) mix(v);
  for (int64_t v : consumerGrid.step) mix(v);
  for (int64_t v : consumerGrid.spread) mix(v);
  for (int v : owner) mix(v);
  for (int64_t v : callBlock) mix(v);
  for (int v : callRank) mix(v);
  mix(devices);
  mix(nodes.ranksPerNode);
  mix(static_cast<int64_t>(detail));
  std::vector<Entry>& bucket = buckets_[h % buckets_.size()];
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (const Entry& e : bucket)
      if (e.devices == devices && e.ranksPerNode == nodes.ranksPerNode && e.detail == detail && e.producerShape == from.shape &&
          e.producerParts == from.parts && e.consumerParts == consumerGrid.parts && e.owner == owner && e.callBlock == callBlock &&
          e.callRank == callRank && e.consumerOrigin == consumerGrid.origin && e.consumerHalo == consumerGrid.halo &&
          e.consumerStep == consumerGrid.step && e.consumerSpread == consumerGrid.spread &&
          (consumerGrid.origin.empty() || e.consumerShape == consumerGrid.shape))
        return e.traffic;
  }
  const Traffic t = repartitionTraffic(producer, consumerGrid, callBlock, callRank, devices, detail, nodes);
  const std::vector<int64_t> window = consumerGrid.windowed() ? consumerGrid.shape : std::vector<int64_t>{};
  Entry made{from.shape, from.parts, consumerGrid.parts, window, consumerGrid.origin, consumerGrid.halo, consumerGrid.step,
             consumerGrid.spread, owner, callRank, callBlock, devices, nodes.ranksPerNode, detail, t};
  const std::lock_guard<std::mutex> lock(mutex_);
  bucket.push_back(std::move(made));
  return t;
}

namespace {

// The length of [loC, loC + ec) ∩ [loP, loP + ep): what a read interval finds of an owned one.
int64_t overlap(int64_t loC, int64_t ec, int64_t loP, int64_t ep) {
  return std::max<int64_t>(0, std::min(loC + ec, loP + ep) - std::max(loC, loP));
}

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
    for (std::size_t r = 0; r < ranks; ++r) local[r] *= overlap(rc[r] * ec, ec, oc[r] * ep, ep);
  }
  int64_t kept = 0;
  for (std::size_t r = 0; r < ranks; ++r) kept += local[r];
  return kept;
}

// The same sum in doubles, where every number in it is an integer below 2^53 and so exact
// (the caller checks): AVX2 has no 64-bit integer multiply, minimum or maximum, and the
// search spends most of its time here (LLaMA-65B at p = 16,384: 200,000 pairs of layouts
// over 16,384 ranks), so doubles run it four lanes at a time where integers ran one.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
double ownedOfReadInDoubles(std::size_t ranks, std::size_t dims, const double* readExtent, const double* ownedExtent,
                            const int32_t* const* readCoordinate, const int32_t* const* ownedCoordinate) {
  // A chunk of ranks at a time, its products kept in the first level cache, summed in as
  // many independent lanes (the sum of integers below 2^53 is exact in any order).
  constexpr std::size_t kChunk = 256, kLanes = 8;
  double local[kChunk], sum[kLanes] = {};
  for (std::size_t first = 0; first < ranks; first += kChunk) {
    const std::size_t n = std::min(kChunk, ranks - first);
    for (std::size_t r = 0; r < kChunk; ++r) local[r] = r < n ? 1 : 0;
    for (std::size_t d = 0; d < dims; ++d) {
      const double ec = readExtent[d], ep = ownedExtent[d];
      const int32_t* rc = readCoordinate[d] + first;
      const int32_t* oc = ownedCoordinate[d] + first;
      for (std::size_t r = 0; r < n; ++r) {
        const double loC = rc[r] * ec, loP = oc[r] * ep;
        const double met = std::min(loC + ec, loP + ep) - std::max(loC, loP);
        local[r] *= met > 0 ? met : 0;
      }
    }
    for (std::size_t r = 0; r < kChunk; r += kLanes)
      for (std::size_t l = 0; l < kLanes; ++l) sum[l] += local[r + l];
  }
  double kept = 0;
  for (double lane : sum) kept += lane;
  return kept;
}

}  // namespace

int64_t canonicalRepartitionElements(const einrt::BlockGrid& producer, const RankBlockCoordinates& owned,
                                     const einrt::BlockGrid& consumer, const RankBlockCoordinates& read) {
  const std::size_t readers = read.ranks();
  const std::size_t holders = std::min(readers, owned.ranks());
  const std::size_t dims = consumer.dims();
  std::vector<int64_t> ec(dims), ep(dims);
  std::vector<const int32_t*> rc(dims), oc(dims);
  int64_t reach = 0;  // the largest offset met in a dimension: (block coordinate + 1) x extent
  for (std::size_t d = 0; d < dims; ++d) {
    ec[d] = consumer.extent(d), ep[d] = producer.extent(d);
    rc[d] = read.byDim[d].data(), oc[d] = owned.byDim[d].data();
    reach = std::max({reach, checkedMul(consumer.parts[d], ec[d], "repartition traffic"),
                      checkedMul(producer.parts[d], ep[d], "repartition traffic")});
  }
  const int64_t total = checkedMul(static_cast<int64_t>(readers), consumer.blockElements(), "repartition traffic");
  if (read.bits && owned.bits)
    if (const std::optional<int64_t> kept = ownedOfReadByBits(*read.bits, *owned.bits, ec, ep)) return total - *kept;
  // What a rank keeps is at most its read block, what all keep at most `total`.
  constexpr int64_t kExactInDoubles = int64_t{1} << 53;
  if (total < kExactInDoubles && reach < kExactInDoubles) {
    const std::vector<double> ecD(ec.begin(), ec.end()), epD(ep.begin(), ep.end());
    return total - static_cast<int64_t>(ownedOfReadInDoubles(holders, dims, ecD.data(), epD.data(), rc.data(), oc.data()));
  }
  std::vector<int64_t> local(holders);
  return total - ownedOfRead(holders, dims, ec.data(), ep.data(), rc.data(), oc.data(), local.data());
}

RepartitionFloor repartitionFloor(const std::vector<int64_t>& shape, const std::vector<int64_t>& producerParts,
                                  const std::vector<int64_t>& consumerParts, int64_t readers, int64_t ranksPerNode,
                                  std::optional<int64_t> ownerStride, int64_t devices) {
  int64_t readBlock = 1, ownedBlock = 1, kept = 1, producerBlocks = 1, consumerBlocks = 1, ownersMet = 1, blocksMet = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const int64_t ec = shape[d] / consumerParts[d], ep = shape[d] / producerParts[d];
    readBlock *= ec, ownedBlock *= ep, kept *= std::min(ec, ep);
    producerBlocks *= producerParts[d], consumerBlocks *= consumerParts[d];
    ownersMet *= (ec + ep - 1) / ep, blocksMet *= (ep + ec - 1) / ec;
  }
  RepartitionFloor f;
  if (readers <= 0) return f;
  // Readers that hold a block, and the holders a node can have: canonically the ranks 0,
  // s, 2s, ..., (blocks - 1) s; else at most one block per rank.
  int64_t holdingReaders = std::min(readers, producerBlocks), nodeHolders = std::min(producerBlocks, ranksPerNode);
  if (ownerStride) {
    const int64_t s = *ownerStride;
    holdingReaders = (std::min(readers, (producerBlocks - 1) * s + 1) + s - 1) / s;
    nodeHolders = std::min(producerBlocks, (ranksPerNode + s - 1) / s);
  }
  const int64_t readersPerBlock = readers / consumerBlocks;
  f.elements = checkedMul(readers, readBlock, "repartition traffic") - holdingReaders * kept;
  if (holdingReaders < readers) f.reader = {readBlock, 0, ownersMet};
  else f.reader = {readBlock - kept, 0, ownersMet - 1};
  const int64_t sends = checkedMul(readersPerBlock, ownedBlock, "repartition traffic");
  f.holder = {sends - kept, 0, readersPerBlock * blocksMet - 1};
  if (ranksPerNode > 0) {
    f.reader.farElements = readBlock - std::min(readBlock, nodeHolders * kept);
    f.holder.farElements = sends - std::min(sends, ranksPerNode * kept);
  }
  // A rank holds and reads: canonically rank 0 (block 0's holder, a reader); else
  // wherever the producerBlocks holders (distinct ranks) and the readers cannot be apart.
  if (ownerStride || producerBlocks > devices - readers)
    f.holdingReader = RankFloor{readBlock - kept, f.reader.farElements, ownersMet - 1};
  for (RankFloor* r : {&f.reader, &f.holder, f.holdingReader ? &*f.holdingReader : nullptr}) {
    if (!r) continue;
    if (r->elements <= 0) *r = {};
    else r->messages = std::max<int64_t>(r->messages, 1);
    r->farElements = std::min(r->farElements, r->elements);
  }
  return f;
}

namespace {

// How many intervals of extent `other` the interval `i` of extent `mine` meets, for every i
// of a dimension cut into `parts`; empty when it is the same for every i (nested cuts, as
// with power-of-two parts), which `nestedMet` gives.
std::vector<int64_t> intervalsMet(int64_t parts, int64_t mine, int64_t other) {
  std::vector<int64_t> met;
  if (mine % other == 0 || other % mine == 0) return met;
  met.resize(static_cast<std::size_t>(parts));
  for (int64_t i = 0; i < parts; ++i) met[static_cast<std::size_t>(i)] = ((i + 1) * mine - 1) / other - (i * mine) / other + 1;
  return met;
}
int64_t nestedMet(int64_t mine, int64_t other) { return mine % other == 0 ? mine / other : 1; }

// The per-dimension tables of one repartition that do not depend on the rank: how many
// blocks of the other grid an interval meets (intervalsMet; empty: the same for every
// interval, whose product over such dimensions is `nested`).
struct MetTables {
  std::vector<std::vector<int64_t>> received, sent;  // per dimension, by the consumer's / producer's coordinate
  int64_t receivedNested = 1, sentNested = 1;
  // The block extents per dimension, consumer's and producer's (divided once here, not
  // for every node: the search prices hundreds of thousands of repartitions).
  std::vector<int64_t> consumerExtent, producerExtent;
  int64_t readersPerBlock = 1;  // the ranks reading each consumer block (each sends its piece to every one)
};

MetTables metTables(const einrt::BlockGrid& producer, const einrt::BlockGrid& consumer, std::size_t readers) {
  MetTables m;
  m.readersPerBlock = static_cast<int64_t>(readers) / consumer.blockCount();
  for (std::size_t d = 0; d < consumer.dims(); ++d) {
    const int64_t ec = consumer.extent(d), ep = producer.extent(d);
    m.received.push_back(intervalsMet(consumer.parts[d], ec, ep));
    m.sent.push_back(intervalsMet(producer.parts[d], ep, ec));
    if (m.received.back().empty()) m.receivedNested *= nestedMet(ec, ep);
    if (m.sent.back().empty()) m.sentNested *= nestedMet(ep, ec);
    m.consumerExtent.push_back(ec);
    m.producerExtent.push_back(ep);
  }
  return m;
}

// Scratch for the loads of one group of consecutive ranks [first, first + ni or nj): per
// rank what it owns of its read block (self) and how many blocks meet its read block or
// its own (receivedMet, sentMet), and the overlaps' factors they are made of (common,
// rowFactor, colFactor: groupFactors); on a cluster, where the group is one node, the
// pieces between the node's own ranks (near, its row and column sums: what stays off the
// network).
struct GroupLoads {
  std::vector<int64_t> self, receivedMet, sentMet;  // per rank of the group
  std::vector<int64_t> near, rowSum, rowPieces, colSum, colPieces, rowFactor, colFactor;
  std::vector<std::size_t> varying;  // the dimensions whose read and owned intervals both vary in the group
  int64_t common = 1;
  // `k` ranks a group; a node's pairs (near) only on a cluster.
  GroupLoads(std::size_t k, bool cluster)
      : self(k), receivedMet(k), sentMet(k), near(cluster ? k * k : 0), rowSum(k), rowPieces(k), colSum(k), colPieces(k),
        rowFactor(k), colFactor(k) {}
};

// Whether the n coordinates are one (inline, not std::equal's call to memcmp: n is a
// node's ranks, and this runs for every dimension of every node of every layout pair).
bool allSame(const int32_t* x, std::size_t n) {
  int32_t differ = 0;  // no early exit: the loop vectorizes
  for (std::size_t i = 1; i < n; ++i) differ |= x[i] ^ x[0];
  return differ == 0;
}

// The factors of one group's loads, dimension by dimension. A rank's pieces are products
// over dimensions of interval overlaps (its own block's share of its read block: self; on
// a cluster, what reader i takes from holder j of its node: near[i][j]) and of the blocks
// its intervals meet (its messages). A dimension in which every reader of the group reads
// one interval and every holder owns one gives every rank and pair the same factor
// (`common`: most dimensions, as only the cuts finer than the group vary inside it); one
// in which only the holders' intervals vary gives a factor per holder (colFactor), only
// the readers' a factor per reader (rowFactor). Only the dimensions where both vary
// (`varying`) need the pairs one by one.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
void groupFactors(const RankBlockCoordinates& owned, const RankBlockCoordinates& read, const MetTables& met, std::size_t first,
                  std::size_t ni, std::size_t nj, GroupLoads& g) {
  std::fill_n(g.rowFactor.begin(), ni, 1);
  std::fill_n(g.colFactor.begin(), nj, 1);
  std::fill_n(g.receivedMet.begin(), ni, 1);
  std::fill_n(g.sentMet.begin(), nj, 1);
  // Factors shared by the group's readers and holders (sent: times the readers of each block).
  int64_t receivedMet = met.receivedNested, sentMet = met.readersPerBlock * met.sentNested;
  g.common = 1;
  g.varying.clear();
  for (std::size_t d = 0; d < met.consumerExtent.size(); ++d) {
    const int64_t ec = met.consumerExtent[d], ep = met.producerExtent[d];
    const int32_t* rc = read.byDim[d].data() + first;
    const int32_t* oc = owned.byDim[d].data() + first;
    const bool oneRead = allSame(rc, ni), oneOwned = allSame(oc, nj);
    const std::vector<int64_t>& metC = met.received[d];
    const std::vector<int64_t>& metP = met.sent[d];
    if (!metC.empty() && ni > 0) {
      if (oneRead) receivedMet *= metC[static_cast<std::size_t>(rc[0])];
      else for (std::size_t i = 0; i < ni; ++i) g.receivedMet[i] *= metC[static_cast<std::size_t>(rc[i])];
    }
    if (!metP.empty() && nj > 0) {  // a rank holding no block (coordinate -1) sends nothing
      if (oneOwned) sentMet *= oc[0] >= 0 ? metP[static_cast<std::size_t>(oc[0])] : 1;
      else for (std::size_t j = 0; j < nj; ++j) g.sentMet[j] *= oc[j] >= 0 ? metP[static_cast<std::size_t>(oc[j])] : 1;
    }
    if (ni == 0 || nj == 0) continue;  // no rank both reads and holds: no overlaps to count
    if (oneRead && oneOwned) g.common *= overlap(rc[0] * ec, ec, oc[0] * ep, ep);
    else if (oneRead) for (std::size_t j = 0; j < nj; ++j) g.colFactor[j] *= overlap(rc[0] * ec, ec, oc[j] * ep, ep);
    else if (oneOwned) for (std::size_t i = 0; i < ni; ++i) g.rowFactor[i] *= overlap(rc[i] * ec, ec, oc[0] * ep, ep);
    else g.varying.push_back(d);
  }
  for (std::size_t i = 0; i < ni; ++i) g.receivedMet[i] *= receivedMet;
  for (std::size_t j = 0; j < nj; ++j) g.sentMet[j] *= sentMet;
  const std::size_t nb = std::min(ni, nj);
  for (std::size_t i = 0; i < nb; ++i) g.self[i] = g.common * g.rowFactor[i] * g.colFactor[i];
  for (std::size_t d : g.varying) {
    const int64_t ec = met.consumerExtent[d], ep = met.producerExtent[d];
    const int32_t* rc = read.byDim[d].data() + first;
    const int32_t* oc = owned.byDim[d].data() + first;
    for (std::size_t i = 0; i < nb; ++i) g.self[i] *= overlap(rc[i] * ec, ec, oc[i] * ep, ep);
  }
}

// On a cluster, what stays inside one node (groupFactors made its factors; its readers
// and holders both exist): the row sums of near for the readers (rowSum, rowPieces), the
// column sums for the holders (colSum, colPieces), where near[i][j] is what reader i
// takes from holder j != i of the node. False when nothing stays inside.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
bool nearLoads(const RankBlockCoordinates& owned, const RankBlockCoordinates& read, const MetTables& met, std::size_t first,
               std::size_t ni, std::size_t nj, GroupLoads& g) {
  const std::size_t K = g.rowSum.size();
  const int64_t common = g.common;
  if (common == 0) return false;
  if (g.varying.empty()) {  // the sums are the factors' sums, less the pair (i, i)
    int64_t rowTotal = 0, rowCount = 0, colTotal = 0, colCount = 0;
    for (std::size_t i = 0; i < ni; ++i) rowTotal += g.rowFactor[i], rowCount += g.rowFactor[i] > 0 ? 1 : 0;
    for (std::size_t j = 0; j < nj; ++j) colTotal += g.colFactor[j], colCount += g.colFactor[j] > 0 ? 1 : 0;
    for (std::size_t i = 0; i < ni; ++i) {
      const int64_t same = i < nj ? g.colFactor[i] : 0;
      g.rowSum[i] = common * g.rowFactor[i] * (colTotal - same);
      g.rowPieces[i] = g.rowFactor[i] > 0 ? colCount - (same > 0 ? 1 : 0) : 0;
    }
    for (std::size_t j = 0; j < nj; ++j) {
      const int64_t same = j < ni ? g.rowFactor[j] : 0;
      g.colSum[j] = common * g.colFactor[j] * (rowTotal - same);
      g.colPieces[j] = g.colFactor[j] > 0 ? rowCount - (same > 0 ? 1 : 0) : 0;
    }
    return true;
  }
  for (std::size_t i = 0; i < ni; ++i) {
    int64_t* row = g.near.data() + i * K;
    for (std::size_t j = 0; j < nj; ++j) row[j] = common * g.rowFactor[i] * g.colFactor[j];
  }
  for (std::size_t d : g.varying) {
    const int64_t ec = met.consumerExtent[d], ep = met.producerExtent[d];
    const int32_t* rc = read.byDim[d].data() + first;
    const int32_t* oc = owned.byDim[d].data() + first;
    for (std::size_t i = 0; i < ni; ++i) {
      const int64_t loC = rc[i] * ec;
      int64_t* row = g.near.data() + i * K;
      for (std::size_t j = 0; j < nj; ++j) row[j] *= overlap(loC, ec, oc[j] * ep, ep);
    }
  }
  for (std::size_t i = 0; i < std::min(ni, nj); ++i) g.near[i * K + i] = 0;  // a rank's own block is no piece
  std::fill(g.colSum.begin(), g.colSum.end(), 0);
  std::fill(g.colPieces.begin(), g.colPieces.end(), 0);
  for (std::size_t i = 0; i < ni; ++i) {
    const int64_t* row = g.near.data() + i * K;
    int64_t sum = 0, pieces = 0;
    for (std::size_t j = 0; j < nj; ++j) {
      sum += row[j];
      pieces += row[j] > 0 ? 1 : 0;
      g.colSum[j] += row[j];
      g.colPieces[j] += row[j] > 0 ? 1 : 0;
    }
    g.rowSum[i] = sum, g.rowPieces[i] = pieces;
  }
  return true;
}

// The ranks taken together: a node on a cluster, else a run of 64 ranks (in cache).
std::size_t rankGroup(const einrt::RankNodes& nodes, int64_t devices) {
  return nodes.spansNodes(devices) ? static_cast<std::size_t>(nodes.ranksPerNode) : std::size_t{64};
}

// Per group of ranks (a node on a cluster, else a run of 64 ranks, in cache) the
// loads of every rank, folded into the traffic's busiest figures as they come: no
// per-rank array over all p ranks.
// (`allReaders`: the consumer's reading ranks, of which `read` may give the first few only.)
void rankLoads(const einrt::BlockGrid& producer, const RankBlockCoordinates& owned, const einrt::BlockGrid& consumer,
               const RankBlockCoordinates& read, std::size_t allReaders, int64_t devices, const einrt::RankNodes& nodes,
               Traffic& t) {
  const auto P = static_cast<std::size_t>(devices);
  const std::size_t readers = read.ranks(), holders = owned.ranks();
  const MetTables met = metTables(producer, consumer, allReaders);
  const int64_t readElements = consumer.blockElements(), sendElements = met.readersPerBlock * producer.blockElements();
  const bool cluster = nodes.spansNodes(devices);
  const std::size_t K = rankGroup(nodes, devices);
  GroupLoads g(K, cluster);
  LinkLoad* link[2] = {&t.intraNode, &t.interNode};
  for (std::size_t first = 0; first < P && (first < readers || first < holders); first += K) {
    const std::size_t n = std::min(K, P - first);
    const std::size_t ni = first < readers ? std::min(n, readers - first) : 0;
    const std::size_t nj = first < holders ? std::min(n, holders - first) : 0;
    const std::size_t nb = std::min(ni, nj);
    // What each rank already owns of the block it reads, and how many blocks meet its read
    // block (received messages) or its own block (times the readers of each: sent messages).
    groupFactors(owned, read, met, first, ni, nj, g);
    // On a cluster: what stays inside the node (nearLoads), the rest crosses the network.
    const bool inside = cluster && ni > 0 && nj > 0 && nearLoads(owned, read, met, first, ni, nj, g);
    for (std::size_t i = 0; i < n; ++i) {
      const int64_t own = i < nb ? g.self[i] : 0;
      const bool holds = i < nj && owned.holds(first + i);
      const int64_t received = i < ni ? readElements - own : 0, sent = holds ? sendElements - own : 0;
      const int64_t messages = (i < ni ? g.receivedMet[i] - (own > 0 ? 1 : 0) : 0) + (holds ? g.sentMet[i] - (own > 0 ? 1 : 0) : 0);
      t.elements += received;
      const int64_t nearReceived = inside && i < ni ? g.rowSum[i] : 0, nearSent = inside && i < nj ? g.colSum[i] : 0;
      const int64_t nearMessages = inside ? (i < ni ? g.rowPieces[i] : 0) + (i < nj ? g.colPieces[i] : 0) : 0;
      // Off a cluster every byte is on the one link (intra); on one, what is not near is far.
      LinkLoad& far = cluster ? t.interNode : t.intraNode;
      far.busiestElements = std::max({far.busiestElements, received - nearReceived, sent - nearSent});
      far.busiestMessages = std::max(far.busiestMessages, messages - nearMessages);
      if (cluster) {
        t.interNodeElements += received - nearReceived;
        link[0]->busiestElements = std::max({link[0]->busiestElements, nearReceived, nearSent});
        link[0]->busiestMessages = std::max(link[0]->busiestMessages, nearMessages);
      }
    }
  }
}

}  // namespace

Traffic canonicalRepartitionTraffic(const einrt::BlockGrid& producer, const RankBlockCoordinates& owned,
                                    const einrt::BlockGrid& consumer, const RankBlockCoordinates& read, int64_t devices,
                                    const einrt::RankNodes& nodes) {
  Traffic t;
  rankLoads(producer, owned, consumer, read, read.ranks(), devices, nodes, t);
  return t;
}

Traffic firstGroupRepartitionTraffic(const einrt::BlockGrid& producer, int64_t ownerStride, const einrt::BlockGrid& consumer,
                                     const einrt::model::BlockNumbers& readByRank, int64_t devices, const einrt::RankNodes& nodes) {
  const std::size_t K = std::min(rankGroup(nodes, devices), static_cast<std::size_t>(devices));
  const RankBlockCoordinates read =
      rankBlockCoordinates(consumer, einrt::model::BlockNumbers(readByRank.begin(), readByRank.begin() + static_cast<std::ptrdiff_t>(std::min(K, readByRank.size()))));
  const RankBlockCoordinates owned = ownedBlockCoordinates(producer, ownerStride, static_cast<int64_t>(K));
  Traffic t;
  rankLoads(producer, owned, consumer, read, readByRank.size(), devices, nodes, t);
  return t;
}

Traffic reducedReadTraffic(const einrt::BlockGrid& partials, const std::vector<std::vector<int>>& holders,
                           const einrt::BlockGrid& consumerGrid, const einrt::model::BlockNumbers& callBlock,
                           const std::vector<int>& callRank, int64_t devices, TrafficDetail detail, const einrt::RankNodes& nodes) {
  const char* what = "repartition traffic";
  Traffic t;
  const bool perRank = detail == TrafficDetail::PerRank;
  RankTally tally(perRank ? devices : 0, nodes, RankTally::GroupedBy::Receiver);  // needs are sorted by rank
  einrt::model::forEachReducedPiece(consumerGrid, einrt::model::distinctPairs(callBlock, callRank), partials, holders,
                                    [&](int rank, int64_t, int64_t elements, const std::vector<int>& pieceHolders) {
                                      for (int holder : pieceHolders) {
                                        if (holder == rank) continue;
                                        t.elements = checkedAdd(t.elements, elements, what);
                                        if (!nodes.sameNode(holder, rank)) t.interNodeElements = checkedAdd(t.interNodeElements, elements, what);
                                        if (perRank) tally.add(holder, rank, elements);
                                      }
                                    });
  if (perRank) tally.finish(t);
  return t;
}

Traffic aggregationTraffic(const CallGeometry& g, const std::vector<int>& callRank, const std::vector<int>& blockOwner,
                           int64_t devices, TrafficDetail detail, const einrt::RankNodes& nodes) {
  const char* what = "aggregation traffic";
  // Most nodes sum nothing across calls and own each output block where it is computed:
  // then nothing moves (the planner prices this for every node of every plan).
  bool allLocal = true;
  for (std::size_t c = 0; c < callRank.size() && allLocal; ++c)
    allLocal = callRank[c] == blockOwner[static_cast<std::size_t>(g.outputBlock[c])];
  if (allLocal) return {};
  // (rank holding a partial, output block), by rank and then block, each pair once: placed
  // by a counting sort over the ranks, each rank's few blocks sorted among themselves (this
  // runs for every candidate partition that cuts an aggregated label: a comparison sort of
  // every call was 40 % of the samples of planning one node of 20 labels at p = 65536,
  // 12.0 s, now 10.6).
  const std::size_t ranks = static_cast<std::size_t>(std::max<int64_t>(devices, *std::max_element(callRank.begin(), callRank.end()) + 1));
  std::vector<int64_t> at(ranks + 1, 0);
  for (const int r : callRank) ++at[static_cast<std::size_t>(r) + 1];
  for (std::size_t r = 0; r < ranks; ++r) at[r + 1] += at[r];
  std::vector<std::pair<int, int64_t>> partials(callRank.size());
  {
    std::vector<int64_t> next(at.begin(), at.end() - 1);
    for (std::size_t c = 0; c < callRank.size(); ++c)
      partials[static_cast<std::size_t>(next[static_cast<std::size_t>(callRank[c])]++)] = {callRank[c], g.outputBlock[c]};
  }
  for (std::size_t r = 0; r < ranks; ++r)
    if (at[r + 1] - at[r] > 1) std::sort(partials.begin() + at[r], partials.begin() + at[r + 1]);
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
