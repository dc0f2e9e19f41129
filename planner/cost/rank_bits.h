// Rank classes of the canonical placement, by bits: where every grid's parts and the
// ranks are powers of two, the canonical rule (placement.h) makes each block coordinate
// of a rank a selection of the rank's bits — coordinate bit j is rank bit bitOf[j], or
// always 0. A repartition between two such layouts keeps a rank's elements only where
// the two coordinates nest in every dimension, which is a set of equalities between rank
// bits; the ranks keeping anything are then counted by the classes of bits those
// equalities join, in O(dims x bits) instead of the O(ranks x dims) of visiting every
// rank (traffic.h canonicalRepartitionElements: the search prices 200,000 pairs of
// layouts over 16,384 ranks for LLaMA-65B on a cluster). rank_bits.cpp also makes the
// rank block coordinates themselves (traffic.h RankBlockCoordinates), describing each.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace eindecomp {

struct RankBits {
  // The ranks described are those below 2^rankBits whose lowest `zeroBits` bits are 0
  // (the canonical owners: block b on rank b x 2^zeroBits); every other rank has none.
  int zeroBits = 0, rankBits = 0;
  static constexpr int kCoordinateBits = 31;
  // [dim][coordinate bit]: the rank bit it is, -1 where the bit is always 0.
  std::vector<std::array<int8_t, kCoordinateBits>> bitOf;
};

// The bit description of per-dimension block coordinates ([dim][rank], -1 where a rank
// holds none), with the ranks holding a block the multiples of `ownerStride`; none where
// the coordinates are not a selection of the rank's bits (checked for every rank).
std::optional<RankBits> rankBitsOf(const std::vector<std::vector<int32_t>>& byDim, int64_t ownerStride);

// The elements each reading rank already owns of its read block, summed (what
// ownedOfRead counts rank by rank), from the two layouts' bits and block extents per
// dimension (read: the consumer's, owned: the producer's); none where some dimension's
// extents do not nest by a power of two (then the overlaps are not all-or-nothing).
std::optional<int64_t> ownedOfReadByBits(const RankBits& read, const RankBits& owned, const std::vector<int64_t>& readExtent,
                                         const std::vector<int64_t>& ownedExtent);

}  // namespace eindecomp
