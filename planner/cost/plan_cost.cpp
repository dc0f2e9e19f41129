#include "planner/cost/plan_cost.h"

#include <algorithm>

#include "planner/cost/checked_math.h"
#include "planner/cost/cost_model.h"
#include "planner/cost/time_model.h"
#include "planner/cost/traffic.h"
#include "planner/fusion/fusion.h"
#include "planner/graph/graph_index.h"
#include "planner/graph/micro_batches.h"
#include "planner/graph/tensor_types.h"
#include "planner/model/program_tables.h"
#include "planner/partition/call_geometry.h"
#include "planner/paths/gemm_mapping.h"

namespace eindecomp {

namespace {

// The repartition into operand `operand` of a node whose calls (on `callRank`) read it as
// `reads` says, from its producer's blocks (`producer` cut as it writes it, owned by
// `owner`): costPlan's for each edge, exchangePicoseconds' for a node placed.
Traffic operandTraffic(const einrt::BlockGrid& producer, const std::vector<int>& owner, const CallGeometry& reads,
                       std::size_t operand, const std::vector<int>& callRank, int64_t devices, TrafficDetail detail,
                       const einrt::RankNodes& nodes, TrafficMemo* memo) {
  const BlockHomes homes(producer, owner, devices);
  const einrt::BlockGrid& grid = reads.operandGrid[operand];
  const einrt::model::BlockNumbers& callBlock = reads.operandBlock[operand];
  return memo ? memo->repartition(homes, owner, grid, callBlock, callRank, devices, detail, nodes)
              : repartitionTraffic(homes, grid, callBlock, callRank, devices, detail, nodes);
}

// Adds node c's step figures (its runs `run`) to one micro-batch's or the once-per-step
// totals: its repartitions and kernels run with its calls (but those from an invariant run
// once, `onceIn`), its aggregation on its own.
void splitByPhase(PlanCost& pc, const NodePlanCost& c, const NodeRuns& run, int64_t onceInBytes, int64_t onceInPs) {
  const int64_t m = pc.microBatches;
  auto add = [&](int64_t runs, int64_t bytes, int64_t ps) {
    if (m > 1 && runs == m) {
      pc.perMicroBatchTrafficBytes += bytes / m;
      pc.perMicroBatchTimePs += ps / m;
    } else {
      pc.oncePerStepTrafficBytes += bytes;
      pc.oncePerStepTimePs += ps;
    }
  };
  add(run.calls, c.trafficInBytes - onceInBytes, c.timePs - c.aggTimePs - onceInPs);
  add(1, onceInBytes, onceInPs);
  add(run.aggregation, c.trafficAggBytes, c.aggTimePs);
}

}  // namespace

PlanCost costPlan(const Graph& g, const Plan& plan, const std::optional<Machine>& machine, MemoryDetail memory,
                  TrafficMemo* memo) {
  // Each node's figures count its output's element type, each edge's the producer's (SPEC 8).
  const std::vector<DType> types = nodeOutputTypes(g);
  auto bytesOf = [&](std::size_t node) { return static_cast<int64_t>(dtypeSize(types[node])); };
  const auto detail = machine ? TrafficDetail::PerRank : TrafficDetail::Total;
  const einrt::RankNodes nodes = machine ? machine->rankNodes() : einrt::RankNodes{plan.ranksPerNode};
  // How often each node's calls and aggregation run per step (micro_batches.h).
  const std::vector<NodeRuns> runs = nodeRuns(g, plan.invariants());
  PlanCost pc;
  pc.microBatches = microBatchCount(g);
  pc.ranksPerNode = nodes.ranksPerNode;
  pc.nodes.resize(plan.nodes.size());
  // One per distinct shape and partition (a model's layers share theirs), moved into a
  // full program model where there is one.
  einrt::model::SharedGeometries geometries;
  std::vector<std::shared_ptr<const CallGeometry>> geometry;
  std::optional<einrt::model::ProgramModel> program;
  std::vector<int64_t> busiestCalls(plan.nodes.size(), 0);
  std::vector<int64_t> callsPerRank(machine ? static_cast<std::size_t>(plan.devices) : 0, 0);  // zero between nodes
  for (std::size_t i = 0; i < plan.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const NodePlan& np = plan.nodes[i];
    const NodeSpace space = nodeSpace(n);
    geometry.push_back(geometries.of(space, np.parts, space.aggregatedDims));
    NodePlanCost& c = pc.nodes[i];
    const int64_t elementBytes = bytesOf(i);
    const NodeCost paper = nodeCost(space, np.parts, static_cast<std::size_t>(elementBytes));
    const NodeRuns& run = runs[i];
    c.join = checkedMul(paper.join, run.calls, "node cost");
    c.agg = checkedMul(paper.agg, run.aggregation, "node cost");
    c.flops = checkedMul(nodeFlops(n), run.calls, "total FLOPs");
    c.bytesPerDevice = paper.bytesPerDevice;
    const Traffic agg = aggregationTraffic(*geometry.back(), np.placement.callRank, np.placement.blockOwner, plan.devices, detail, nodes);
    c.trafficAggBytes = checkedMul(checkedMul(agg.elements, elementBytes, "traffic bytes"), run.aggregation, "traffic bytes");
    c.interNodeBytes = checkedMul(checkedMul(agg.interNodeElements, elementBytes, "traffic bytes"), run.aggregation, "traffic bytes");
    if (machine) {
      int64_t busiest = 0;
      for (int r : np.placement.callRank) busiest = std::max(busiest, ++callsPerRank[static_cast<std::size_t>(r)]);
      for (int r : np.placement.callRank) callsPerRank[static_cast<std::size_t>(r)] = 0;
      busiestCalls[i] = busiest;
      c.aggTimePs = checkedMul(phasePicoseconds(*machine, agg, elementBytes), run.aggregation, "estimated time");
      c.timePs = c.aggTimePs;
    }
  }
  // The program the plan lowers to (einrt's program model, on the host: fused groups as
  // steps), for its kernels' time and its memory.
  // (The tables always: which readers share a received copy is einrt's rule over them.)
  std::optional<einrt::model::ProgramTables> tables = programTables(g, plan, chooseFusion(g, plan));
  tables->ranksPerNode = nodes.ranksPerNode;  // the split priced here (the reduced-at-read rule reads it)
  const std::vector<std::vector<einrt::model::OperandCopy>> copies = einrt::model::sharedOutputCopies(*tables, geometry);
  // Partials reduced at read: no aggregation of their own, their reader's edge moves them.
  const std::vector<einrt::model::OperandCopy> reduced = einrt::model::partialsReducedAtRead(*tables, geometry, copies);
  for (std::size_t i = 0; i < plan.nodes.size(); ++i)
    if (reduced[i].node >= 0) {
      NodePlanCost& c = pc.nodes[i];
      c.reducedAtReadBy = reduced[i].node;
      c.timePs -= c.aggTimePs;
      c.trafficAggBytes = c.interNodeBytes = c.aggTimePs = 0;
    }
  if (machine || memory == MemoryDetail::Peak) {
    // The time model reads the steps alone; the memory model everything.
    if (memory == MemoryDetail::Peak) {
      program = einrt::model::buildProgramModel(*tables, dtypeSize(g.dtype), true, std::move(geometry));
      geometry.clear();
    } else {
      program = einrt::model::buildProgramModel(*tables, dtypeSize(g.dtype), true, {},
                                                einrt::model::ModelDetail::Steps);
    }
  }
  auto geometryOf = [&](std::size_t i) -> const CallGeometry& { return geometry.empty() ? *program->nodes[i].geometry : *geometry[i]; };
  if (machine) {
    std::vector<bool> fromMemory;
    const std::vector<int64_t> compute = planComputePicoseconds(*machine, g, plan, busiestCalls, *program, &fromMemory);
    for (std::size_t i = 0; i < plan.nodes.size(); ++i) {
      pc.nodes[i].computePs = checkedMul(compute[i], runs[i].calls, "estimated time");
      pc.nodes[i].resultFromMemory = fromMemory[i];
      pc.nodes[i].timePs = checkedAdd(pc.nodes[i].timePs, pc.nodes[i].computePs, "estimated time");
    }
  }
  pc.edges.resize(plan.edges.size());
  // Per node, what of its repartitions' bytes and time runs once per step though the node
  // runs per micro-batch (its operands from invariants run once).
  std::vector<int64_t> onceInBytes(plan.nodes.size(), 0), onceInPs(plan.nodes.size(), 0);
  for (std::size_t e = 0; e < plan.edges.size(); ++e) {
    const PlanEdge& edge = plan.edges[e];
    const NodePlan& producer = plan.nodes[static_cast<std::size_t>(edge.fromNode)];
    const NodePlan& consumer = plan.nodes[static_cast<std::size_t>(edge.toNode)];
    EdgePlanCost& c = pc.edges[e];
    const CallGeometry& reads = geometryOf(static_cast<std::size_t>(edge.toNode));
    const einrt::BlockGrid& grid = reads.operandGrid[static_cast<std::size_t>(edge.operand)];
    c.paper = grid.windowed() ? windowRepartitionCost(grid) : repartitionCost(edge.bounds, edge.producerParts, edge.consumerParts);
    c.readsCopyOf = copies[static_cast<std::size_t>(edge.toNode)][static_cast<std::size_t>(edge.operand)].node;
    const einrt::model::OperandCopy& reducer = reduced[static_cast<std::size_t>(edge.fromNode)];
    c.reducesPartials = reducer.node == edge.toNode && reducer.operand == edge.operand;
    Traffic t;
    if (c.reducesPartials) {
      const CallGeometry& from = geometryOf(static_cast<std::size_t>(edge.fromNode));
      const std::vector<std::vector<int>> holders = einrt::model::holdersByBlock(
          einrt::model::distinctPairs(from.outputBlock, producer.placement.callRank), from.outputGrid.blockCount());
      t = reducedReadTraffic(from.outputGrid, holders, grid, reads.operandBlock[static_cast<std::size_t>(edge.operand)],
                             consumer.placement.callRank, plan.devices, detail, nodes);
    } else if (c.readsCopyOf < 0) {
      t = operandTraffic({edge.bounds, edge.producerParts}, producer.placement.blockOwner, reads, static_cast<std::size_t>(edge.operand),
                         consumer.placement.callRank, plan.devices, detail, nodes, memo);
    }
    const int64_t elementBytes = bytesOf(static_cast<std::size_t>(edge.fromNode));
    // The repartition runs before each of the consumer's runs (once, from an invariant run once).
    const int64_t readerRuns = repartitionRuns(runs, static_cast<std::size_t>(edge.toNode), edge.fromNode);
    c.paper = checkedMul(c.paper, readerRuns, "repart_in");
    c.trafficBytes = checkedMul(checkedMul(t.elements, elementBytes, "traffic bytes"), readerRuns, "traffic bytes");
    c.interNodeBytes = checkedMul(checkedMul(t.interNodeElements, elementBytes, "traffic bytes"), readerRuns, "traffic bytes");
    if (machine) c.timePs = checkedMul(phasePicoseconds(*machine, t, elementBytes), readerRuns, "estimated time");
    NodePlanCost& to = pc.nodes[static_cast<std::size_t>(edge.toNode)];
    to.repartIn = checkedAdd(to.repartIn, c.paper, "repart_in");
    to.trafficInBytes = checkedAdd(to.trafficInBytes, c.trafficBytes, "traffic bytes");
    to.interNodeBytes = checkedAdd(to.interNodeBytes, c.interNodeBytes, "traffic bytes");
    to.timePs = checkedAdd(to.timePs, c.timePs, "estimated time");
    if (readerRuns != runs[static_cast<std::size_t>(edge.toNode)].calls) {
      onceInBytes[static_cast<std::size_t>(edge.toNode)] += c.trafficBytes;
      onceInPs[static_cast<std::size_t>(edge.toNode)] += c.timePs;
    }
  }
  int64_t time = 0;
  for (std::size_t i = 0; i < pc.nodes.size(); ++i) {
    NodePlanCost& c = pc.nodes[i];
    c.paper = checkedAdd(checkedAdd(c.join, c.agg, "node cost"), c.repartIn, "node cost");
    // The paper's elements in bytes: each node's at its output's type.
    pc.paperBytes = checkedAdd(pc.paperBytes, checkedMul(c.paper, bytesOf(i), "total bytes"), "total bytes");
    c.trafficBytes = checkedAdd(c.trafficInBytes, c.trafficAggBytes, "traffic bytes");
    pc.paper = checkedAdd(pc.paper, c.paper, "total cost");
    pc.trafficBytes = checkedAdd(pc.trafficBytes, c.trafficBytes, "total traffic");
    pc.interNodeBytes = checkedAdd(pc.interNodeBytes, c.interNodeBytes, "total traffic");
    pc.flops = checkedAdd(pc.flops, c.flops, "total FLOPs");
    time = checkedAdd(time, c.timePs, "estimated time");
    splitByPhase(pc, c, runs[i], onceInBytes[i], onceInPs[i]);
  }
  if (memory == MemoryDetail::Peak) {
    pc.memory = memoryPlan(*tables, *program, static_cast<int>(plan.devices), static_cast<int64_t>(dtypeSize(g.dtype)));
    pc.peakBytesPerDevice = pc.memory.peakBytesPerDevice;
  }
  if (machine) pc.timePs = time;
  return pc;
}

bool mayReadSharedCopy(const Graph& g, const GraphIndex& index, const std::vector<Parts>& parts, const std::vector<NodeRuns>& runs,
                       std::size_t node, std::size_t operand) {
  const std::string& tensor = g.nodes[node].inputs[operand];
  const int producer = index.nodeIndex(tensor);
  if (producer < 0) return false;
  const NodeSpace space = nodeSpace(g.nodes[node]);
  if (space.windowed(operand)) return false;
  const einrt::BlockGrid read = einrt::tensorGrid(space.sizes, parts[node], space.operandLabels[operand]);
  // A copy of an invariant run once is kept for the whole body: shared at any distance.
  const bool kept = runs[static_cast<std::size_t>(producer)].once;
  const std::size_t first = !kept && node > static_cast<std::size_t>(einrt::model::kCopyReach) ? node - einrt::model::kCopyReach : 0;
  for (std::size_t j = first; j <= node; ++j)
    for (std::size_t k = 0; k < g.nodes[j].inputs.size() && (j < node || k < operand); ++k) {
      if (g.nodes[j].inputs[k] != tensor) continue;
      const NodeSpace other = j == node ? space : nodeSpace(g.nodes[j]);
      if (!other.windowed(k) && einrt::tensorGrid(other.sizes, parts[j], other.operandLabels[k]).parts == read.parts) return true;
    }
  return false;
}

std::optional<Use> mayReduceAtRead(const Graph& g, const GraphIndex& index, const std::vector<Parts>& parts, std::size_t node) {
  const std::string& tensor = g.nodes[node].name;
  const std::vector<Use>& readers = index.consumers(tensor);
  if (readers.empty() || index.isOutput(tensor)) return std::nullopt;
  const NodeSpace space = nodeSpace(g.nodes[node]);
  int64_t aggParts = 1;
  for (int l : space.aggregatedDims) aggParts *= parts[node][static_cast<std::size_t>(l)];
  if (aggParts <= 1) return std::nullopt;
  return readers.front();
}

namespace {

// The floors of a plan's phases under any placement that runs each call on a rank of its
// own, node by node and edge by edge: what trafficLowerBound and timeLowerBound add up,
// each phase with the bytes of the elements it moves (its node's or producer's type).
// Micro-batches: a phase's floor counts once per run of it (`runs`: nodeRuns(g)), as
// costPlan counts it.
// Each is told whether it may be part of a reduced-at-read exchange (mayReduceAtRead):
// the node as the one reduced, the edge as its reader.
template <class NodeFloor, class EdgeFloor>
void forEachPhaseFloor(const Graph& g, const std::vector<Parts>& parts, const std::vector<NodeRuns>& runs, NodeFloor&& node,
                       EdgeFloor&& edge) {
  const GraphIndex index(g);
  const std::vector<DType> types = nodeOutputTypes(g);
  auto bytesOf = [&](std::size_t i) { return static_cast<int64_t>(dtypeSize(types[i])); };
  std::vector<NodeSpace> spaces;
  spaces.reserve(g.nodes.size());
  for (const Node& n : g.nodes) spaces.push_back(nodeSpace(n));
  std::vector<std::optional<Use>> reducer(g.nodes.size());
  for (std::size_t i = 0; i < g.nodes.size(); ++i) reducer[i] = mayReduceAtRead(g, index, parts, i);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const NodeSpace& space = spaces[i];
    int64_t calls = 1;
    for (int64_t d : parts[i]) calls *= d;
    // A node's partial results: each output block's (calls / blocks) partials on as many
    // ranks, all but one sent to the block's owner.
    const einrt::BlockGrid out = einrt::tensorGrid(space.sizes, parts[i], space.outputLabels);
    node(i, calls / out.blockCount(), out.blockElements(), calls - out.blockCount(), bytesOf(i), runs[i].aggregation,
         reducer[i].has_value());
    for (std::size_t k = 0; k < g.nodes[i].inputs.size(); ++k) {
      const int from = index.nodeIndex(g.nodes[i].inputs[k]);
      if (from < 0 || space.windowed(k)) continue;  // graph inputs are free; a window's reads count 0 here
      if (mayReadSharedCopy(g, index, parts, runs, i, k)) continue;  // and so may a shared copy's
      const NodeSpace& producer = spaces[static_cast<std::size_t>(from)];
      const einrt::BlockGrid read = einrt::tensorGrid(space.sizes, parts[i], space.operandLabels[k]);
      const einrt::BlockGrid owned = einrt::tensorGrid(producer.sizes, parts[static_cast<std::size_t>(from)], producer.outputLabels);
      const std::optional<Use>& r = reducer[static_cast<std::size_t>(from)];
      const bool readsPartials = r && r->node == static_cast<int>(i) && r->operand == static_cast<int>(k);
      edge(i, read.shape, owned.parts, read.parts, calls, bytesOf(static_cast<std::size_t>(from)), repartitionRuns(runs, i, from),
           readsPartials);
    }
  }
}

}  // namespace

