// A tensor's block layout across MPI ranks: the tensor's bound (shape), its blocks as
// boxes that tile the bound, and for every block the rank or ranks holding it. Several
// holders are replicas of the same values, or - for Holding::Partial - partial results
// that still have to be combined with `reduce`. Blocks are numbered 0..blocks.size()-1;
// a rank's buffers are addressed by these numbers (BlockMap in redistribute.h).
// Layouts are plain data: build them with the factories below or by hand, then check
// them with validate() (the planners do so before any message is sent).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "einrt/block_grid.h"
#include "einrt/box.h"
#include "einrt/types.h"

namespace einrt {

struct Block {
  Box box;                 // the part of the tensor this block covers
  std::vector<int> ranks;  // holders, in the order partial results are combined
  // The box the holders' buffer covers, when larger than `box` (a destination block read
  // through a window, SPEC 8.1: its buffer holds the whole window block, the part outside
  // the tensor already filled by the holder); empty: the buffer covers `box`.
  Box storage{};
  const Box& buffer() const { return storage.lo.empty() ? box : storage; }
};

struct Layout {
  std::vector<int64_t> shape;  // the tensor's bound
  std::vector<Block> blocks;   // tile the bound exactly, no overlaps (but see `overlapping`)
  Holding holding = Holding::Replicas;
  Reduce reduce = Reduce::Sum;  // how partial holders combine (Holding::Partial only)
  // A destination read through a window with a halo (a convolution's input, SPEC 8.1):
  // neighbouring blocks share their halo rows, each block a buffer of its own that
  // receives them; its blocks cover the bound at least once instead of tiling it.
  bool overlapping = false;

  // A regular grid: `parts[d]` parts along dimension d (extent not necessarily divisible:
  // the first `shape[d] % parts[d]` parts are one element longer). Blocks are numbered in
  // row-major order of their grid coordinates; `owners[b]` lists the holders of block b.
  static Layout grid(const std::vector<int64_t>& shape, const std::vector<int64_t>& parts,
                     const std::vector<std::vector<int>>& owners,
                     Holding holding = Holding::Replicas, Reduce reduce = Reduce::Sum);

  // The blocks of a grid read through a window (BlockGrid::origin), as a destination over
  // the tensor: each grid block that reads part of the tensor is a block whose box is that
  // part and whose buffer box the whole window block (the holders fill the rest), held by
  // `owners[b]`; boxes nobody holds tile what no block reads. `layoutBlock[b]`: grid block
  // b's number in the layout, -1 where it reads nothing.
  static Layout window(const BlockGrid& grid, const std::vector<std::vector<int>>& owners, std::vector<int64_t>& layoutBlock);

  // Arbitrary boxes (they must tile the bound) with their holders.
  static Layout boxes(const std::vector<int64_t>& shape, std::vector<Block> blocks,
                      Holding holding = Holding::Replicas, Reduce reduce = Reduce::Sum);

  // The whole tensor as one block held by `root` (what scatter reads and gather writes).
  static Layout whole(const std::vector<int64_t>& shape, int root);

  // The whole tensor as one block replicated on ranks 0..nranks-1.
  static Layout replicated(const std::vector<int64_t>& shape, int nranks);

  int64_t elements() const;                             // prod(shape)
  std::vector<std::size_t> blocksHeldBy(int rank) const;  // block numbers, ascending
};

// Number of elements of a block's buffer (row-major over its buffer box).
inline int64_t blockElements(const Layout& layout, std::size_t block) {
  return volume(layout.blocks.at(block).buffer());
}

// Grid coordinates -> block number for Layout::grid (row-major), and the box of one part.
std::size_t gridBlockIndex(const std::vector<int64_t>& parts, const std::vector<int64_t>& coord);
Box gridBox(const std::vector<int64_t>& shape, const std::vector<int64_t>& parts,
            const std::vector<int64_t>& coord);

// Throws LayoutError naming `tensor` unless: every extent is >= 0, every block box has the
// tensor's rank and lies in the bound, the blocks tile the bound exactly (no gaps, no
// overlaps), every block has at least one holder (unless `everyBlockHeld` is false: a
// destination block nobody holds is delivered nowhere — the off-diagonal blocks of an
// operand read along a diagonal), holders are in [0, nranks) and no block lists a holder
// twice.
void validate(const Layout& layout, int nranks, const std::string& tensor, bool everyBlockHeld = true);

// validate() for both sides plus: the same shape on both sides, and a destination that
// holds complete values (Holding::Replicas; partial results must be combined on the way).
void validatePair(const Layout& src, const Layout& dst, int nranks, const std::string& tensor);

}  // namespace einrt
