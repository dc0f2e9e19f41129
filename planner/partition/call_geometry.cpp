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
  // Calls in order: the cell advances like an odometer (einrt::callCell(parts, c) for
  // every c, without decoding each call anew).
  std::vector<int64_t> cell(parts.size(), 0);
  for (int64_t c = 0; c < g.calls; ++c) {
    const auto call = static_cast<std::size_t>(c);
    for (std::size_t k = 0; k < space.operandDims.size(); ++k)
      g.operandBlock[k][call] = einrt::blockOfCell(parts, space.operandDims[k], cell);
    g.outputBlock[call] = einrt::blockOfCell(parts, space.outputDims, cell);
    g.aggCoordinate[call] = einrt::blockOfCell(parts, space.aggregatedDims, cell);
    for (std::size_t l = parts.size(); l-- > 0;) {
      if (++cell[l] < parts[l]) break;
      cell[l] = 0;
    }
  }
  return g;
}

}  // namespace eindecomp