int64_t trafficLowerBound(const Graph& g, const std::vector<Parts>& parts) {
  const char* what = "traffic bound";
  int64_t bound = 0;
  forEachPhaseFloor(
      g, parts, nodeRuns(g, Invariants::OncePerStep),  // (the fewer runs: a floor of either choice)
      [&](std::size_t, int64_t, int64_t blockElements, int64_t partialsSent, int64_t bytes, int64_t times, bool) {
        // (Reduced at read or not: reading H partials moves at least H - 1 of them.)
        bound = checkedAdd(bound, checkedMul(checkedMul(checkedMul(partialsSent, blockElements, what), bytes, what), times, what), what);
      },
      [&](std::size_t, const std::vector<int64_t>& shape, const Parts& producer, const Parts& consumer, int64_t readers,
          int64_t bytes, int64_t times, bool readsPartials) {
        if (readsPartials) return;  // its bytes may be all the aggregation's floor already counts
        // (Elements only: which ranks hold and read does not matter, so any count of ranks does.)
        const RepartitionFloor f = repartitionFloor(shape, producer, consumer, readers, 0, std::nullopt, kMaxDevices);
        bound = checkedAdd(bound, checkedMul(checkedMul(f.elements, bytes, what), times, what), what);
      });
  return bound;
}

