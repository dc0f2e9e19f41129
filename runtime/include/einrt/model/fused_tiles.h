// The tile geometry of a fused group (tables.h FusionSpec), one home for the executor
// (runtime/src/program/fused_group.h) and the planner's memory model (through
// program_model.h): the rows of the group's dimensions per tile and the box a tile
// covers, and how many elements a scratch member's tile holds. Scratch tiles are sized
// with the one-thread geometry (the largest tiles: more threads only cut tiles smaller),
// one set per thread, so a rank's fused-tile workspace is `threads x workspaceElements`
// whatever the thread count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "einrt/model/tables.h"

namespace einrt::model {

// What the tiles of a group may touch in all: a quarter of a typical 1 MiB L2.
inline constexpr int64_t kTileBytes = 256 * 1024;

// Tiles are boxes whose outer group dimensions (before `split`) have extent 1, the split
// dimension a range of `chunk` and the inner ones whole.
struct TileBox {
  int split = 0;
  int64_t chunk = 1;
};

// Bytes per row of the group dimensions over every tensor the members touch, given each
// such tensor's block elements in member order (output first, then operands).
inline double fusedRowBytes(const std::vector<int64_t>& tensorBlockElements, std::size_t elementSize, int64_t rows) {
  double rowBytes = 0;
  for (int64_t e : tensorBlockElements) rowBytes += static_cast<double>(e) * static_cast<double>(elementSize) / static_cast<double>(rows);
  return rowBytes;
}

// The box: rows per tile within kTileBytes and at least one tile per thread; inner group
// dimensions whole while they fit, then a range of the next one.
inline TileBox fusedTileBox(const std::vector<int64_t>& groupExtent, double rowBytes, int threads) {
  int64_t rows = 1;
  for (int64_t e : groupExtent) rows *= e;
  const int64_t t = std::max(1, threads);
  int64_t tileRows = std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(kTileBytes) / std::max(1.0, rowBytes)));
  tileRows = std::min(tileRows, std::max<int64_t>(1, (rows + t - 1) / t));
  TileBox box;
  box.chunk = groupExtent.empty() ? 1 : groupExtent[0];
  int64_t inner = 1;
  const int k = static_cast<int>(groupExtent.size());
  for (int q = k - 1; q >= 0; --q) {
    const int64_t e = groupExtent[static_cast<std::size_t>(q)];
    if (inner * e <= tileRows) {
      inner *= e;
      continue;
    }
    box.split = q;
    box.chunk = std::max<int64_t>(1, tileRows / inner);
    break;
  }
  return box;
}

// Elements of a member's output tile (the full tile, not the last one of the split
// dimension): `outputExtent` is the member's block extent per output dimension, the
// first group-many of them the group dimensions.
inline int64_t fusedTileElements(const std::vector<int64_t>& outputExtent, int groupDims, const TileBox& box) {
  int64_t n = 1;
  for (int q = 0; q < static_cast<int>(outputExtent.size()); ++q) {
    int64_t e = outputExtent[static_cast<std::size_t>(q)];
    if (q < groupDims && q < box.split) e = 1;
    else if (q < groupDims && q == box.split) e = std::min(box.chunk, e);
    n *= e;
  }
  return n;
}

// A group's geometry on blocks of its members' partitions: the group dimensions' block
// extents, the tiles for `threads` threads and for one (which sizes the scratch tiles),
// and where each member's scratch tile lies in a thread's workspace.
struct FusedGroupGeometry {
  int first = 0, last = -1, tileDims = 0;
  std::vector<int64_t> groupExtent;  // block extent of each group dimension
  TileBox box;                       // the tiles the threads run
  TileBox largest;                   // one thread's tiles: sizes the scratch tiles
  std::vector<int64_t> slotOffset;   // per member (first..last): its scratch tile's offset, -1: none
  int64_t workspaceElements = 0;     // scratch elements per thread
};

// Members t.nodes[first..last] (the group's dimensions: the first member's tileDims);
// `scratch`: per node of the tables, whether its output is kept in tiles only.
FusedGroupGeometry fusedGroupGeometry(const ProgramTables& t, const std::vector<bool>& scratch, int first, int last,
                                      std::size_t elementSize, int threads);

}  // namespace einrt::model
