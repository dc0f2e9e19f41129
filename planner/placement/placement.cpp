#include "planner/placement/placement.h"

namespace eindecomp {

const char* placementRuleName(PlacementRule rule) { return rule == PlacementRule::Canonical ? "canonical" : "matched"; }

Placement canonicalPlacement(const CallGeometry& g, bool onCluster) {
  Placement p;
  const int64_t blocks = g.outputGrid.blockCount();
  p.callRank.resize(static_cast<std::size_t>(g.calls));
  for (std::size_t c = 0; c < p.callRank.size(); ++c)
    p.callRank[c] = static_cast<int>(onCluster ? g.outputBlock[c] * g.aggParts + g.aggCoordinate[c]
                                               : g.aggCoordinate[c] * blocks + g.outputBlock[c]);
  p.blockOwner = ownersOfBlocks(g, p.callRank);
  return p;
}

std::vector<int> ownersOfBlocks(const CallGeometry& g, const std::vector<int>& callRank) {
  const auto blocks = static_cast<std::size_t>(g.outputGrid.blockCount());
  std::vector<int> owner(blocks, -1);
  std::vector<int64_t> lowest(blocks, -1);
  for (std::size_t c = 0; c < callRank.size(); ++c) {
    const auto b = static_cast<std::size_t>(g.outputBlock[c]);
    if (lowest[b] < 0 || g.aggCoordinate[c] < lowest[b]) {
      lowest[b] = g.aggCoordinate[c];
      owner[b] = callRank[c];
    }
  }
  return owner;
}

std::string placementProblem(const std::vector<int64_t>& callRank, int64_t calls, int64_t devices) {
  if (static_cast<int64_t>(callRank.size()) != calls)
    return "gives " + std::to_string(callRank.size()) + " ranks for " + std::to_string(calls) + " kernel calls";
  for (std::size_t c = 0; c < callRank.size(); ++c)
    if (callRank[c] < 0 || callRank[c] >= devices)
      return "places call " + std::to_string(c) + " on rank " + std::to_string(callRank[c]) + ", outside 0.." +
             std::to_string(devices - 1);
  return "";
}

}  // namespace eindecomp
