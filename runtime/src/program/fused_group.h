// One fused group of a program (einrt/model/tables.h FusionSpec) prepared for its block
// shape, in the geometry einrt's model gives it (einrt/model/fused_tiles.h): the
// members run tile by tile, each tile a box of the group's dimensions small enough that
// everything the members touch for it stays in cache (kTileBytes), so each input is read
// from memory once and an output kept as scratch never leaves the tile buffers. Tiles are
// boxes whose outer group dimensions have extent 1, one dimension a range and the inner
// ones full, so a tile of every member's output is contiguous in its block and a tile-sized
// scratch buffer has the block's own strides. Tiles are split between the program's
// threads, each with its own scratch tiles in the workspace the executor passes
// (threads x workspaceElements()). Host memory only.
#pragma once

#include <cstdint>
#include <vector>

#include "einrt/model/fused_tiles.h"
#include "einrt/program/loop_nest.h"
#include "einrt/program/spec.h"

namespace einrt::program::detail {


template <class T>
class FusedGroup {
 public:
  FusedGroup() = default;
  // Members spec.nodes[first..last] of `geometry` (made for the program's --threads).
  FusedGroup(const ProgramSpec<T>& spec, const model::FusedGroupGeometry& geometry, int threads);

  // Per member, for one block of the group: its operand blocks (null where the operand is
  // another member's scratch output) and its output block (null for scratch).
  struct MemberBlocks {
    const T* operand[2] = {nullptr, nullptr};
    T* output = nullptr;
  };
  // `workspace`: threads x workspaceElements() elements.
  void run(const std::vector<MemberBlocks>& blocks, T* workspace);
  // Scratch elements one thread needs (the members' scratch tiles, largest geometry).
  int64_t workspaceElements() const { return workspaceElements_; }

  int first() const { return first_; }
  int last() const { return last_; }
  int64_t tiles() const { return tiles_; }

 private:
  // How one tensor of a member is addressed in a tile: from its block at the tile's offset
  // (strides of the group dimensions up to the split one), or from a member's scratch.
  struct Access {
    int scratch = -1;  // scratch slot read or written, -1: the block
    std::vector<int64_t> groupStride;
  };
  struct Member {
    ElementwiseFn<T> elementwise = nullptr;
    LoopNest nest[2];  // full tile, last tile of the split dimension
    Access x, y, z;
    bool hasY = false;
  };
  void runTiles(const std::vector<MemberBlocks>& blocks, T* workspace, int64_t begin, int64_t end, int thread);

  const ProgramSpec<T>* spec_ = nullptr;
  int first_ = 0, last_ = -1, threads_ = 1;
  std::vector<int64_t> groupExtent;  // block extent of each group dimension
  int split_ = 0;                    // the group dimension tiles cut into ranges
  int64_t chunk_ = 1;                // of that dimension per tile
  int64_t chunks_ = 1, tiles_ = 1;
  std::vector<Member> members_;
  std::vector<int64_t> slotOffset_;  // per member, its scratch tile in a thread's workspace (-1: none)
  int64_t workspaceElements_ = 0;
};

}  // namespace einrt::program::detail
