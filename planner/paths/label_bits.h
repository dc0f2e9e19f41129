// Label sets as bit sets over label ids, the currency of every path optimizer: a set is
// `words` 64-bit words, and many sets live in one flat array (LabelSets) so that the
// searches touch no allocator in their inner loops. The FLOP and size counts of SPEC 3
// over such sets are here too, so every optimizer counts a step the same way.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/paths/flop_count.h"

namespace eindecomp {

struct LabelSets {
  int words = 0;
  std::vector<uint64_t> bits;

  LabelSets() = default;
  LabelSets(std::size_t count, int wordsPerSet) : words(wordsPerSet), bits(count * wordsPerSet, 0) {}
  uint64_t* at(std::size_t i) { return bits.data() + i * words; }
  const uint64_t* at(std::size_t i) const { return bits.data() + i * words; }
};

inline int wordsForLabels(std::size_t labelCount) { return static_cast<int>((labelCount + 63) / 64); }

inline void setBits(uint64_t* set, const std::vector<int>& labels) {
  for (int l : labels) set[l / 64] |= uint64_t{1} << (l % 64);
}

inline bool hasBit(const uint64_t* set, int label) { return (set[label / 64] >> (label % 64)) & 1; }

inline bool intersects(const uint64_t* a, const uint64_t* b, int words) {
  for (int w = 0; w < words; ++w)
    if (a[w] & b[w]) return true;
  return false;
}

inline std::vector<int> labelsOf(const uint64_t* set, int words) {
  std::vector<int> out;
  for (int w = 0; w < words; ++w)
    for (uint64_t b = set[w]; b; b &= b - 1) out.push_back(w * 64 + __builtin_ctzll(b));
  return out;
}

inline FlopCount productOfSizes(const uint64_t* set, int words, const std::vector<int64_t>& sizes) {
  FlopCount prod = 1;
  for (int w = 0; w < words; ++w)
    for (uint64_t b = set[w]; b; b &= b - 1)
      prod = saturatingMul(prod, static_cast<FlopCount>(sizes[w * 64 + __builtin_ctzll(b)]));
  return prod;
}

// FLOPs of one binary step: every label of either operand and of the result spans the
// loop nest; one multiply per point, plus one add when some label is summed out.
inline FlopCount stepFlops(const uint64_t* a, const uint64_t* b, const uint64_t* result, int words,
                           const std::vector<int64_t>& sizes, std::vector<uint64_t>& scratch) {
  bool summed = false;
  for (int w = 0; w < words; ++w) {
    const uint64_t operands = a[w] | b[w];
    scratch[w] = operands | result[w];
    if (operands & ~result[w]) summed = true;
  }
  return saturatingMul(productOfSizes(scratch.data(), words, sizes), summed ? 2 : 1);
}

}  // namespace eindecomp
