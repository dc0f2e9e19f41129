#include "einrt/model/call_geometry.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace einrt::model {

std::vector<int> aggregatedLabels(const NodeShape& n) {
  std::vector<bool> inOutput(n.sizes.size(), false), seen(n.sizes.size(), false);
  for (int l : n.outputLabels) inOutput[static_cast<std::size_t>(l)] = true;
  std::vector<int> out;
  for (const auto& op : n.operandLabels)
    for (int l : op)
      if (!inOutput[static_cast<std::size_t>(l)] && !seen[static_cast<std::size_t>(l)]) {
        seen[static_cast<std::size_t>(l)] = true;
        out.push_back(l);
      }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int64_t> cuttableSizes(const NodeShape& n) {
  std::vector<int64_t> sizes = n.sizes;
  for (const auto& taps : n.operandTap)
    for (int t : taps)
      if (t >= 0) sizes[static_cast<std::size_t>(t)] = 1;
  for (std::size_t k = 0; k < n.operandSpread.size(); ++k)
    for (std::size_t d = 0; d < n.operandSpread[k].size(); ++d)
      if (n.operandSpread[k][d] > 1) sizes[static_cast<std::size_t>(n.operandLabels[k][d])] = 1;
  return sizes;
}

namespace {

// How far operand k's dimension d reaches past its label's block through its tap (over
// taps of `sizes`): dilation * (taps - 1), negative for a negative dilation, 0 without a
// tap. The halo is its magnitude; a negative reach moves the block's origin down by it.
int64_t tapReach(const NodeShape& shape, const std::vector<int64_t>& sizes, std::size_t k, std::size_t d) {
  if (!shape.tapped(k)) return 0;
  const int tap = shape.operandTap[k][d];
  return tap < 0 ? 0 : shape.operandTapDilation[k][d] * (sizes[static_cast<std::size_t>(tap)] - 1);
}

// Operand k's grid over labels of `sizes` cut in `parts`: operandGrid's rule, which
// operandWalk also reads over one block's extents (parts 1).
BlockGrid windowGrid(const NodeShape& shape, const std::vector<int64_t>& sizes, const std::vector<int64_t>& parts, std::size_t k) {
  if (!shape.windowed(k)) return tensorGrid(sizes, parts, shape.operandLabels[k]);
  if (!shape.reshaped(k)) return tensorGrid(sizes, parts, shape.operandLabels[k], shape.operandOrigin[k], shape.operandBound[k]);
  std::vector<int64_t> origin = shape.operandOrigin[k], halo(origin.size(), 0);
  for (std::size_t d = 0; d < origin.size(); ++d) {
    const int64_t reach = tapReach(shape, sizes, k, d);
    origin[d] += std::min<int64_t>(0, reach);
    halo[d] = reach < 0 ? -reach : reach;
  }
  const std::vector<int64_t> none;
  return tensorGrid(sizes, parts, shape.operandLabels[k], origin, shape.operandBound[k], halo,
                    shape.stepped(k) ? shape.operandStep[k] : none, shape.spreadOut(k) ? shape.operandSpread[k] : none);
}

}  // namespace

BlockGrid operandGrid(const NodeShape& shape, const std::vector<int64_t>& parts, std::size_t k) {
  return windowGrid(shape, shape.sizes, parts, k);
}

OperandWalk operandWalk(const NodeShape& shape, const std::vector<int64_t>& extent, std::size_t k) {
  const std::vector<int>& dims = shape.operandLabels[k];
  if (!shape.reshaped(k)) return {program::labelStrides(dims, extent), 0};
  const BlockGrid block = windowGrid(shape, extent, std::vector<int64_t>(extent.size(), 1), k);
  OperandWalk w{std::vector<int64_t>(extent.size(), 0), 0};
  int64_t step = 1;
  for (std::size_t d = dims.size(); d-- > 0;) {
    const auto label = static_cast<std::size_t>(dims[d]);
    const int tap = shape.tapped(k) ? shape.operandTap[k][d] : -1;
    const int64_t reach = tapReach(shape, extent, k, d);
    // A spread dimension's loop visits the rows it reads, one apart (spreadLoops).
    const bool spread = shape.spreadOut(k) && shape.operandSpread[k][d] > 1;
    w.stride[label] += (shape.stepped(k) && !spread ? shape.operandStep[k][d] : 1) * step;
    if (tap >= 0) w.stride[static_cast<std::size_t>(tap)] += shape.operandTapDilation[k][d] * step;
    if (reach < 0) w.base -= reach * step;
    step *= block.span(d);
  }
  return w;
}

namespace {

// A copy through a spread window (the only node that reads one): its loops visit the
// rows the window reads — per spread label the block's span, the output's stride times
// the spread — from the first output position whose read divides, and the rest of the
// output block is the fill (NodeKernel writes it first).
struct SpreadLoops {
  std::vector<int64_t> extent, strideZ;
  int64_t baseZ = 0;
};

SpreadLoops spreadLoops(const NodeShape& shape, const std::vector<int64_t>& extent) {
  SpreadLoops s{extent, program::labelStrides(shape.outputLabels, extent), 0};
  const BlockGrid block = windowGrid(shape, extent, std::vector<int64_t>(extent.size(), 1), 0);
  const std::vector<int>& dims = shape.operandLabels[0];
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const int64_t spread = shape.operandSpread[0][d];
    if (spread <= 1) continue;
    const auto label = static_cast<std::size_t>(dims[d]);
    const int64_t first = ((-shape.operandOrigin[0][d]) % spread + spread) % spread;  // (first + origin) divides
    s.baseZ += first * s.strideZ[label];
    s.strideZ[label] *= spread;
    s.extent[label] = block.span(d);
  }
  return s;
}

}  // namespace

