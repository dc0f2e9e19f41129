#include "einrt/program/loop_nest.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace einrt::program {

namespace {

// How well a label suits the inner loop: unit strides in the operands count most (they are
// read), a broadcast (stride 0) costs nothing, and so does a reduction into Z.
int innerScore(int64_t sx, int64_t sy, int64_t sz, bool hasY) {
  auto operand = [](int64_t s) { return s == 1 ? 2 : s == 0 ? 1 : 0; };
  return operand(sx) + (hasY ? operand(sy) : 1) + (sz <= 1 ? 1 : 0);
}

}  // namespace

std::vector<int64_t> labelStrides(const std::vector<int>& dims, const std::vector<int64_t>& extent) {
  std::vector<int64_t> strides(extent.size(), 0);
  int64_t s = 1;
  for (std::size_t d = dims.size(); d-- > 0;) {
    strides[static_cast<std::size_t>(dims[d])] += s;
    s *= extent[static_cast<std::size_t>(dims[d])];
  }
  return strides;
}

LoopNest planLoopNest(const std::vector<int64_t>& extent, const std::vector<std::vector<int>>& operandLabels,
                      const std::vector<int>& outputLabels) {
  const bool hasY = operandLabels.size() > 1;
  return planLoopNest(extent, labelStrides(operandLabels.at(0), extent),
                      hasY ? labelStrides(operandLabels[1], extent) : std::vector<int64_t>(extent.size(), 0),
                      labelStrides(outputLabels, extent), hasY);
}

LoopNest planLoopNest(const std::vector<int64_t>& extent, const std::vector<int64_t>& sx, const std::vector<int64_t>& sy,
                      const std::vector<int64_t>& sz, bool hasY, bool reductionsOutside) {
  if (extent.size() > static_cast<std::size_t>(kMaxLoops)) throw std::invalid_argument("einrt: more than 16 labels in a node");
  LoopNest n;
  std::vector<int> loops;
  for (std::size_t l = 0; l < extent.size(); ++l) {
    n.points *= extent[l];
    if (sz[l] != 0) n.outputElements *= extent[l];
    if (extent[l] > 1) loops.push_back(static_cast<int>(l));
  }
  if (loops.empty()) return n;
  const bool anyOutput = std::any_of(loops.begin(), loops.end(), [&](int l) { return sz[static_cast<std::size_t>(l)] != 0; });
  const auto innerIt = std::max_element(loops.begin(), loops.end(), [&](int a, int b) {
    if (reductionsOutside && anyOutput && (sz[a] != 0) != (sz[b] != 0)) return sz[a] == 0;  // an output label inside
    const int sa = innerScore(sx[a], sy[a], sz[a], hasY), sb = innerScore(sx[b], sy[b], sz[b], hasY);
    return sa != sb ? sa < sb : extent[a] < extent[b];
  });
  const int inner = *innerIt;
  loops.erase(innerIt);
  // Outer loops: output labels in the output's row-major order, then aggregated labels with
  // the larger operand strides outside (with `reductionsOutside`, the aggregated ones first).
  std::stable_sort(loops.begin(), loops.end(), [&](int a, int b) {
    const bool outA = sz[a] != 0, outB = sz[b] != 0;
    if (outA != outB) return reductionsOutside ? outB : outA;
    if (outA) return sz[a] > sz[b];
    return sx[a] + sy[a] > sx[b] + sy[b];
  });
  loops.push_back(inner);

  for (int l : loops) {
    const int d = n.depth++;
    n.extent[d] = extent[static_cast<std::size_t>(l)];
    n.strideX[d] = sx[static_cast<std::size_t>(l)];
    n.strideY[d] = sy[static_cast<std::size_t>(l)];
    n.strideZ[d] = sz[static_cast<std::size_t>(l)];
  }
  // Merge a loop into the next inner one where every tensor walks them as one run.
  for (int d = n.depth - 2; d >= 0; --d) {
    const int e = d + 1;
    auto joins = [&](const int64_t* s) { return s[d] == s[e] * n.extent[e]; };
    if (!joins(n.strideX) || !joins(n.strideY) || !joins(n.strideZ)) continue;
    n.extent[e] *= n.extent[d];
    for (int k = d; k + 1 < n.depth; ++k) {
      n.extent[k] = n.extent[k + 1];
      n.strideX[k] = n.strideX[k + 1];
      n.strideY[k] = n.strideY[k + 1];
      n.strideZ[k] = n.strideZ[k + 1];
    }
    --n.depth;
  }
  for (int d = 0; d < n.depth; ++d) n.aggregates = n.aggregates || n.strideZ[d] == 0;
  while (n.parallelLoops < n.depth - 1 && n.strideZ[n.parallelLoops] != 0) ++n.parallelLoops;
  return n;
}

}  // namespace einrt::program
