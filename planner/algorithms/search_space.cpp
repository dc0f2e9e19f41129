#include "planner/algorithms/search_space.h"

#include <atomic>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <numeric>
#include <tuple>

#include "planner/cost/checked_math.h"
#include "planner/cost/cost_model.h"
#include "planner/cost/time_model.h"
#include "planner/graph/diagnostic.h"
#include "planner/graph/excerpt.h"
#include "planner/graph/graph_index.h"
#include "planner/graph/tensor_types.h"
#include "planner/partition/call_geometry.h"
#include "planner/paths/gemm_mapping.h"
#include "planner/placement/placement.h"

namespace eindecomp {

namespace {

// Matrices larger than this are not cached (each entry is computed when needed).
constexpr std::size_t kMaxCachedMatrix = std::size_t{1} << 22;

// EdgeMatrix::id: searches run on several threads (a cluster's flat plan beside it).
std::atomic<uint64_t> nextMatrixId{1};

// A grid cut in `parts` whose blocks are one element each: coordinates read its parts only.
einrt::BlockGrid unitGrid(const Parts& parts) { return einrt::BlockGrid{parts, parts}; }

template <class T>
int intern(std::vector<T>& list, std::map<T, int>& index, const T& value) {
  auto [it, inserted] = index.emplace(value, static_cast<int>(list.size()));
  if (inserted) list.push_back(value);
  return it->second;
}

// The consumer's side of edges into operand k of a candidate. Only an operand produced by
// another node has edges; a graph input's side is its layout alone, since the reads by rank
// (p entries per distinct side) cost nothing there and would hold gigabytes for a wide node
// at large p (20 labels at p = 65536: 4,845 candidates x 2 operands x 65,536 ranks).
OperandSide operandSide(const SearchSpace& s, const NodeSpace& space, const Parts& parts, const CallGeometry& geometry,
                        const Placement& placement, std::size_t k, bool produced) {
  OperandSide side{projectParts(parts, space.operandLabels[k]), {}};
  if (!s.model.edgeNeedsPlacement() || !produced) return side;
  side.readByRank.assign(static_cast<std::size_t>(geometry.calls), 0);
  for (std::size_t c = 0; c < placement.callRank.size(); ++c)
    side.readByRank[static_cast<std::size_t>(placement.callRank[c])] = geometry.operandBlock[k][c];
  return side;
}

// What a node's candidates depend on: the shape of its iteration space, which operands
// other nodes produce, its FLOPs and kernel class (the time objective's compute term) and
// a pinned partition, the element types of its output and operands (SPEC 8: what
// each moved or kept element costs), and how often its calls and its aggregation run per
// step (micro-batches), and how many slices of each graph-input operand a rank holds (a
// split input's every micro-batch). Nodes with equal keys share one NodeCandidates.
using ShapeKey = std::tuple<std::vector<int64_t>, std::vector<std::vector<int>>, std::vector<int>, std::vector<bool>,
                            int64_t, bool, std::optional<Parts>, std::vector<std::vector<int64_t>>, std::vector<std::vector<int64_t>>,
                            std::vector<std::vector<int>>, std::vector<std::vector<int64_t>>, std::vector<std::vector<int64_t>>,
                            std::vector<std::vector<int64_t>>, DType, std::vector<DType>, int64_t, int64_t, std::vector<int64_t>>;

// The candidates of one node shape (`n` is any node of that shape).
std::unique_ptr<NodeCandidates> nodeCandidates(const SearchSpace& s, const Node& n, NodeSpace space,
                                               const std::vector<bool>& produced, const std::optional<Parts>& pin,
                                               DType type, const std::vector<DType>& operandTypes, NodeRuns runs,
                                               const std::vector<int64_t>& inputSlices, const PlanOptions& options) {
  auto c = std::make_unique<NodeCandidates>();
  c->space = std::move(space);
  c->type = type;
  // A widening contraction's GEMM runs at its operands' type's rate (tensor_types.h).
  const DType computeType = isWideningContraction(n) ? operandTypes[0] : type;
  ViablePartitions viable = viablePartitions(einrt::model::cuttableSizes(c->space), options.devices, options.partitionLimit);
  c->kernelCalls = viable.kernelCalls;
  c->fallback = viable.fallback;
  c->truncated = viable.truncated;
  std::vector<Parts> candidates = pin ? std::vector<Parts>{*pin} : std::move(viable.partitions);
  // A label repeated in a tensor multiplies its blocks: where a cut would number them past
  // 32 bits (einrt's BlockNumbers), it is not a candidate.
  std::erase_if(candidates, [&](const Parts& parts) { return !einrt::model::blockNumbersFit(c->space, parts); });
  if (candidates.empty())
    throw InputError({n.loc, "node " + quoted(n.name) + ": every partition into " + std::to_string(c->kernelCalls) +
                                 " kernel calls gives a tensor of 2^31 blocks or more (a label repeated in a tensor "
                                 "multiplies its blocks): plan it for fewer devices"});
  std::map<OutputSide, int> outIndex;
  std::vector<std::map<OperandSide, int>> sideIndex(c->space.operandLabels.size());
  c->operandSides.resize(c->space.operandLabels.size());
  c->operandIndex.resize(c->space.operandLabels.size());
  for (Parts& parts : candidates) {
    const CallGeometry geometry = callGeometry(c->space, parts);
    const Placement placement = canonicalPlacement(geometry, s.onCluster);
    c->local.push_back(s.model.nodeTerm(n, c->space, parts, geometry, placement, type, computeType, runs));
    // What the candidate keeps on a rank for long: the graph-input blocks its calls read
    // (resident all run) and its output block.
    int64_t keeps = checkedMul(geometry.outputGrid.blockElements(), static_cast<int64_t>(dtypeSize(type)), "memory");
    for (std::size_t k = 0; k < produced.size(); ++k)
      if (!produced[k])
        keeps = checkedAdd(keeps,
                           checkedMul(checkedMul(geometry.operandGrid[k].blockElements(), static_cast<int64_t>(dtypeSize(operandTypes[k])), "memory"),
                                      inputSlices[k], "memory"),
                           "memory");
    c->memoryBytes.push_back(keeps);
    c->outIndex.push_back(intern(c->outs, outIndex,
                                 OutputSide{projectParts(parts, c->space.outputLabels), s.onCluster ? geometry.aggParts : 1}));
    for (std::size_t k = 0; k < c->space.operandLabels.size(); ++k)
      c->operandIndex[k].push_back(
          intern(c->operandSides[k], sideIndex[k], operandSide(s, c->space, parts, geometry, placement, k, produced[k])));
    c->parts.push_back(std::move(parts));
  }
  c->baseLocal = c->local;
  return c;
}

}  // namespace

SearchSpace buildSearchSpace(const Graph& g, const PlanOptions& options) {
  SearchSpace s;
  s.model = objectiveModel(g, options);
  s.onCluster = s.model.nodes().spansNodes(options.devices);
  s.ranks.resize(static_cast<std::size_t>(options.devices));
  std::iota(s.ranks.begin(), s.ranks.end(), 0);
  s.nodes.resize(g.nodes.size());
  const GraphIndex index(g);
  const std::vector<DType> types = nodeOutputTypes(g);
  const std::vector<NodeRuns> runs = nodeRuns(g, options.invariantsPerMicroBatch ? Invariants::PerMicroBatch : Invariants::OncePerStep);
  std::map<ShapeKey, int> shapeOf;
  std::vector<int> nodeShape(g.nodes.size());
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.operandLabels.empty() || n.operandLabels.size() > 2)
      throw InputError({n.loc, "node '" + n.name + "' has " + std::to_string(n.operandLabels.size()) +
                                   " operands; the planner needs 1 or 2 (split n-ary contractions first)"});
    NodeSpace space = nodeSpace(n);
    std::vector<bool> produced(space.operandLabels.size());
    std::vector<DType> operandTypes(produced.size());
    std::vector<int64_t> inputSlices(produced.size(), 1);
    for (std::size_t k = 0; k < produced.size(); ++k) {
      const int from = index.nodeIndex(n.inputs[k]);
      produced[k] = from >= 0;
      operandTypes[k] = from >= 0 ? types[static_cast<std::size_t>(from)] : inputType(g, *index.findInput(n.inputs[k]));
      if (from < 0 && splitDimension(g, n.inputs[k]) >= 0) inputSlices[k] = microBatchCount(g);
    }
    const auto pinIt = options.pinned.find(n.name);
    std::optional<Parts> pin;
    if (pinIt != options.pinned.end()) pin = pinIt->second;
    ShapeKey key{space.sizes, space.operandLabels, space.outputLabels, produced, nodeFlops(n), runsAsGemm(n), pin,
                 space.operandOrigin, space.operandBound, space.operandTap, space.operandTapDilation, space.operandStep,
                 space.operandSpread, types[i], operandTypes, runs[i].calls, runs[i].aggregation, inputSlices};
    auto [it, inserted] = shapeOf.emplace(std::move(key), static_cast<int>(s.shapes.size()));
    if (inserted)
      s.shapes.push_back(nodeCandidates(s, n, std::move(space), produced, pin, types[i], operandTypes, runs[i], inputSlices, options));
    nodeShape[i] = it->second;
    NodeCandidates& c = *s.shapes[static_cast<std::size_t>(it->second)];
    s.nodes[i] = &c;
    if (c.fallback)
      s.notes.push_back("node '" + n.name + "': no partition gives " + std::to_string(options.devices) +
                        " kernel calls; using " + std::to_string(c.kernelCalls));
    if (c.truncated)
      s.notes.push_back("node '" + n.name + "': partition enumeration stopped at " +
                        std::to_string(options.partitionLimit) + " candidates");
  }
  // Edges, sharing one matrix per (producer shape, consumer shape, operand): the bounds,
  // the producer's layouts and the consumer's sides are functions of these.
  s.inEdges.resize(g.nodes.size());
  s.outEdges.resize(g.nodes.size());
  std::map<std::tuple<int, int, int>, int> matrixOf;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    for (std::size_t k = 0; k < g.nodes[i].inputs.size(); ++k) {
      const int from = index.nodeIndex(g.nodes[i].inputs[k]);
      if (from < 0) continue;
      SearchEdge e{from, static_cast<int>(i), static_cast<int>(k), 0};
      auto [it, inserted] = matrixOf.emplace(std::make_tuple(nodeShape[static_cast<std::size_t>(from)], nodeShape[i], e.operand),
                                             static_cast<int>(s.matrices.size()));
      if (inserted) {
        EdgeMatrix m;
        m.bounds = tensorBounds(s.nodes[i]->space, e.operand);
        m.elementBytes = static_cast<int64_t>(dtypeSize(s.nodes[static_cast<std::size_t>(from)]->type));
        // One consumer shape, one count of runs (its ShapeKey); a producer run once per step
        // that a consumer run per micro-batch reads is an invariant run once (its
        // ShapeKey's runs), whose repartition runs once.
        m.runs = repartitionRuns(runs, i, from);
        if (s.nodes[i]->space.windowed(k)) {
          // Where the window lies (its origin, halo, step and spread) does not depend on the
          // partition.
          const NodeSpace& space = s.nodes[i]->space;
          const einrt::BlockGrid window = einrt::model::operandGrid(space, std::vector<int64_t>(space.sizes.size(), 1), k);
          m.tensorShape = window.bound;
          m.origin = window.origin;
          m.halo = window.halo;
          m.step = window.step;
          m.spread = window.spread;
        }
        m.rows = &s.nodes[static_cast<std::size_t>(from)]->outs;
        m.cols = &s.nodes[i]->operandSides[k];
        const std::size_t entries = m.rows->size() * m.cols->size();
        if (entries <= kMaxCachedMatrix) m.cost.assign(entries, -1);
        m.homes.resize(m.rows->size());
        m.owned.resize(m.rows->size());
        m.id = nextMatrixId++;
        s.matrices.push_back(std::move(m));
      }
      e.matrix = it->second;
      s.inEdges[i].push_back(static_cast<int>(s.edges.size()));
      s.outEdges[static_cast<std::size_t>(from)].push_back(static_cast<int>(s.edges.size()));
      s.edges.push_back(e);
    }
  }
  return s;
}

