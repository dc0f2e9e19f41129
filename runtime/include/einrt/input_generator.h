// The deterministic input generator (SPEC 5 and 7): every element of every graph input
// is a pure function of (seed, tensor name, global flat C-order index), so the reference
// evaluator (`einplan eval --seed S`) and every rank of an emitted program (each making
// only its own blocks) produce bit-identical inputs without communicating. The algorithm
// is counter-based and fully specified in docs/evaluator.md so anyone can reimplement it:
//
//   fnv1a64(name)     FNV-1a 64 over the name's bytes (offset 0xcbf29ce484222325,
//                     prime 0x100000001b3)
//   splitmix64(z)     z += 0x9e3779b97f4a7c15;
//                     z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
//                     z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
//                     return z ^ (z >> 31)            (all arithmetic mod 2^64)
//   key               = fnv1a64(name) ^ splitmix64(seed)
//   bits(index)       = splitmix64(key + index)
//   value(index)      = (double)((int64)(bits >> 10) - 2^53) / 2^53     exactly, in [-1, 1)
//
// f64 tensors take the value as is; f32 tensors take (float)value (round to nearest),
// which lies in [-1, 1] (1 - 2^-53 and its neighbours round up to 1.0f); bf16 and f16
// tensors round that float to nearest even once more (einrt/half.h). Index tensors (ids,
// SPEC 8) take id(index) = bits(index) mod range, where range is the size of the label
// their ids select (the smallest, when several gathers read them): always valid ids.
// Header-only, dependency-free C++17: emitted programs include it through einrt.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

namespace einrt {

// FNV-1a, 64-bit, over the bytes of `text`.
inline uint64_t fnv1a64(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

// One step of SplitMix64 (Steele, Lea, Flood 2014) used as a stateless mixing function.
inline uint64_t splitmix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The per-tensor stream key: computed once per tensor, then every element is one
// splitmix64 away.
inline uint64_t inputStreamKey(uint64_t seed, std::string_view tensorName) {
  return fnv1a64(tensorName) ^ splitmix64(seed);
}

// The value of the element at global flat C-order index `index` of the tensor whose
// stream key is `key`: the top 54 bits of the hash, centred and scaled by 2^-53. Every
// step is exact in double, so the result is the same on every conforming platform.
inline double inputValue(uint64_t key, uint64_t index) {
  const uint64_t bits = splitmix64(key + index);
  const int64_t centred = static_cast<int64_t>(bits >> 10) - (int64_t{1} << 53);
  return static_cast<double>(centred) / 9007199254740992.0;  // 2^53
}

// The same for an element type: double as is, float rounded to nearest.
template <class T>
inline T inputElement(uint64_t key, uint64_t index) {
  if constexpr (std::is_same_v<T, double>) return inputValue(key, index);
  else return static_cast<T>(static_cast<float>(inputValue(key, index)));
}

// Fills out[0 .. count) with the elements of flat indices 0 .. count of the tensor.
template <class T>
inline void fillInput(uint64_t seed, std::string_view tensorName, std::size_t count, T* out) {
  const uint64_t key = inputStreamKey(seed, tensorName);
  for (std::size_t i = 0; i < count; ++i) out[i] = inputElement<T>(key, i);
}

// The id at global flat index `index` of the index tensor of stream key `key`.
inline int64_t inputIndex(uint64_t key, uint64_t index, int64_t range) {
  return static_cast<int64_t>(splitmix64(key + index) % static_cast<uint64_t>(range));
}

// Calls element(n, global) for the n-th element (C order) of the block of extents
// blockShape at blockOffset of a tensor of extents globalShape, with its global flat
// index. Shapes and offsets must be consistent (offset + block extent <= global extent
// per dimension); a 0-d tensor has empty shapes and one element.
template <class F>
inline void forEachBlockElement(const std::vector<int64_t>& globalShape, const std::vector<int64_t>& blockOffset,
                                const std::vector<int64_t>& blockShape, F&& element) {
  const std::size_t rank = globalShape.size();
  std::size_t count = 1;
  for (int64_t e : blockShape) count *= static_cast<std::size_t>(e);
  if (count == 0) return;
  std::vector<int64_t> pos(rank, 0);  // position inside the block, C order odometer
  for (std::size_t n = 0; n < count; ++n) {
    uint64_t global = 0;
    for (std::size_t d = 0; d < rank; ++d)
      global = global * static_cast<uint64_t>(globalShape[d]) +
               static_cast<uint64_t>(blockOffset[d] + pos[d]);
    element(n, global);
    for (std::size_t d = rank; d-- > 0;) {
      if (++pos[d] < blockShape[d]) break;
      pos[d] = 0;
    }
  }
}

// Fills `out` (C order, extents blockShape) with the block of the tensor of extents
// globalShape that starts at blockOffset: element (o + b) of the global tensor for every
// b in the block. A rank calls this for each block it owns.
template <class T>
inline void fillInputBlock(uint64_t seed, std::string_view tensorName,
                           const std::vector<int64_t>& globalShape,
                           const std::vector<int64_t>& blockOffset,
                           const std::vector<int64_t>& blockShape, T* out) {
  const uint64_t key = inputStreamKey(seed, tensorName);
  forEachBlockElement(globalShape, blockOffset, blockShape,
                      [&](std::size_t n, uint64_t global) { out[n] = inputElement<T>(key, global); });
}

// The same for an index tensor whose ids lie in [0, range).
template <class I>
inline void fillIndexBlock(uint64_t seed, std::string_view tensorName, const std::vector<int64_t>& globalShape,
                           const std::vector<int64_t>& blockOffset, const std::vector<int64_t>& blockShape, int64_t range,
                           I* out) {
  const uint64_t key = inputStreamKey(seed, tensorName);
  forEachBlockElement(globalShape, blockOffset, blockShape,
                      [&](std::size_t n, uint64_t global) { out[n] = static_cast<I>(inputIndex(key, global, range)); });
}

}  // namespace einrt
