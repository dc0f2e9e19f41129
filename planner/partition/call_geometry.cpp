#include "planner/partition/call_geometry.h"

namespace eindecomp {

CallGeometry callGeometry(const NodeSpace& space, const Parts& parts) {
  CallGeometry g;
  for (int64_t d : parts) g.calls *= d;
  for (const auto& dims : space.operandDims) g.operandGrid.push_back(einrt::tensorGrid(space.sizes, parts, dims));
  g.outputGrid = einrt::tensorGrid(space.sizes, parts, space.outputDims);
  for (int d : space.aggregatedDims) g.aggParts *= parts[d];
  g.operandBlock.assign(space.operandDims.size(), std::vector<int64_t>(static_cast<std::size_t>(g.calls)));
  g.outputBlock.resize(static_cast<std::size_t>(g.calls));
  g.aggCoordinate.resize(static_cast<std::size_t>(g.calls));
  // Calls in order: the cell advances like an odometer. A tensor's block index is linear
  // in the cell (einrt::blockOfCell: sum of cell[l] * stride[l]), so each step updates it
  // by the strides of the labels that moved instead of decoding every call anew (a node
  // with 20 labels and 50,000 candidates at p = 4096 spent its planning time here).
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
  for (const auto& dims : space.operandDims) stride.push_back(strides(dims));
  stride.push_back(strides(space.outputDims));
  stride.push_back(strides(space.aggregatedDims));
  const std::size_t operands = space.operandDims.size();
  std::vector<int64_t> index(stride.size(), 0), cell(labels, 0);
  for (int64_t c = 0; c < g.calls; ++c) {
    const auto call = static_cast<std::size_t>(c);
    for (std::size_t k = 0; k < operands; ++k) g.operandBlock[k][call] = index[k];
    g.outputBlock[call] = index[operands];
    g.aggCoordinate[call] = index[operands + 1];
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

}  // namespace eindecomp
