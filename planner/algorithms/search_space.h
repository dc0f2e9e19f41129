// The precomputed search space shared by eindecomp and brute: per node its candidate
// partitions (viable for p, after pins and --mem-limit) with their local cost under the
// objective, their output layout and, per operand, the consumer's side of the edge,
// interned as small indices; per node-to-node edge a cost matrix (producer output layout
// x consumer side). Nodes of identical shape — the same label sizes and tensor dimensions,
// operands produced by nodes at the same positions, the same FLOPs and kernel class, as in
// the repeated layers of a transformer — share one NodeCandidates, and edges between the
// same pair of shapes share one matrix, filled lazily, so the search prices each distinct
// combination once (a LLaMA-65B graph of 2,645 nodes has a few dozen shapes).
//
// Under every objective the search places calls by the canonical rule (placement.h),
// which depends on a node's own partition only; that is what makes every cost a sum of
// per-node and per-edge terms (planner/cost/objective_model.h), each a function of at most
// two partitions, and the dynamic program exact on in-trees.
// The consumer's side of an edge is its operand layout (paper) or, for traffic and time,
// the layout together with the block each rank reads (the canonical placement).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "planner/algorithms/planning.h"
#include "planner/cost/objective_model.h"
#include "planner/cost/traffic.h"
#include "planner/graph/graph.h"
#include "planner/partition/partition.h"

namespace eindecomp {

struct OperandSide {
  Parts parts;                       // the operand's layout
  einrt::model::BlockNumbers readByRank;   // traffic/time: rank r reads block readByRank[r]
  friend auto operator<=>(const OperandSide&, const OperandSide&) = default;
};

// Where a candidate leaves its output: the tensor's layout and the rank owning each block,
// block b on rank b * ownerStride (the canonical rule: 1, or on a cluster the node's
// aggregation parts).
struct OutputSide {
  Parts parts;
  int64_t ownerStride = 1;
  friend auto operator<=>(const OutputSide&, const OutputSide&) = default;
};

struct NodeCandidates {
  NodeSpace space;
  DType type = DType::F32;                     // the node's output type (tensor_types.h)
  int64_t kernelCalls = 1;
  bool fallback = false;
  bool truncated = false;
  std::vector<Parts> parts;                    // candidate partitions
  std::vector<int64_t> local;                  // local cost of each candidate under the objective (+ memory penalty)
  std::vector<int64_t> baseLocal;              // the same without the memory penalty
  std::vector<int64_t> memoryBytes;            // what it keeps per rank: its graph-input blocks and output block
  std::vector<int> outIndex;                   // candidate -> index into outs
  std::vector<std::vector<int>> operandIndex;  // [operand][candidate] -> index into operandSides[operand]
  std::vector<OutputSide> outs;                // distinct output sides
  std::vector<std::vector<OperandSide>> operandSides;
};

struct SearchEdge {
  int from = 0, to = 0, operand = 0;
  int matrix = 0;  // index into SearchSpace::matrices
};

// Edge costs of one edge shape; rows: producer output layouts, cols: consumer sides.
struct EdgeMatrix {
  std::vector<int64_t> bounds;  // the consumer's extents of the operand (a window's, if it has one)
  int64_t elementBytes = 4;     // of the tensor moved (the producer's output type)
  int64_t runs = 1;             // the consumer's runs per step: each cell is one run's cost x runs
  // An operand read through a window (SPEC 8.1): the producer's shape and where the window
  // lies in it; empty otherwise (the producer's shape is `bounds`).
  std::vector<int64_t> tensorShape, origin, halo, step, spread;
  const std::vector<OutputSide>* rows = nullptr;
  const std::vector<OperandSide>* cols = nullptr;
  // Column by column (a consumer side's costs from every producer layout together: the
  // dynamic program scans a column at a time), -1 until computed, or -2 - (2 f + tight)
  // once only a floor f under it is known (knownEdgeCost; tight: tightEdgeFloor's);
  // empty when too large to cache.
  std::vector<int64_t> cost;
  int64_t& cell(int out, int in) { return cost[static_cast<std::size_t>(in) * rows->size() + static_cast<std::size_t>(out)]; }
  std::vector<std::unique_ptr<BlockHomes>> homes;  // per row, made when first needed (time)
  // The traffic objective's fast path (traffic.h, canonical placement): per row the block
  // coordinates each rank owns, made when first needed. Those a column reads are made
  // by the thread pricing it and kept only until it prices another column (search_space.cpp
  // columnReads): the dynamic program prices a column's rows together, and keeping every
  // column's (dims x p numbers each) was most of the planner's memory at p = 16,384.
  std::vector<std::shared_ptr<const RankBlockCoordinates>> owned;  // from SharedCoordinates
  uint64_t id = 0;  // unique in the process: what a thread's last column is known by
  // The dynamic program's last answers on this matrix (block_solver.cpp bestProducers): a
  // producer's tables in ascending order and, per column, the best producer layout and
  // sum. A model's repeated layers meet equal tables again and again (LLaMA-65B under
  // --mem-limit: 87 % of the calls), and the costs an answer reads never change, so equal
  // tables give the equal answer. Most recent last.
  struct Answer {
    std::vector<std::pair<int64_t, int>> sorted;
    std::vector<int> arg;
    std::vector<int64_t> incoming;
  };
  std::vector<Answer> answers;
};

// How many answers each edge matrix keeps.
inline constexpr std::size_t kRememberedAnswers = 8;

// The dynamic program's tables (block_solver.cpp: M, Mout and their arguments per node,
// the chosen producer layouts per tree edge), kept between solves: a descent solves the
// whole graph thousands of times (a layout of each multi-consumer node at a time), and
// reusing the tables' memory instead of allocating it again took a small training step's
// --mem-limit search with recompute from 9.6 to 6.9 s.
struct BlockSolverTables {
  std::vector<std::vector<int64_t>> best, bestOut;
  std::vector<std::vector<int>> argOut, argProducer;
  std::vector<int64_t> incoming;
  std::vector<std::pair<int64_t, int>> sorted;
};

// Rank block coordinates (traffic.h) kept once per distinct layout for every edge matrix
// of a search space: they depend on a grid's parts and on which block each rank holds or
// reads, not on the tensor's extents, and a model's tensors share few layouts (at p = 4096
// on LLaMA-65B the matrices' own copies were a third of the planner's peak memory). Safe
// from two threads (the column scan's).
class SharedCoordinates {
 public:
  // The canonical owners' (ownedBlockCoordinates) of a grid cut in `parts`.
  std::shared_ptr<const RankBlockCoordinates> owned(const Parts& parts, int64_t ownerStride);

