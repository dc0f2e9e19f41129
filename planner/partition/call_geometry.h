// What a partition means block by block (the tensor-relational join of SPEC 2): a node
// cut by `parts` runs prod(parts) kernel calls, numbered row-major over the partition
// grid (labels in label order); each call reads one block of every operand and writes
// one block of the output, and the calls that write the same output block differ only in
// their aggregation coordinate (their cell restricted to the aggregated labels,
// row-major). Placement (which rank runs each call) and the traffic model both read
// this; the decoding itself is einrt's one block-grid decoder (einrt/block_grid.h).
#pragma once

#include <cstdint>
#include <vector>

#include <einrt/block_grid.h>

#include "planner/partition/partition.h"

namespace eindecomp {

struct CallGeometry {
  int64_t calls = 1;
  std::vector<einrt::BlockGrid> operandGrid;        // per operand
  einrt::BlockGrid outputGrid;
  std::vector<std::vector<int64_t>> operandBlock;   // [operand][call]: the block the call reads
  std::vector<int64_t> outputBlock;                 // [call]: the block the call writes
  std::vector<int64_t> aggCoordinate;               // [call]: row-major over the aggregated labels
  int64_t aggParts = 1;                             // prod of the aggregated labels' parts
};

CallGeometry callGeometry(const NodeSpace& space, const Parts& parts);

}  // namespace eindecomp
