#include "planner/cost/rank_bits.h"

#include <algorithm>
#include <numeric>

#include "planner/cost/traffic.h"

namespace eindecomp {

namespace {

// Which power of two v is, or -1.
int log2Exact(int64_t v) {
  if (v <= 0 || (v & (v - 1)) != 0) return -1;
  int k = 0;
  while ((int64_t{1} << k) < v) ++k;
  return k;
}

// Classes of rank bits joined by equalities, one of them the bits always 0.
class BitClasses {
 public:
  static constexpr int kZero = 64;
  BitClasses() { std::iota(parent_.begin(), parent_.end(), 0); }
  int find(int x) {
    while (parent_[static_cast<std::size_t>(x)] != x) x = parent_[static_cast<std::size_t>(x)] = parent_[static_cast<std::size_t>(parent_[static_cast<std::size_t>(x)])];
    return x;
  }
  void join(int a, int b) { parent_[static_cast<std::size_t>(find(a < 0 ? kZero : a))] = find(b < 0 ? kZero : b); }
  // The free bits among 0 .. bits-1: classes not holding the bits always 0.
  int freeClasses(int bits) {
    int free = 0;
    for (int b = 0; b < bits; ++b)
      if (find(b) == b && find(b) != find(kZero)) ++free;
    return free;
  }

 private:
  std::array<int, kZero + 1> parent_{};
};

}  // namespace

std::optional<RankBits> rankBitsOf(const std::vector<std::vector<int32_t>>& byDim, int64_t ownerStride) {
  RankBits bits;
  bits.zeroBits = log2Exact(ownerStride);
  const std::size_t ranks = byDim.empty() ? 0 : byDim[0].size();
  if (bits.zeroBits < 0 || ranks == 0) return std::nullopt;
  // The ranks described: the multiples of the stride up to the last, a power of two of them.
  const int64_t described = (static_cast<int64_t>(ranks) - 1) / ownerStride + 1;
  const int blockBits = log2Exact(described);
  if (blockBits < 0) return std::nullopt;
  bits.rankBits = bits.zeroBits + blockBits;
  for (const auto& coordinate : byDim) {
    std::array<int8_t, RankBits::kCoordinateBits> bitOf;
    bitOf.fill(-1);
    if (coordinate[0] != 0) return std::nullopt;
    for (int i = bits.zeroBits; i < bits.rankBits; ++i) {
      const int j = coordinate[std::size_t{1} << i] == 0 ? -2 : log2Exact(coordinate[std::size_t{1} << i]);
      if (j == -2) continue;  // this rank bit does not move the coordinate
      if (j < 0 || j >= RankBits::kCoordinateBits || bitOf[static_cast<std::size_t>(j)] >= 0) return std::nullopt;
      bitOf[static_cast<std::size_t>(j)] = static_cast<int8_t>(i);
    }
    // A selection of bits is additive over disjoint bits: each rank's coordinate is that
    // of the rank less its lowest bit plus that of the lowest bit.
    for (std::size_t r = ownerStride; r < ranks; r += static_cast<std::size_t>(ownerStride))
      if (coordinate[r] != coordinate[r & (r - 1)] + coordinate[r & (~r + 1)]) return std::nullopt;
    bits.bitOf.push_back(bitOf);
  }
  return bits;
}

std::optional<int64_t> ownedOfReadByBits(const RankBits& read, const RankBits& owned, const std::vector<int64_t>& readExtent,
                                         const std::vector<int64_t>& ownedExtent) {
  BitClasses classes;
  // Every rank read by (0 .. 2^read.rankBits - 1); only the canonical owners keep anything.
  for (int b = 0; b < BitClasses::kZero; ++b)
    if (b >= read.rankBits || b < owned.zeroBits || b >= owned.rankBits) classes.join(b, -1);
  int64_t keptPerRank = 1;
  for (std::size_t d = 0; d < readExtent.size(); ++d) {
    const int64_t ec = readExtent[d], ep = ownedExtent[d];
    if (ec <= 0 || ep <= 0) return std::nullopt;
    // Read coordinate c, owned o: with ec = 2^k ep the intervals meet (the owned one
    // inside) exactly when o >> k == c; with ep = 2^k ec, when c >> k == o.
    const bool readLarger = ec >= ep;
    const int k = readLarger ? log2Exact(ec / ep) : log2Exact(ep / ec);
    if (k < 0 || (readLarger ? ec % ep : ep % ec) != 0) return std::nullopt;
    const auto& shifted = readLarger ? owned.bitOf[d] : read.bitOf[d];
    const auto& other = readLarger ? read.bitOf[d] : owned.bitOf[d];
    for (int t = 0; t < RankBits::kCoordinateBits; ++t)
      classes.join(t + k < RankBits::kCoordinateBits ? shifted[static_cast<std::size_t>(t + k)] : -1, other[static_cast<std::size_t>(t)]);
    keptPerRank *= std::min(ec, ep);
  }
  return keptPerRank << classes.freeClasses(read.rankBits);
}

// The rank block coordinates (traffic.h) are made here, where their bits are found.

RankBlockCoordinates rankBlockCoordinates(const einrt::BlockGrid& grid, const einrt::model::BlockNumbers& blockOfRank) {
  RankBlockCoordinates c;
  assignRankBlockCoordinates(grid, blockOfRank, c);
  return c;
}

void assignRankBlockCoordinates(const einrt::BlockGrid& grid, const einrt::model::BlockNumbers& blockOfRank,
                                RankBlockCoordinates& c) {
  c.ownerStride = 1;
  c.byDim.resize(grid.dims());
  for (auto& coordinates : c.byDim) coordinates.resize(blockOfRank.size());  // every entry is written below
  for (std::size_t r = 0; r < blockOfRank.size(); ++r) {
    int64_t b = blockOfRank[r];
    for (std::size_t d = grid.dims(); d-- > 0;) {
      c.byDim[d][r] = static_cast<int32_t>(b % grid.parts[d]);
      b /= grid.parts[d];
    }
  }
  c.bits = rankBitsOf(c.byDim, 1);
}

RankBlockCoordinates ownedBlockCoordinates(const einrt::BlockGrid& grid, int64_t ownerStride, int64_t rankEnd) {
  // The ranks 0 .. rankEnd - 1, past the last holder (blockCount - 1) * stride none.
  const int64_t ranks = std::min(rankEnd, (grid.blockCount() - 1) * ownerStride + 1);
  einrt::model::BlockNumbers blocks(static_cast<std::size_t>((ranks + ownerStride - 1) / ownerStride));
  for (std::size_t b = 0; b < blocks.size(); ++b) blocks[b] = static_cast<int32_t>(b);
  RankBlockCoordinates c = rankBlockCoordinates(grid, blocks);
  if (ownerStride == 1) return c;
  c.ownerStride = ownerStride;
  for (auto& coordinates : c.byDim) {
    std::vector<int32_t> spread(static_cast<std::size_t>(ranks), -1);
    for (std::size_t b = 0; b < coordinates.size(); ++b) spread[b * static_cast<std::size_t>(ownerStride)] = coordinates[b];
    coordinates = std::move(spread);
  }
  c.bits = rankBitsOf(c.byDim, ownerStride);
  return c;
}

}  // namespace eindecomp