 private:
  std::mutex mutex_;
  std::map<std::pair<Parts, int64_t>, std::shared_ptr<const RankBlockCoordinates>> owned_;
};

struct SearchSpace {
  ObjectiveModel model;              // the terms it adds up (objective_model.h)
  std::vector<int> ranks;            // 0 .. devices-1: the canonical placement's call ranks
  bool onCluster = false;            // the canonical rule's cluster form (placement.h)
  std::vector<std::unique_ptr<NodeCandidates>> shapes;  // one per distinct node shape
  std::vector<NodeCandidates*> nodes;  // aligned with Graph::nodes: each node's shape
  std::vector<SearchEdge> edges;
  std::vector<std::vector<int>> inEdges, outEdges;  // edge indices per node
  std::vector<EdgeMatrix> matrices;
  std::vector<std::string> notes;  // fallbacks and truncations, for the report
  BlockSolverTables solverTables;  // one solve at a time per search space
  std::unique_ptr<SharedCoordinates> coordinates = std::make_unique<SharedCoordinates>();
};

// Throws InputError (exit 2) for nodes with other than 1 or 2 operands.
SearchSpace buildSearchSpace(const Graph& g, const PlanOptions& options);

// Cost of edge e between producer output layout `out` and consumer side `in`: computed
// once (uncachedEdgeCost) and then read from the edge's matrix. Inline: the dynamic
// program reads hundreds of millions of cells on a large model.
int64_t uncachedEdgeCost(SearchSpace& s, const SearchEdge& e, int out, int in);
// What is known of edgeCost(s, e, out, in) without pricing it: the cost where it is
// cached (`exact` set), else a floor under it from the two layouts alone, in O(dims)
// where a price is a pass over the ranks (0 where none is known: windows, the paper
// objective), kept in the cell. The search prices a pair only when its floor could win.
int64_t firstEdgeFloor(SearchSpace& s, const SearchEdge& e, int out, int in);
inline int64_t knownEdgeCost(SearchSpace& s, const SearchEdge& e, int out, int in, bool& exact) {
  EdgeMatrix& m = s.matrices[static_cast<std::size_t>(e.matrix)];
  const int64_t cell = m.cost.empty() ? -1 : m.cell(out, in);
  exact = cell >= 0;
  if (exact) return cell;
  return cell <= -2 ? (-2 - cell) / 2 : firstEdgeFloor(s, e, out, in);
}
// A tighter floor than knownEdgeCost's first (the objective's group floor, O(ranks per
// node x dims)), kept in the cell; for a pair whose first floor did not settle it.
int64_t tightEdgeFloor(SearchSpace& s, const SearchEdge& e, int out, int in);
inline int64_t edgeCost(SearchSpace& s, const SearchEdge& e, int out, int in) {
  EdgeMatrix& m = s.matrices[static_cast<std::size_t>(e.matrix)];
  if (!m.cost.empty()) {
    const int64_t cell = m.cell(out, in);
    if (cell >= 0) return cell;
  }
  return uncachedEdgeCost(s, e, out, in);
}

// Makes what uncachedEdgeCost would make lazily for edge e (every row's owned block
// coordinates), so that two threads may then compute costs of different columns of its
// matrix at once; false where costs of this edge cannot be computed concurrently (no
// cached matrix, or a cost path that builds shared state).
bool prepareConcurrentEdgeCosts(SearchSpace& s, const SearchEdge& e);

// The plan's cost under the objective (canonical placement) for one candidate per node.
int64_t totalCost(SearchSpace& s, const std::vector<int>& choice);

// The candidate partitions chosen, as Parts per node.
std::vector<Parts> chosenParts(const SearchSpace& s, const std::vector<int>& choice);

// The Lagrangian memory term of --mem-limit (planning.cpp): every candidate's local cost
// becomes baseLocal + weight x memoryBytes (objective units per byte; 0 removes it).
void setMemoryPenalty(SearchSpace& s, double weight);

// eindecomp's search over a built space (eindecomp.cpp), under its current local costs.
PartitionChoice searchPartitions(SearchSpace& s, const PlanOptions& options);

}  // namespace eindecomp