int64_t timeLowerBound(const Graph& g, const std::vector<Parts>& parts, const Machine& m, int64_t devices) {
  int64_t bound = 0;
  for (int64_t floor : timeFloorsByNode(g, parts, m, devices)) bound = checkedAdd(bound, floor, "estimated time");
  return bound;
}

std::vector<int64_t> timeFloorsByNode(const Graph& g, const std::vector<Parts>& parts, const Machine& m, int64_t devices) {
  const char* what = "estimated time";
  const einrt::RankNodes nodes = m.rankNodes();
  const bool cluster = nodes.spansNodes(devices);
  const int64_t ranksPerNode = cluster ? nodes.ranksPerNode : 0;
  std::vector<int64_t> floors(g.nodes.size(), 0);
  auto add = [&](std::size_t node, const RepartitionFloor& f, int64_t elementBytes, int64_t times) {
    floors[node] = checkedAdd(floors[node], checkedMul(repartitionFloorPicoseconds(m, f, elementBytes, cluster, ranksPerNode), times, what),
                              what);
  };
  const std::vector<NodeRuns> runs = nodeRuns(g, Invariants::OncePerStep);  // (the fewer runs: a floor of either choice)
  forEachPhaseFloor(
      g, parts, runs,
      [&](std::size_t node, int64_t partials, int64_t blockElements, int64_t, int64_t bytes, int64_t times, bool reduced) {
        if (partials <= 1 || reduced) return;  // (reduced at read: its reader's exchange, counted there)
        // The owner receives the other partials, from as many ranks; past a node's ranks
        // some come from other nodes. A sender sends one.
        const int64_t far = ranksPerNode > 0 ? std::max<int64_t>(0, partials - ranksPerNode) : 0;
        // (No rank does both: each runs one call, its block's owner or a sender.)
        RepartitionFloor f;
        f.reader = {checkedMul(partials - 1, blockElements, what), checkedMul(far, blockElements, what), partials - 1};
        f.holder = {blockElements, ranksPerNode > 0 && partials > ranksPerNode ? blockElements : 0, 1};
        add(node, f, bytes, times);
      },
      [&](std::size_t node, const std::vector<int64_t>& shape, const Parts& producer, const Parts& consumer, int64_t readers,
          int64_t bytes, int64_t times, bool) {
        // (Reduced at read, each reader receives at least what it would of the finished
        // blocks, and each holder sends what an owner would: the floor holds.)
        add(node, repartitionFloor(shape, producer, consumer, readers, ranksPerNode, std::nullopt, devices), bytes, times);
      });
  const std::vector<int64_t> compute = computeFloorsByNode(m, g, parts);
  for (std::size_t i = 0; i < floors.size(); ++i) floors[i] = checkedAdd(floors[i], checkedMul(compute[i], runs[i].calls, what), what);
  return floors;
}