namespace {

// An operand read through a window: the canonical placement's traffic (a window's reads
// are never the producer's blocks; the paper's model counts every element read as moved).
int64_t windowEdgeCost(SearchSpace& s, EdgeMatrix& m, const OutputSide& side, const OperandSide& consumer) {
  const einrt::BlockGrid grid{m.bounds, consumer.parts, m.origin, m.tensorShape, m.halo, m.step, m.spread};
  if (s.model.objective == Objective::Paper) return windowRepartitionCost(grid);
  const einrt::BlockGrid from{m.tensorShape, side.parts};
  std::vector<int> owner(static_cast<std::size_t>(from.blockCount()));
  for (std::size_t b = 0; b < owner.size(); ++b) owner[b] = static_cast<int>(static_cast<int64_t>(b) * side.ownerStride);
  const BlockHomes homes(from, std::move(owner), s.model.devices);
  const std::vector<int> callRank(s.ranks.begin(), s.ranks.begin() + static_cast<std::ptrdiff_t>(consumer.readByRank.size()));
  return s.model.edgeTerm(m.bounds, side.parts, consumer.parts, &homes, grid, consumer.readByRank, callRank, m.elementBytes);
}

// The block coordinates each rank reads of column `in`: this thread's last column's, made
// again when it prices another (in the storage of the last: no allocation, no new pages).
const RankBlockCoordinates& columnReads(const EdgeMatrix& m, int in, const OperandSide& consumer) {
  struct LastColumn {
    uint64_t matrix = 0;
    int column = -1;
    RankBlockCoordinates reads;
  };
  static thread_local LastColumn last;
  if (last.matrix != m.id || last.column != in) {
    assignRankBlockCoordinates(unitGrid(consumer.parts), consumer.readByRank, last.reads);
    last.matrix = m.id;
    last.column = in;
  }
  return last.reads;
}

// The block coordinates each rank owns of row `out`, found when first needed.
const RankBlockCoordinates& ownedCoordinates(SearchSpace& s, EdgeMatrix& m, int out) {
  auto& owned = m.owned[static_cast<std::size_t>(out)];
  const OutputSide& side = (*m.rows)[static_cast<std::size_t>(out)];
  if (!owned) owned = s.coordinates->owned(side.parts, side.ownerStride);
  return *owned;
}

int64_t onceEdgeCost(SearchSpace& s, EdgeMatrix& m, int out, int in) {
  const OutputSide& side = (*m.rows)[static_cast<std::size_t>(out)];
  const Parts& producer = side.parts;
  const OperandSide& consumer = (*m.cols)[static_cast<std::size_t>(in)];
  if (!m.origin.empty()) return windowEdgeCost(s, m, side, consumer);
  const einrt::BlockGrid grid{m.bounds, consumer.parts};
  if (s.model.hasCanonicalEdgeTerm()) {
    const einrt::BlockGrid from{m.bounds, producer};
    return s.model.canonicalEdgeTerm(from, ownedCoordinates(s, m, out), grid, columnReads(m, in, consumer), m.elementBytes);
  }
  std::unique_ptr<BlockHomes>& homes = m.homes[static_cast<std::size_t>(out)];
  if (!homes && s.model.edgeNeedsPlacement()) {
    // The canonical placement keeps block b of every tensor on rank b * ownerStride.
    const einrt::BlockGrid from{m.bounds, producer};
    std::vector<int> owner(static_cast<std::size_t>(from.blockCount()));
    for (std::size_t b = 0; b < owner.size(); ++b) owner[b] = static_cast<int>(static_cast<int64_t>(b) * side.ownerStride);
    homes = std::make_unique<BlockHomes>(from, std::move(owner), s.model.devices);
  }
  const std::vector<int> callRank(s.ranks.begin(), s.ranks.begin() + static_cast<std::ptrdiff_t>(consumer.readByRank.size()));
  return s.model.edgeTerm(m.bounds, producer, consumer.parts, homes.get(), grid, consumer.readByRank, callRank, m.elementBytes);
}

// The repartition runs before each of the consumer's runs (micro-batches).
int64_t computeEdgeCost(SearchSpace& s, EdgeMatrix& m, int out, int in) {
  const int64_t once = onceEdgeCost(s, m, out, in);
  return m.runs == 1 ? once : checkedMul(once, m.runs, "edge cost");
}

}  // namespace

