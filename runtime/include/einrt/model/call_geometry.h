// What a partition means call by call (the tensor-relational join of SPEC 2): a node cut
// by `parts` runs prod(parts) kernel calls, numbered row-major over the partition grid
// (labels in label order); each call reads one block of every operand and writes one block
// of the output, and the calls that write the same output block differ only in their
// aggregation coordinate (their cell restricted to the aggregated labels, row-major). The
// planner's placement, traffic and memory models and the executor all read this; the
// decoding itself is einrt's one block-grid decoder (einrt/block_grid.h).
#pragma once

#include <cstdint>
#include <vector>

#include "einrt/block_grid.h"
#include "einrt/model/tables.h"

namespace einrt::model {

struct CallGeometry {
  int64_t calls = 1;
  std::vector<BlockGrid> operandGrid;               // per operand
  BlockGrid outputGrid;
  std::vector<std::vector<int64_t>> operandBlock;   // [operand][call]: the block the call reads
  std::vector<int64_t> outputBlock;                 // [call]: the block the call writes
  std::vector<int64_t> aggCoordinate;               // [call]: row-major over the aggregated labels
  int64_t aggParts = 1;                             // prod of the aggregated labels' parts
};

// `aggregated`: aggregatedLabels(shape), which callers that price many partitions of one
// node compute once.
CallGeometry callGeometry(const NodeShape& shape, const std::vector<int64_t>& parts, const std::vector<int>& aggregated);

}  // namespace einrt::model