int64_t exchangePicoseconds(const Graph& g, const GraphIndex& index, std::size_t node, const CallGeometry& geometry,
                            const std::vector<Parts>& parts, const std::vector<Placement>& placements,
                            const std::vector<DType>& types, const std::vector<NodeRuns>& runs, const Machine& m,
                            int64_t devices, TrafficMemo* memo) {
  const einrt::RankNodes nodes = m.rankNodes();
  const Placement& placed = placements[node];
  // A node that may be reduced at read may aggregate nothing, and its reader's exchange
  // may move partials (mayReduceAtRead): both count nothing here, so that this stays a floor.
  int64_t ps = 0;
  if (!mayReduceAtRead(g, index, parts, node)) {
    const Traffic agg = aggregationTraffic(geometry, placed.callRank, placed.blockOwner, devices, TrafficDetail::PerRank, nodes);
    ps = phasePicoseconds(m, agg, static_cast<int64_t>(dtypeSize(types[node])));
  }
  const NodeSpace space = nodeSpace(g.nodes[node]);
  for (std::size_t k = 0; k < g.nodes[node].inputs.size(); ++k) {
    const int from = index.nodeIndex(g.nodes[node].inputs[k]);
    if (from < 0 || mayReadSharedCopy(g, index, parts, runs, node, k)) continue;  // (a floor of what costPlan counts)
    const auto f = static_cast<std::size_t>(from);
    if (const std::optional<Use> r = mayReduceAtRead(g, index, parts, f); r && r->node == static_cast<int>(node) && r->operand == static_cast<int>(k))
      continue;
    const Parts producerParts = projectParts(parts[f], nodeSpace(g.nodes[f]).outputLabels);
    const Traffic t = operandTraffic({operandExtent(space, k), producerParts}, placements[f].blockOwner, geometry, k,
                                     placed.callRank, devices, TrafficDetail::PerRank, nodes, memo);
    ps = checkedAdd(ps, phasePicoseconds(m, t, static_cast<int64_t>(dtypeSize(types[f]))), "estimated time");
  }
  return ps;
}

}  // namespace eindecomp
