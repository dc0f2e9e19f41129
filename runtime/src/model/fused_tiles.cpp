#include "einrt/model/fused_tiles.h"

namespace einrt::model {

FusedGroupGeometry fusedGroupGeometry(const ProgramTables& t, const std::vector<bool>& scratch, int first, int last,
                                      std::size_t elementSize, int threads) {
  FusedGroupGeometry g;
  g.first = first;
  g.last = last;
  const NodeTable& lead = t.nodes[static_cast<std::size_t>(first)];
  g.tileDims = lead.fusion.tileDims;
  const std::vector<int64_t> leadExtent = blockExtent(lead.sizes, lead.parts);
  int64_t rows = 1;
  for (int q = 0; q < g.tileDims; ++q) {
    g.groupExtent.push_back(leadExtent[static_cast<std::size_t>(lead.outputLabels.at(static_cast<std::size_t>(q)))]);
    rows *= g.groupExtent.back();
  }
  // Bytes per row of group dimensions over every tensor the members touch.
  std::vector<int64_t> tensorElements;
  for (int m = first; m <= last; ++m) {
    const NodeTable& n = t.nodes[static_cast<std::size_t>(m)];
    const std::vector<int64_t> extent = blockExtent(n.sizes, n.parts);
    tensorElements.push_back(blockElements(n.outputLabels, extent));
    for (const auto& op : n.operandLabels) tensorElements.push_back(blockElements(op, extent));
  }
  const double rowBytes = fusedRowBytes(tensorElements, elementSize, rows);
  g.box = fusedTileBox(g.groupExtent, rowBytes, threads);
  g.largest = fusedTileBox(g.groupExtent, rowBytes, 1);
  for (int m = first; m <= last; ++m) {
    if (!scratch[static_cast<std::size_t>(m)]) {
      g.slotOffset.push_back(-1);
      continue;
    }
    const NodeTable& n = t.nodes[static_cast<std::size_t>(m)];
    const std::vector<int64_t> extent = blockExtent(n.sizes, n.parts);
    std::vector<int64_t> outputExtent;
    for (int l : n.outputLabels) outputExtent.push_back(extent[static_cast<std::size_t>(l)]);
    g.slotOffset.push_back(g.workspaceElements);
    g.workspaceElements += fusedTileElements(outputExtent, g.tileDims, g.largest);
  }
  return g;
}

}  // namespace einrt::model
