#include "planner/placement/plan.h"

#include <map>
#include <tuple>

#include "planner/graph/graph_index.h"
#include "planner/partition/call_geometry.h"

namespace eindecomp {

namespace {

// What a matched placement is a function of: the node's iteration space and partition
// (its call geometry) and, per operand, where the producer keeps its blocks (none for a
// graph input). The repeated layers of a model meet the same key again and again.
using MatchKey = std::tuple<std::vector<int64_t>, std::vector<std::vector<int>>, std::vector<int>, Parts,
                            std::vector<std::optional<std::pair<Parts, std::vector<int>>>>>;

}  // namespace

std::vector<Placement> placeNodes(const Graph& g, const std::vector<Parts>& nodeParts, PlacementRule rule,
                                  const PinnedPlacements& pinned, int64_t devices, const LinkWeights& links) {
  const GraphIndex index(g);
  std::map<MatchKey, Placement> matched;
  std::vector<Placement> placements(g.nodes.size());
  std::vector<einrt::BlockGrid> outputGrids(g.nodes.size());
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const NodeSpace space = nodeSpace(n);
    const CallGeometry geometry = callGeometry(space, nodeParts[i]);
    outputGrids[i] = geometry.outputGrid;
    if (auto pin = pinned.find(n.name); pin != pinned.end()) {
      placements[i].callRank = pin->second;
      placements[i].blockOwner = ownersOfBlocks(geometry, pin->second);
      continue;
    }
    if (rule == PlacementRule::Canonical) {
      placements[i] = canonicalPlacement(geometry, links.nodes.spansNodes(devices));
      continue;
    }
    std::vector<std::optional<ProducerBlocks>> producers;
    MatchKey key{space.sizes, space.operandLabels, space.outputLabels, nodeParts[i], {}};
    for (const auto& input : n.inputs) {
      const int from = index.nodeIndex(input);
      if (from < 0) {
        producers.emplace_back();
        std::get<4>(key).emplace_back();
        continue;
      }
      producers.push_back(ProducerBlocks{outputGrids[static_cast<std::size_t>(from)],
                                         placements[static_cast<std::size_t>(from)].blockOwner});
      std::get<4>(key).emplace_back(std::make_pair(producers.back()->grid.parts, producers.back()->owner));
    }
    auto [it, inserted] = matched.try_emplace(std::move(key));
    if (inserted) it->second = matchedPlacement(geometry, producers, devices, links);
    placements[i] = it->second;
  }
  return placements;
}

bool usesAllDevices(const Plan& plan) {
  for (const NodePlan& np : plan.nodes)
    if (np.kernelCalls != np.fullCalls) return false;
  return true;
}

Plan makePlan(const Graph& g, int64_t devices, const std::string& algorithm, const std::vector<Parts>& nodeParts,
              const std::vector<Placement>& placements) {
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
    np.placement = placements[i];
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
      if (spaces[i].windowed(k)) e.bounds = spaces[i].operandBound[k];  // the window's extents are not the tensor's
      else
        for (int d : spaces[i].operandLabels[k]) e.bounds.push_back(spaces[i].sizes[static_cast<std::size_t>(d)]);
      e.producerParts = plan.nodes[static_cast<std::size_t>(from)].outputParts;
      e.consumerParts = projectParts(plan.nodes[i].parts, spaces[i].operandLabels[k]);
      plan.edges.push_back(std::move(e));
    }
  }
  return plan;
}

}  // namespace eindecomp