int64_t uncachedEdgeCost(SearchSpace& s, const SearchEdge& e, int out, int in) {
  EdgeMatrix& m = s.matrices[static_cast<std::size_t>(e.matrix)];
  if (m.cost.empty()) return computeEdgeCost(s, m, out, in);
  return m.cell(out, in) = computeEdgeCost(s, m, out, in);
}

namespace {

// A floor kept in a cell: -2 - (2 floor + tight). A floor too large for that is kept as
// the largest that fits (still a floor).
constexpr int64_t kLargestKeptFloor = (std::numeric_limits<int64_t>::max() - 3) / 2;
int64_t floorCell(int64_t floor, bool tight) { return -2 - (2 * std::min(floor, kLargestKeptFloor) + (tight ? 1 : 0)); }

}  // namespace

int64_t firstEdgeFloor(SearchSpace& s, const SearchEdge& e, int out, int in) {
  EdgeMatrix& m = s.matrices[static_cast<std::size_t>(e.matrix)];
  int64_t* cell = m.cost.empty() ? nullptr : &m.cell(out, in);
  if (!m.origin.empty() || !s.model.hasCanonicalEdgeTerm()) return 0;
  const OutputSide& producer = (*m.rows)[static_cast<std::size_t>(out)];
  const OperandSide& consumer = (*m.cols)[static_cast<std::size_t>(in)];
  const int64_t floor = checkedMul(s.model.canonicalEdgeFloor(m.bounds, producer.parts, producer.ownerStride, consumer.parts,
                                                              static_cast<int64_t>(consumer.readByRank.size()), m.elementBytes),
                                   m.runs, "edge cost");
  if (cell) *cell = floorCell(floor, false);
  return std::min(floor, kLargestKeptFloor);
}

