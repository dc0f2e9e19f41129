// Independent oracles for the einrt tests: element values as a pure function of the
// global index, the serial reference of a redistribution (each element combined from its
// holders by brute force), the bytes a layout pair implies (box intersections whose
// source and destination ranks differ), and random layout generation (factors 2 and 3).
// None of it calls into einrt's planning code; it only uses the plain Layout data.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "einrt/einrt.h"

namespace einrt_test {

extern uint64_t baseSeed;

// Value of element `flat` (C order) as held by `holder` of a partial block, or the plain
// value (holder -1). Small integers, so every summation/product order is exact.
double elementValue(uint64_t tensorKey, int64_t flat, int holder);

// Row-major flat index of a global coordinate.
int64_t flatIndex(const std::vector<int64_t>& shape, const std::vector<int64_t>& coord);

// Calls f(globalCoord, positionInBox) for every element of `box`, row-major.
template <class F>
void forEachElement(const einrt::Box& box, F&& f) {
  const int64_t n = einrt::volume(box);
  std::vector<int64_t> coord(box.lo);
  for (int64_t i = 0; i < n; ++i) {
    f(coord, i);
    for (int d = static_cast<int>(box.rank()) - 1; d >= 0; --d) {
      if (++coord[d] < box.hi[d]) break;
      coord[d] = box.lo[d];
    }
  }
}

// This rank's source blocks filled with the values it holds (partial holders get their
// own partial values), as f64 or f32 storage.
struct HostBlocks {
  std::vector<std::vector<double>> f64;
  std::vector<std::vector<float>> f32;
  einrt::BlockMap map;
};
HostBlocks makeSourceBlocks(const einrt::Layout& src, einrt::DType dtype, int rank, uint64_t key);
HostBlocks makeEmptyBlocks(const einrt::Layout& dst, einrt::DType dtype, int rank, double fill);

// The complete value of every element after combining partial holders (brute force).
std::vector<double> referenceTensor(const einrt::Layout& src, uint64_t key);

// Number of elements of this rank's destination blocks that differ from the reference.
int64_t countMismatches(const einrt::Layout& dst, const HostBlocks& blocks, einrt::DType dtype, int rank,
                        const std::vector<double>& reference);

// Bytes implied by a layout pair: total, and received per rank.
struct ImpliedBytes {
  uint64_t total = 0;
  std::vector<uint64_t> recvByRank;
};
ImpliedBytes impliedBytes(const einrt::Layout& src, const einrt::Layout& dst, einrt::DType dtype, int nranks);

// Random layouts.
std::vector<int64_t> randomShape(std::mt19937_64& rng);
einrt::Layout randomLayout(std::mt19937_64& rng, const std::vector<int64_t>& shape, int nranks, bool allowPartial);

std::string describe(const einrt::Layout& layout);

}  // namespace einrt_test