int64_t outputBase(const NodeShape& shape, const std::vector<int64_t>& extent) {
  return shape.spreadOut(0) ? spreadLoops(shape, extent).baseZ : 0;
}

program::LoopNest callLoopNest(const NodeShape& shape, const std::vector<int64_t>& extent) {
  const bool hasY = shape.operandLabels.size() > 1;
  if (shape.spreadOut(0)) {
    const SpreadLoops s = spreadLoops(shape, extent);
    return program::planLoopNest(s.extent, operandWalk(shape, extent, 0).stride, std::vector<int64_t>(extent.size(), 0), s.strideZ,
                                 false);
  }
  if (!shape.reshaped(0) && !(hasY && shape.reshaped(1))) return program::planLoopNest(extent, shape.operandLabels, shape.outputLabels);
  // A pool (every label it aggregates a tap): its few taps outside its rows.
  bool tapsOnly = shape.tapped(0) || (hasY && shape.tapped(1));
  for (int l : aggregatedLabels(shape)) {
    bool tap = false;
    for (const auto& taps : shape.operandTap) tap = tap || std::find(taps.begin(), taps.end(), l) != taps.end();
    tapsOnly = tapsOnly && (tap || extent[static_cast<std::size_t>(l)] == 1);
  }
  return program::planLoopNest(extent, operandWalk(shape, extent, 0).stride,
                               hasY ? operandWalk(shape, extent, 1).stride : std::vector<int64_t>(extent.size(), 0),
                               program::labelStrides(shape.outputLabels, extent), hasY, tapsOnly);
}

namespace {

// Whether the product of `parts` (a node's calls, or a grid's blocks: a label repeated in
// the tensor is a factor per occurrence) is below 2^31.
bool productFits(const std::vector<int64_t>& parts) {
  constexpr int64_t most = std::numeric_limits<int32_t>::max();
  int64_t product = 1;
  for (int64_t d : parts) {
    if (d > most / product) return false;
    product *= d;
  }
  return true;
}

bool gridsFit(const std::vector<int64_t>& parts, const std::vector<BlockGrid>& operands, const BlockGrid& output) {
  return productFits(parts) && productFits(output.parts) &&
         std::all_of(operands.begin(), operands.end(), [](const BlockGrid& g) { return productFits(g.parts); });
}

}  // namespace

bool blockNumbersFit(const NodeShape& shape, const std::vector<int64_t>& parts) {
  std::vector<BlockGrid> operands;
  for (std::size_t k = 0; k < shape.operandLabels.size(); ++k) operands.push_back(operandGrid(shape, parts, k));
  return gridsFit(parts, operands, tensorGrid(shape.sizes, parts, shape.outputLabels));
}

