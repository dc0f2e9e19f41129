#include "planner/placement/plan.h"

#include <map>
#include <unordered_map>
#include <tuple>
#include <utility>

#include "planner/graph/graph_index.h"
#include "planner/partition/call_geometry.h"

namespace eindecomp {

namespace {

// What a matched placement is a function of: the node's iteration space and partition
// (its call geometry) and, per operand, where the producer keeps its blocks (none for a
// graph input). The repeated layers of a model meet the same inputs again and again: a
// node whose inputs equal an earlier node's takes that node's placement. Kept as the
// earlier node's index under a hash, and compared whole against it, so the memo holds no
// copy of any placement (each is p ranks and p owners).
class MatchedMemo {
 public:
  MatchedMemo(const Graph& g, const GraphIndex& index, const std::vector<Parts>& parts, const std::vector<Placement>& placements,
              const std::vector<einrt::BlockGrid>& outputGrids)
      : g_(g), index_(index), parts_(parts), placements_(placements), outputGrids_(outputGrids) {}
  // An earlier node placed from the same inputs as node i, or -1 (then i is remembered).
  int earlierAlike(std::size_t i, const NodeSpace& space) {
    std::vector<std::size_t>& bucket = byHash_[hash(i, space)];
    for (std::size_t j : bucket)
      if (alike(i, space, j)) return static_cast<int>(j);
    bucket.push_back(i);
    spaces_.emplace(i, space);
    return -1;
  }

 private:
  uint64_t hash(std::size_t i, const NodeSpace& space) const {
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    auto mix = [&h](int64_t v) { h = (h ^ static_cast<uint64_t>(v)) * 1099511628211ull; };
    for (int64_t v : space.sizes) mix(v);
    for (const auto& labels : space.operandLabels) {
      mix(-1);
      for (int v : labels) mix(v);
    }
    for (int v : space.outputLabels) mix(v);
    for (int64_t v : parts_[i]) mix(v);
    for (const auto& input : g_.nodes[i].inputs) {
      const int from = index_.nodeIndex(input);
      mix(from < 0 ? -2 : -3);
      if (from < 0) continue;
      for (int64_t v : outputGrids_[static_cast<std::size_t>(from)].parts) mix(v);
      for (int v : placements_[static_cast<std::size_t>(from)].blockOwner) mix(v);
    }
    return h;
  }
  bool alike(std::size_t i, const NodeSpace& space, std::size_t j) const {
    const NodeSpace& other = spaces_.at(j);
    if (space.sizes != other.sizes || space.operandLabels != other.operandLabels || space.outputLabels != other.outputLabels ||
        parts_[i] != parts_[j] || g_.nodes[i].inputs.size() != g_.nodes[j].inputs.size())
      return false;
    for (std::size_t k = 0; k < g_.nodes[i].inputs.size(); ++k) {
      const int a = index_.nodeIndex(g_.nodes[i].inputs[k]), b = index_.nodeIndex(g_.nodes[j].inputs[k]);
      if ((a < 0) != (b < 0)) return false;
      if (a < 0) continue;
      const auto pa = static_cast<std::size_t>(a), pb = static_cast<std::size_t>(b);
      // The producer's grid is its output's sizes (the operand's, compared above with the
      // node's space) cut in its parts.
      if (outputGrids_[pa].parts != outputGrids_[pb].parts || placements_[pa].blockOwner != placements_[pb].blockOwner)
        return false;
    }
    return true;
  }
  const Graph& g_;
  const GraphIndex& index_;
  const std::vector<Parts>& parts_;
  const std::vector<Placement>& placements_;
  const std::vector<einrt::BlockGrid>& outputGrids_;
  std::unordered_map<uint64_t, std::vector<std::size_t>> byHash_;
  std::map<std::size_t, NodeSpace> spaces_;  // of the nodes remembered
};

}  // namespace

std::vector<Placement> placeNodes(const Graph& g, const std::vector<Parts>& nodeParts, PlacementRule rule,
                                  const PinnedPlacements& pinned, int64_t devices, const LinkWeights& links,
                                  const NodePlaced& placed) {
  const GraphIndex index(g);
  std::vector<Placement> placements(g.nodes.size());
  std::vector<einrt::BlockGrid> outputGrids(g.nodes.size());
  MatchedMemo memo(g, index, nodeParts, placements, outputGrids);
  auto placeNode = [&](std::size_t i, const Node& n, const NodeSpace& space, const CallGeometry& geometry) -> Placement {
    if (auto pin = pinned.find(n.name); pin != pinned.end()) return {pin->second, ownersOfBlocks(geometry, pin->second)};
    if (rule == PlacementRule::Canonical) return canonicalPlacement(geometry, links.nodes.spansNodes(devices));
    if (const int earlier = memo.earlierAlike(i, space); earlier >= 0) return placements[static_cast<std::size_t>(earlier)];
    std::vector<std::optional<ProducerBlocks>> producers;
    for (const auto& input : n.inputs) {
      const int from = index.nodeIndex(input);
      if (from < 0) producers.emplace_back();
      else
        producers.push_back(ProducerBlocks{outputGrids[static_cast<std::size_t>(from)],
                                           placements[static_cast<std::size_t>(from)].blockOwner});
    }
    return matchedPlacement(geometry, producers, devices, links);
  };
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const NodeSpace space = nodeSpace(n);
    const CallGeometry geometry = callGeometry(space, nodeParts[i]);
    outputGrids[i] = geometry.outputGrid;
    placements[i] = placeNode(i, n, space, geometry);
    if (placed && !placed(i, geometry, placements)) break;
  }
  return placements;
}

bool usesAllDevices(const Plan& plan) {
  for (const NodePlan& np : plan.nodes)
    if (np.kernelCalls != np.fullCalls) return false;
  return true;
}

Plan makePlan(const Graph& g, int64_t devices, const std::string& algorithm, const std::vector<Parts>& nodeParts,
              std::vector<Placement> placements) {
  Plan plan;
  plan.devices = devices;
  plan.algorithm = algorithm;
  std::vector<NodeSpace> spaces;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    spaces.push_back(nodeSpace(n));
    const NodeSpace& s = spaces.back();
    NodePlan np;
    np.name = n.name;
    np.labels = s.labels;
    np.parts = nodeParts[i];
    for (int64_t d : np.parts) np.kernelCalls *= d;
    np.fullCalls = largestFeasibleCount(einrt::model::cuttableSizes(s), devices);
    np.fallback = np.kernelCalls < devices && np.fullCalls < devices;
    np.outputLabels = n.outputLabels;
    np.outputParts = projectParts(np.parts, s.outputLabels);
    np.placement = std::move(placements[i]);
    plan.nodes.push_back(std::move(np));
  }
  const GraphIndex index(g);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      const int from = index.nodeIndex(n.inputs[k]);
      if (from < 0) continue;
      PlanEdge e;
      e.from = n.inputs[k];
      e.to = n.name;
      e.fromNode = from;
      e.toNode = static_cast<int>(i);
      e.operand = static_cast<int>(k);
      e.bounds = operandExtent(spaces[i], k);  // a window's extents are not the tensor's
      e.producerParts = plan.nodes[static_cast<std::size_t>(from)].outputParts;
      e.consumerParts = projectParts(plan.nodes[i].parts, spaces[i].operandLabels[k]);
      plan.edges.push_back(std::move(e));
    }
  }
  return plan;
}

}  // namespace eindecomp
