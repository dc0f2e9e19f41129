#include "planner/algorithms/search_space.h"

#include <map>

#include "planner/cost/checked_math.h"
#include "planner/cost/cost_model.h"
#include "planner/graph/graph_index.h"

namespace eindecomp {

namespace {

// Matrices larger than this are not cached (each entry is computed when needed).
constexpr std::size_t kMaxCachedMatrix = std::size_t{1} << 22;

int internLayouts(std::vector<Parts>& list, std::map<Parts, int>& index, const Parts& layout) {
  auto [it, inserted] = index.emplace(layout, static_cast<int>(list.size()));
  if (inserted) list.push_back(layout);
  return it->second;
}

}  // namespace

SearchSpace buildSearchSpace(const Graph& g, const PlanOptions& options) {
  SearchSpace s;
  const std::size_t dtypeBytes = dtypeSize(g.dtype);
  s.nodes.resize(g.nodes.size());
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.operandLabels.empty() || n.operandLabels.size() > 2)
      throw InputError({n.loc, "node '" + n.name + "' has " + std::to_string(n.operandLabels.size()) +
                                   " operands; the planner needs 1 or 2 (split n-ary contractions first)"});
    NodeCandidates& c = s.nodes[i];
    c.space = nodeSpace(g, n);
    ViablePartitions viable = viablePartitions(c.space.sizes, options.devices, options.partitionLimit);
    c.kernelCalls = viable.kernelCalls;
    c.fallback = viable.fallback;
    c.truncated = viable.truncated;
    if (viable.fallback)
      s.notes.push_back("node '" + n.name + "': no partition gives " + std::to_string(options.devices) +
                        " kernel calls; using " + std::to_string(viable.kernelCalls));
    if (viable.truncated)
      s.notes.push_back("node '" + n.name + "': partition enumeration stopped at " +
                        std::to_string(options.partitionLimit) + " candidates");
    auto pin = options.pinned.find(n.name);
    std::vector<Parts> candidates = pin != options.pinned.end() ? std::vector<Parts>{pin->second} : std::move(viable.partitions);
    int64_t smallestBytes = INT64_MAX;
    std::map<Parts, int> outIndex;
    std::vector<std::map<Parts, int>> operandIndex(c.space.operandDims.size());
    c.operandLayouts.resize(c.space.operandDims.size());
    c.operandIndex.resize(c.space.operandDims.size());
    for (Parts& parts : candidates) {
      NodeCost cost = nodeCost(c.space, parts, dtypeBytes);
      smallestBytes = std::min(smallestBytes, cost.bytesPerDevice);
      if (options.memLimitBytes && cost.bytesPerDevice > *options.memLimitBytes) continue;
      c.local.push_back(checkedAdd(cost.join, cost.agg, "node cost"));
      c.outIndex.push_back(internLayouts(c.outs, outIndex, projectParts(parts, c.space.outputDims)));
      for (std::size_t k = 0; k < c.space.operandDims.size(); ++k)
        c.operandIndex[k].push_back(internLayouts(c.operandLayouts[k], operandIndex[k], projectParts(parts, c.space.operandDims[k])));
      c.parts.push_back(std::move(parts));
    }
    if (c.parts.empty())
      throw InputError({n.loc, "node '" + n.name + "': no partition fits --mem-limit " + std::to_string(*options.memLimitBytes) +
                                   " bytes per device (the smallest needs " + std::to_string(smallestBytes) + ")"},
                       kExitNoPlan);
  }
  // Edges, sharing one matrix per distinct (bounds, producer layouts, consumer layouts).
  s.inEdges.resize(g.nodes.size());
  s.outEdges.resize(g.nodes.size());
  std::map<std::tuple<std::vector<int64_t>, std::vector<Parts>, std::vector<Parts>>, int> shapes;
  const GraphIndex index(g);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    for (std::size_t k = 0; k < g.nodes[i].inputs.size(); ++k) {
      int from = index.nodeIndex(g.nodes[i].inputs[k]);
      if (from < 0) continue;
      SearchEdge e{from, static_cast<int>(i), static_cast<int>(k), 0};
      std::vector<int64_t> bounds = tensorBounds(s.nodes[i].space, e.operand);
      auto key = std::make_tuple(bounds, s.nodes[from].outs, s.nodes[i].operandLayouts[k]);
      auto [it, inserted] = shapes.emplace(std::move(key), static_cast<int>(s.matrices.size()));
      if (inserted) {
        RepartMatrix m;
        m.bounds = bounds;
        m.rows = &s.nodes[from].outs;
        m.cols = &s.nodes[i].operandLayouts[k];
        std::size_t entries = m.rows->size() * m.cols->size();
        if (entries <= kMaxCachedMatrix) m.cost.assign(entries, -1);
        s.matrices.push_back(std::move(m));
      }
      e.matrix = it->second;
      s.inEdges[i].push_back(static_cast<int>(s.edges.size()));
      s.outEdges[from].push_back(static_cast<int>(s.edges.size()));
      s.edges.push_back(e);
    }
  }
  return s;
}

int64_t edgeCost(SearchSpace& s, const SearchEdge& e, int out, int in) {
  RepartMatrix& m = s.matrices[e.matrix];
  if (m.cost.empty()) return repartitionCost(m.bounds, (*m.rows)[out], (*m.cols)[in]);
  int64_t& cell = m.cost[static_cast<std::size_t>(out) * m.cols->size() + in];
  if (cell < 0) cell = repartitionCost(m.bounds, (*m.rows)[out], (*m.cols)[in]);
  return cell;
}

int64_t totalCost(SearchSpace& s, const std::vector<int>& choice) {
  int64_t total = 0;
  for (std::size_t v = 0; v < s.nodes.size(); ++v) total = checkedAdd(total, s.nodes[v].local[choice[v]], "plan cost");
  for (const SearchEdge& e : s.edges) {
    int out = s.nodes[e.from].outIndex[choice[e.from]];
    int in = s.nodes[e.to].operandIndex[e.operand][choice[e.to]];
    total = checkedAdd(total, edgeCost(s, e, out, in), "plan cost");
  }
  return total;
}

std::vector<Parts> chosenParts(const SearchSpace& s, const std::vector<int>& choice) {
  std::vector<Parts> parts;
  for (std::size_t v = 0; v < s.nodes.size(); ++v) parts.push_back(s.nodes[v].parts[choice[v]]);
  return parts;
}

}  // namespace eindecomp