CallGeometry callGeometry(const NodeShape& shape, const std::vector<int64_t>& parts, const std::vector<int>& aggregated) {
  CallGeometry g;
  for (int64_t d : parts) g.calls *= d;
  for (std::size_t k = 0; k < shape.operandLabels.size(); ++k) g.operandGrid.push_back(operandGrid(shape, parts, k));
  g.outputGrid = tensorGrid(shape.sizes, parts, shape.outputLabels);
  for (int d : aggregated) g.aggParts *= parts[static_cast<std::size_t>(d)];
  if (!gridsFit(parts, g.operandGrid, g.outputGrid))
    throw std::length_error("a node cut into " + std::to_string(g.calls) +
                            " kernel calls whose operand or output has 2^31 blocks or more (a label repeated in a "
                            "tensor multiplies its blocks): einrt numbers blocks in 32 bits");
  g.operandBlock.assign(shape.operandLabels.size(), BlockNumbers(static_cast<std::size_t>(g.calls)));
  g.outputBlock.resize(static_cast<std::size_t>(g.calls));
  g.aggCoordinate.resize(static_cast<std::size_t>(g.calls));
  // Calls in order: the cell advances like an odometer. A tensor's block index is linear
  // in the cell (blockOfCell: sum of cell[l] * stride[l]), so each step updates it by the
  // strides of the labels that moved instead of decoding every call anew (a node with 20
  // labels and 50,000 candidates at p = 4096 spent its planning time here).
  const std::size_t labels = parts.size();
  auto strides = [&](const std::vector<int>& dims) {
    std::vector<int64_t> stride(labels, 0);
    int64_t step = 1;
    for (std::size_t j = dims.size(); j-- > 0;) {
      stride[static_cast<std::size_t>(dims[j])] += step;
      step *= parts[static_cast<std::size_t>(dims[j])];
    }
    return stride;
  };
  std::vector<std::vector<int64_t>> stride;  // per tracked index: operands, output, aggregation
  for (const auto& dims : shape.operandLabels) stride.push_back(strides(dims));
  stride.push_back(strides(shape.outputLabels));
  stride.push_back(strides(aggregated));
  const std::size_t operands = shape.operandLabels.size();
  std::vector<int64_t> index(stride.size(), 0), cell(labels, 0);
  for (int64_t c = 0; c < g.calls; ++c) {
    const auto call = static_cast<std::size_t>(c);
    for (std::size_t k = 0; k < operands; ++k) g.operandBlock[k][call] = static_cast<int32_t>(index[k]);
    g.outputBlock[call] = static_cast<int32_t>(index[operands]);
    g.aggCoordinate[call] = static_cast<int32_t>(index[operands + 1]);
    for (std::size_t l = labels; l-- > 0;) {
      if (++cell[l] < parts[l]) {
        for (std::size_t t = 0; t < index.size(); ++t) index[t] += stride[t][l];
        break;
      }
      for (std::size_t t = 0; t < index.size(); ++t) index[t] -= (parts[l] - 1) * stride[t][l];
      cell[l] = 0;
    }
  }
  return g;
}

std::shared_ptr<const CallGeometry> SharedGeometries::of(const NodeShape& shape, const std::vector<int64_t>& parts,
                                                         const std::vector<int>& aggregated) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over what mostly tells shapes apart
  auto mix = [&h](int64_t v) { h = (h ^ static_cast<uint64_t>(v)) * 1099511628211ull; };
  for (int64_t v : shape.sizes) mix(v);
  for (int64_t v : parts) mix(v);
  for (const auto& labels : shape.operandLabels) {
    mix(-1);
    for (int v : labels) mix(v);
  }
  for (int v : shape.outputLabels) mix(v);
  std::vector<Kept>& bucket = byHash_[h];
  for (const Kept& k : bucket)
    if (k.parts == parts && k.aggregated == aggregated && k.shape == shape) return k.geometry;
  bucket.push_back({shape, parts, aggregated, std::make_shared<const CallGeometry>(callGeometry(shape, parts, aggregated))});
  return bucket.back().geometry;
}

}  // namespace einrt::model
