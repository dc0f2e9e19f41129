#include "planner/cost/cost_model.h"

#include <algorithm>

#include "planner/cost/checked_math.h"
#include "planner/partition/call_geometry.h"

namespace eindecomp {

int64_t blockElements(const std::vector<int64_t>& bounds, const Parts& parts) {
  int64_t n = 1;
  for (int64_t e : einrt::model::blockExtent(bounds, parts)) n = checkedMul(n, e, "a block's element count");
  return n;
}

int64_t joinCost(int64_t kernelCalls, int64_t nX, int64_t nY) {
  return checkedMul(kernelCalls, checkedAdd(nX, nY, "join cost"), "join cost");
}

int64_t aggCost(int64_t kernelCalls, int64_t nAgg, int64_t nZ) {
  return checkedMul(checkedMul(kernelCalls / nAgg, nAgg - 1, "aggregation cost"), nZ, "aggregation cost");
}

int64_t repartitionCost(const std::vector<int64_t>& bounds, const Parts& producer, const Parts& consumer) {
  const char* what = "repartition cost";
  int64_t nP = 1, nC = 1, nI = 1, consumerBlocks = 1;  // consumerBlocks = n / nC = prod dC
  for (std::size_t k = 0; k < bounds.size(); ++k) {
    int64_t p = bounds[k] / producer[k], c = bounds[k] / consumer[k];
    nP = checkedMul(nP, p, what);
    nC = checkedMul(nC, c, what);
    nI = checkedMul(nI, std::min(p, c), what);
    consumerBlocks = checkedMul(consumerBlocks, consumer[k], what);
  }
  // (nC/nI - 1) * (n/nC) * (nC + nP) == (nC - nI) * consumerBlocks * (nC + nP) / nI, exact in 128 bits.
  __int128 numerator = static_cast<__int128>(nC - nI) * consumerBlocks;
  __int128 moved;
  if (__builtin_mul_overflow(numerator, static_cast<__int128>(checkedAdd(nC, nP, what)), &moved)) throwCostOverflow(what);
  __int128 first = moved / nI;
  __int128 extraction = nP != nI ? static_cast<__int128>(nP) * consumerBlocks : 0;
  __int128 total = first + extraction;
  if (total > INT64_MAX) throwCostOverflow(what);
  return static_cast<int64_t>(total);
}

int64_t bytesPerDevice(int64_t nX, int64_t nY, int64_t nZ, std::size_t dtypeBytes) {
  const char* what = "bytes per device";
  return checkedMul(checkedAdd(checkedAdd(nX, nY, what), nZ, what), static_cast<int64_t>(dtypeBytes), what);
}

std::vector<int64_t> tensorBounds(const NodeSpace& space, int operand) {
  const std::vector<int>& dims = operand < 0 ? space.outputLabels : space.operandLabels[operand];
  std::vector<int64_t> b;
  b.reserve(dims.size());
  for (int d : dims) b.push_back(space.sizes[d]);
  return b;
}

int64_t windowRepartitionCost(const einrt::BlockGrid& window) {
  int64_t read = 0;
  for (int64_t b = 0; b < window.blockCount(); ++b) read = checkedAdd(read, window.readElements(b), "repartition cost");
  return read;
}

NodeCost nodeCost(const NodeSpace& space, const Parts& parts, std::size_t dtypeBytes) {
  NodeCost c;
  for (int64_t d : parts) c.kernelCalls = checkedMul(c.kernelCalls, d, "kernel calls");
  const std::vector<int64_t> extent = einrt::model::blockExtent(space.sizes, parts);
  auto block = [&](const std::vector<int>& dims) {
    int64_t n = 1;
    for (int d : dims) n = checkedMul(n, extent[static_cast<std::size_t>(d)], "a block's element count");
    return n;
  };
  // A tapped, strided or spread operand's block is the rows its window reads: its labels'
  // block, the halo and the rows between (einrt's operandGrid).
  auto operand = [&](std::size_t k) {
    return space.reshaped(k) ? einrt::model::operandGrid(space, parts, k).blockElements() : block(space.operandLabels[k]);
  };
  c.nX = space.operandLabels.empty() ? 0 : operand(0);
  c.nY = space.operandLabels.size() < 2 ? 0 : operand(1);
  c.nZ = block(space.outputLabels);
  for (int d : space.aggregatedDims) c.nAgg *= parts[d];
  c.join = joinCost(c.kernelCalls, c.nX, c.nY);
  c.agg = aggCost(c.kernelCalls, c.nAgg, c.nZ);
  c.bytesPerDevice = bytesPerDevice(c.nX, c.nY, c.nZ, dtypeBytes);
  return c;
}

}  // namespace eindecomp
