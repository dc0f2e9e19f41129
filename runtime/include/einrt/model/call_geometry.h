// What a partition means call by call (the tensor-relational join of SPEC 2): a node cut
// by `parts` runs prod(parts) kernel calls, numbered row-major over the partition grid
// (labels in label order); each call reads one block of every operand and writes one block
// of the output, and the calls that write the same output block differ only in their
// aggregation coordinate (their cell restricted to the aggregated labels, row-major). The
// planner's placement, traffic and memory models and the executor all read this; the
// decoding itself is einrt's one block-grid decoder (einrt/block_grid.h).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "einrt/block_grid.h"
#include "einrt/model/tables.h"
#include "einrt/program/loop_nest.h"

namespace einrt::model {

// Block numbers (or aggregation coordinates) per call or per rank: below the tensor's
// block count, which callGeometry bounds by 2^31 - 1 (blockNumbersFit). Four bytes each,
// not eight: a plan holds p of them per node and operand (LLaMA-65B at p = 16384: 2,645
// nodes), the largest share of the planner's memory. A tensor's block count is at most
// the call count unless a label repeats in it: an operand `iii` cut 1291 ways along i has
// 1291^3 blocks.
using BlockNumbers = std::vector<int32_t>;

struct CallGeometry {
  int64_t calls = 1;
  std::vector<BlockGrid> operandGrid;               // per operand
  BlockGrid outputGrid;
  std::vector<BlockNumbers> operandBlock;           // [operand][call]: the block the call reads
  BlockNumbers outputBlock;                         // [call]: the block the call writes
  BlockNumbers aggCoordinate;                       // [call]: row-major over the aggregated labels
  int64_t aggParts = 1;                             // prod of the aggregated labels' parts
};

// One call geometry per distinct node shape and partition, shared: a model's repeated
// layers cut the same nodes the same way, and each geometry is p block numbers per
// operand (LLaMA-65B at p = 16,384: 600 MB over 2,645 nodes where 33 distinct ones do).
class SharedGeometries {
 public:
  // callGeometry(shape, parts, aggregated), made once.
  std::shared_ptr<const CallGeometry> of(const NodeShape& shape, const std::vector<int64_t>& parts, const std::vector<int>& aggregated);

 private:
  struct Kept {
    NodeShape shape;
    std::vector<int64_t> parts;
    std::vector<int> aggregated;
    std::shared_ptr<const CallGeometry> geometry;
  };
  std::unordered_map<uint64_t, std::vector<Kept>> byHash_;
};

// The grid `parts` cuts operand k of a node into: its labels' blocks, and where the operand
// is read through a window, the window's origin and the tensor's extent; through a tap
// label, the origin moved to the tap's lowest reach and the halo its range
// (|dilation| * (taps - 1): a convolution's input block is its output block plus the
// halo); through a step or a spread, the rows those read (BlockGrid::step, ::spread).
BlockGrid operandGrid(const NodeShape& shape, const std::vector<int64_t>& parts, std::size_t k);

// Whether a node cut by `parts` numbers its calls, every operand's blocks and the output's
// in BlockNumbers (below 2^31). callGeometry throws std::length_error where not; the
// planner leaves such partitions out of its candidates.
bool blockNumbersFit(const NodeShape& shape, const std::vector<int64_t>& parts);

// How a call walks operand k's block buffer (blocks of `extent` per iteration label): per
// label its stride (row-major over the block's extents; through a tap label the tapped
// dimension spans the halo too, and the tap's stride is its dilation times the
// dimension's; a step multiplies its label's stride) and `base`, the element of tap 0 (a
// negative dilation starts at the far end of the span).
struct OperandWalk {
  std::vector<int64_t> stride;
  int64_t base = 0;
};
OperandWalk operandWalk(const NodeShape& shape, const std::vector<int64_t>& extent, std::size_t k);

// The loops of one elementwise call over blocks of `extent`: the program's kernel runs it
// and the planner's time model prices it (program/loop_nest.h), taps and steps included.
// A copy through a spread window loops over the rows it reads and writes them `spread`
// apart from outputBase (the element of its output block it starts at); the rest of its
// output block is the node's fill.
program::LoopNest callLoopNest(const NodeShape& shape, const std::vector<int64_t>& extent);
int64_t outputBase(const NodeShape& shape, const std::vector<int64_t>& extent);

// `aggregated`: aggregatedLabels(shape), which callers that price many partitions of one
// node compute once.
CallGeometry callGeometry(const NodeShape& shape, const std::vector<int64_t>& parts, const std::vector<int>& aggregated);

}  // namespace einrt::model
