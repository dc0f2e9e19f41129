// Block geometry shared by placement and byte prediction: a tensor cut into a grid of
// equal blocks (parts per dimension, each dividing the extent), block numbering row-major
// over the grid, and the overlap between a block of one grid and the blocks of another.
// The emitted program derives its messages with its own copy of this logic
// (templates/ein_program.h), so a test comparing predicted and measured bytes compares two
// independent derivations.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace eindecomp::codegen {

struct BlockGrid {
  std::vector<int64_t> shape;
  std::vector<int64_t> parts;
  int64_t blockCount() const;
  int64_t blockExtent(std::size_t dim) const { return shape[dim] / parts[dim]; }
  int64_t blockElements() const;
  std::vector<int64_t> coords(int64_t block) const;       // row-major decomposition
  int64_t index(const std::vector<int64_t>& coords) const;
};

// Calls `visit(producerBlock, overlapElements)` for every block of `from` that overlaps
// block `block` of `to` (both grids over the same shape).
void forEachOverlap(const BlockGrid& to, int64_t block, const BlockGrid& from,
                    const std::function<void(int64_t, int64_t)>& visit);

}  // namespace eindecomp::codegen