int64_t tightEdgeFloor(SearchSpace& s, const SearchEdge& e, int out, int in) {
  EdgeMatrix& m = s.matrices[static_cast<std::size_t>(e.matrix)];
  int64_t* cell = m.cost.empty() ? nullptr : &m.cell(out, in);
  if (cell && *cell >= 0) return *cell;
  if (cell && *cell <= -2 && (-2 - *cell) % 2 == 1) return (-2 - *cell) / 2;
  if (!m.origin.empty() || !s.model.hasCanonicalEdgeTerm()) return 0;
  const OutputSide& producer = (*m.rows)[static_cast<std::size_t>(out)];
  const OperandSide& consumer = (*m.cols)[static_cast<std::size_t>(in)];
  const int64_t floor = checkedMul(
      s.model.canonicalEdgeGroupFloor(m.bounds, producer.parts, producer.ownerStride, consumer.parts, consumer.readByRank, m.elementBytes),
      m.runs, "edge cost");
  if (cell) *cell = floorCell(floor, true);
  return std::min(floor, kLargestKeptFloor);
}

bool prepareConcurrentEdgeCosts(SearchSpace& s, const SearchEdge& e) {
  EdgeMatrix& m = s.matrices[static_cast<std::size_t>(e.matrix)];
  if (m.cost.empty()) return false;
  // A window's cost, and the paper objective's, build nothing shared; the canonical path
  // reads the rows' owned coordinates (made here) and its column's read coordinates (made
  // by the one thread pricing that column).
  if (m.origin.empty() && s.model.hasCanonicalEdgeTerm())
    for (std::size_t out = 0; out < m.rows->size(); ++out)
      ownedCoordinates(s, m, static_cast<int>(out));
  return true;
}

