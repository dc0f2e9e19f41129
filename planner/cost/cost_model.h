// The EinDecomp cost model (SPEC 3; the EinDecomp paper, section 7), formula by formula.
// Every cost is a count of tensor ELEMENTS moved between kernel calls (multiply by the
// dtype size for bytes); FLOPs come from nodeFlops in graph.h. Notation: a node has
// operand label lists lX, lY (Y absent for unary nodes), output labels lZ, aggregated
// labels lagg = (lX ∪ lY) \ lZ, label sizes b, partition d and q = prod(d) kernel calls.
// All arithmetic is 64-bit and overflow-checked (checked_math.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <einrt/block_grid.h>

#include "planner/partition/partition.h"

namespace eindecomp {

// Elements of one block of a tensor with bounds b cut into parts d: prod_k b[k] / d[k].
int64_t blockElements(const std::vector<int64_t>& bounds, const Parts& parts);

// join(d) = q * (nX + nY)   [elements]; every kernel call receives one X and one Y block.
int64_t joinCost(int64_t kernelCalls, int64_t nX, int64_t nY);

// agg(d) = (q / nagg) * (nagg - 1) * nZ   [elements]; nagg = prod_{u in lagg} d[u] partial
// results of nZ elements are combined in each of the q / nagg groups, one stays put.
int64_t aggCost(int64_t kernelCalls, int64_t nAgg, int64_t nZ);

// repart(dP, dC) for a tensor with bounds b   [elements]:
//   nP = prod b/dP, nC = prod b/dC, nI = prod min(b/dP, b/dC), n = prod b,
//   repart = (nC/nI - 1) * (n/nC) * (nC + nP) + (nP != nI ? nP * n/nC : 0).
// When dP and dC do not nest nC/nI is not an integer: the first term is evaluated as
// the exact rational (nC - nI) * (n/nC) * (nC + nP) / nI and rounded down.
int64_t repartitionCost(const std::vector<int64_t>& bounds, const Parts& producer, const Parts& consumer);

// Bytes resident on a device while one kernel call runs: (nX + nY + nZ) * dtype size.
int64_t bytesPerDevice(int64_t nX, int64_t nY, int64_t nZ, std::size_t dtypeBytes);

// Everything the model says about one node under one partition.
struct NodeCost {
  int64_t kernelCalls = 1;  // q
  int64_t nX = 0, nY = 0, nZ = 0;  // block elements of the operands and the output
  int64_t nAgg = 1;         // partial results combined per output block
  int64_t join = 0;         // elements
  int64_t agg = 0;          // elements
  int64_t bytesPerDevice = 0;
};

// Costs `parts` (aligned with space.labels) for a node with 1 or 2 operands.
NodeCost nodeCost(const NodeSpace& space, const Parts& parts, std::size_t dtypeBytes);

// Bounds of operand k (or of the output when k == -1) of a node.
std::vector<int64_t> tensorBounds(const NodeSpace& space, int operand);

// The paper model's repartition cost of an operand read through a window (SPEC 8.1): every
// element the window reads of the tensor (a window's blocks are never the producer's).
int64_t windowRepartitionCost(const einrt::BlockGrid& window);

}  // namespace eindecomp