int64_t totalCost(SearchSpace& s, const std::vector<int>& choice) {
  int64_t total = 0;
  for (std::size_t v = 0; v < s.nodes.size(); ++v)
    total = checkedAdd(total, s.nodes[v]->local[static_cast<std::size_t>(choice[v])], "plan cost");
  for (const SearchEdge& e : s.edges) {
    const int out = s.nodes[static_cast<std::size_t>(e.from)]->outIndex[static_cast<std::size_t>(choice[static_cast<std::size_t>(e.from)])];
    const int in = s.nodes[static_cast<std::size_t>(e.to)]
                       ->operandIndex[static_cast<std::size_t>(e.operand)][static_cast<std::size_t>(choice[static_cast<std::size_t>(e.to)])];
    total = checkedAdd(total, edgeCost(s, e, out, in), "plan cost");
  }
  return total;
}

void setMemoryPenalty(SearchSpace& s, double weight) {
  // Capped far below overflow: a term this large already decides on its own.
  constexpr double kCap = 1e15;
  for (auto& shape : s.shapes) {
    NodeCandidates& c = *shape;
    for (std::size_t k = 0; k < c.local.size(); ++k)
      c.local[k] = checkedAdd(c.baseLocal[k], static_cast<int64_t>(std::min(kCap, weight * static_cast<double>(c.memoryBytes[k]))), "plan cost");
  }
}

std::vector<Parts> chosenParts(const SearchSpace& s, const std::vector<int>& choice) {
  std::vector<Parts> parts;
  for (std::size_t v = 0; v < s.nodes.size(); ++v) parts.push_back(s.nodes[v]->parts[static_cast<std::size_t>(choice[v])]);
  return parts;
}

std::shared_ptr<const RankBlockCoordinates> SharedCoordinates::owned(const Parts& parts, int64_t ownerStride) {
  const std::lock_guard<std::mutex> lock(mutex_);
  auto& kept = owned_[{parts, ownerStride}];
  if (!kept) kept = std::make_shared<const RankBlockCoordinates>(ownedBlockCoordinates(unitGrid(parts), ownerStride));
  return kept;
}

}  // namespace eindecomp
