// einrt's program model: the lowered program as plain data, derived once from its tables
// (tables.h) — per node the block extents, what every call reads and writes, which operands
// are read in place, whether partial results are aggregated, the GEMM call with its loops;
// the fused groups and their tile geometry; and the step schedule: which nodes run as one
// step and, when a step ends, whose outputs die. The rules here are the ones the planner's
// memory, residency and time models and the executor share, written once (cotengra's
// ContractionTree is the model: one traversal serves both the peak and the execution):
//
//   steps        a node, or a fused group's consecutive members together (host memory);
//   last reader  a node output dies when the step of its last reader ends (its own step if
//                nothing reads it); graph outputs stay for the whole run;
//   in place     an operand is read from the producer's finished blocks where both grids
//                have the same parts, it is not read through a window, and every block it
//                reads sits on the only rank that reads it; otherwise each rank receives a
//                copy of every block it reads (a window's fill written by the rank);
//   aggregates   partial results are combined onto the blocks' owners where some output
//                block has several writers, or its owner writes none of it;
//   scratch      a fused member's output lives in tiles only when its last reader is in
//                its group and it is no graph output;
//   input copies the operands that read one graph input through equal grids (no window)
//                share its blocks: a rank holds each block once, for all of their calls
//                that read it (a weight that the forward and the backward read alike is
//                made or scattered once, and held once).
//   output copies the same for node outputs, near one another: an operand that reads a
//                node output through the grid and the (rank, block) pairs of an earlier
//                operand's received copy (not in place, no window, both run per
//                micro-batch or both once per step) reads that copy, where it comes at
//                most kCopyReach nodes after the copy's last reader so far. The copy is
//                received once and kept to the end of its last reader's step (q, k and v
//                read one gathered copy of the layer's input, as Megatron's fused QKV GEMM
//                does). Further apart each receives its own: a copy held from the forward
//                to the backward would cost its bytes for the whole step (Megatron-SP
//                gathers again in the backward for the same reason).
//   reduced at read a node whose partial results would be aggregated onto their owners and
//                then sent on to its reader has them reduced on the way to that reader
//                instead (one exchange, a reduce-scatter where the reader's blocks split
//                the holders' block: Megatron-SP's after a row-parallel GEMM), where: its
//                output is no graph output; one operand reads
//                it with a copy of its own (not in place, no window, in the same phase
//                but for an accumulated node's once-per-step reader,
//                each of its blocks inside one partial block: the reader's cut splits the
//                holders' blocks) and every other reader shares that copy; that reader comes at most
//                kCopyReach nodes later (any distance for an accumulated node, whose
//                partials are held to the step's end anyway: its sums reduce-scattered
//                once per step, as DDP and a distributed optimizer reduce); and the exchange moves fewer elements than the
//                aggregation and the repartition together, with no busiest rank on
//                either link (ProgramTables::ranksPerNode) sending, receiving or
//                messaging more than those two phases' busiest together, so that it
//                takes no longer at any latency and bandwidth (partialsReducedAtRead). Its
//                partial blocks are then its finished ones: they live until its last
//                reader's step ends, and nothing is aggregated onto owners.
//   micro-batches a step of M (ProgramTables::microBatches; the planner's
//                planner/graph/micro_batches.h) runs its nodes not oncePerStep, which come
//                first, M times, micro-batch m on slice m of each split input (whose M
//                slices are all held for the run); an accumulated node's first run writes
//                its partials, each later run writes fresh blocks that are added into them
//                and go, and its last run aggregates them (runOfStep); then the nodes run
//                once per step, once. A body node read once per step keeps its finished
//                blocks from the first micro-batch on (NodeModel::outlivesMicroBatches).
//   run once     an invariant run once (NodeTable::runsOnce: a node of the body whose
//                value is the same in every micro-batch, a master weight's cast) runs in
//                the first micro-batch only; its finished blocks, and every copy of them
//                an operand of the body not run once receives (not in place: NodeModel::
//                copyKept), stay to the end of the last micro-batch, where they die
//                (ProgramModel::bodyEndReleases): later micro-batches neither run it nor
//                receive it again, and a later operand of the body with the same (rank,
//                block) pairs shares such a copy at any distance.
//
// What each rank holds, and when (SPEC 3.2), in memory_timeline.h; the planner prices it
// (planner/cost/memory.h), the executor allocates it (runtime/src/program/distributed.h).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "einrt/model/call_geometry.h"
#include "einrt/model/fused_tiles.h"
#include "einrt/model/gemm_call.h"
#include "einrt/model/tables.h"

namespace einrt::model {

// (rank, block number): block numbers are BlockNumbers' (4 bytes), so a pair packs into 8
// (the reads of every call of a plan at p = 16,384 were most of the report's peak at 16).
using RankBlock = std::pair<int, int32_t>;

// The distinct (rank, block) pairs of calls' blocks of one tensor grid (call c on rank
// callRank[c] reads or writes block callBlock[c]), sorted: NodeModel's reads and writes,
// and what the planner's traffic count walks rank by rank.
std::vector<RankBlock> distinctPairs(const BlockNumbers& callBlock, const std::vector<int>& callRank);

// How far (in nodes) an operand reaches back for a copy to share (output copies, above).
inline constexpr int kCopyReach = 8;

// The received copy an operand reads: operand `operand` of node `node` (-1: its own).
struct OperandCopy {
  int node = -1, operand = -1;
};

struct NodeModel {
  std::vector<int64_t> extent;                 // block extent per label (blockExtent)
  // The blocks each call reads and writes, and the distinct (rank, block) pairs read per
  // operand and written, sorted: shared between nodes of one shape, partition and
  // placement (SharedGeometries; a model's repeated layers), each p entries.
  std::shared_ptr<const CallGeometry> geometry;
  std::vector<std::shared_ptr<const std::vector<RankBlock>>> reads;
  std::vector<bool> inPlace;                   // per operand (above); graph inputs never are
  std::shared_ptr<const std::vector<RankBlock>> writes;
  bool aggregates = false;
  bool scratch = false;                        // output kept in tiles only (fused runs)
  int group = -1;                              // index into ProgramModel::groups, -1: none
  std::optional<GemmCallPlan> gemm;            // a contraction's call (gemm_call.h)
  int64_t gemmScratchBytes = 0;                // one block per permuted tensor (of its own type:
                                               // a widening contraction's operands are 2-byte,
                                               // its result f32), during its step, on each
                                               // rank with calls of the node
  int step = 0;                                // index into ProgramModel::steps
  std::vector<int> inputCopy;                  // per operand: index into ProgramModel::inputCopies, -1: none
  // Output copies (above), per operand: the earlier operand whose copy it reads, and for an
  // operand with a copy of its own, the node whose step end releases it (itself if no later
  // operand shares it).
  std::vector<OperandCopy> sharesCopyOf;
  std::vector<int> copyKeptUntil;
  // Reduced at read (above): the operand whose repartition receives this node's partial
  // results reduced ({-1, -1}: none); and per operand, whether it is such a reader.
  OperandCopy reducedBy;
  std::vector<bool> readsPartials;
  // Partial results combined onto the blocks' owners after the calls (an aggregation of
  // its own): aggregates, and not reduced at read.
  bool aggregatesOntoOwners() const { return aggregates && reducedBy.node < 0; }
  // Micro-batches: a node run per micro-batch that a node run once per step reads (its
  // value the same in every micro-batch: a node of graph inputs alone). Its finished blocks
  // are made in the first micro-batch and kept to the end of the step; later micro-batches
  // write them again.
  bool outlivesMicroBatches = false;
  // Run once (above), per operand: its copy of an invariant run once is received in the
  // first micro-batch and kept to the end of the last.
  std::vector<bool> copyKept;
};

// One graph input's blocks in one grid, shared by every operand that reads it so.
struct InputCopy {
  int tensor = -1;
  int node = -1, operand = -1;    // its first reader, which sets it up
  std::vector<RankBlock> reads;   // distinct (rank, block) any of its readers' calls read, sorted
};

struct StepModel {
  int first = 0, last = 0;   // member nodes first..last
  std::vector<int> releases;  // nodes whose finished outputs die when the step ends
  std::vector<OperandCopy> copyReleases;  // received copies of earlier steps that die when it ends
};

struct ProgramModel {
  bool fused = false;                      // fused groups run as one step (host memory)
  std::vector<NodeModel> nodes;            // aligned with the tables' nodes
  std::vector<int> lastReader;             // per node: the last node reading its output (itself if none)
  std::vector<FusedGroupGeometry> groups;  // per fused group, for one thread (fused runs)
  std::vector<StepModel> steps;
  std::vector<InputCopy> inputCopies;      // Full detail only
  // What dies when the last micro-batch ends (run once, above): invariants' finished blocks
  // and the kept copies of them (Full detail only).
  std::vector<int> bodyEndReleases;
  std::vector<OperandCopy> bodyEndCopyReleases;
};

// Which of its runs a node's run at micro-batch m is: an accumulated node's M runs add up
// into the partials its first run allocates, and its last run aggregates them; every
// other node's run is its own first and last.
struct RunOfStep {
  bool first = true, last = true;
};
inline RunOfStep runOfStep(const ProgramTables& t, std::size_t node, int64_t microBatch) {
  if (!t.nodes[node].accumulated || t.microBatches <= 1) return {};
  return {microBatch == 0, microBatch + 1 == t.microBatches};
}

// The nodes run per micro-batch: 0 .. bodyEnd(t) - 1 (all of them without micro-batches).
std::size_t bodyEnd(const ProgramTables& t);

// The last reader of every node's output (readers come later in node order).
std::vector<int> lastReaders(const ProgramTables& t);

// How much of the model to derive: its steps alone (last readers, fused groups and their
// scratch outputs: what the time model reads), or everything (what each call reads and
// writes, GEMM calls: what the memory model and the executor need).
enum class ModelDetail { Steps, Full };

// Builds the model of `t` for elements of `elementSize` bytes; `fused`: fused groups run
// as one step (host memory; on a device every node is a step of its own and no output is
// scratch). `geometry`: the nodes' call geometries where the caller has them (the
// planner's traffic model), else computed here. Throws std::logic_error where the tables
// break a rule the planner guarantees (a fused member that would move data between ranks;
// a node run per micro-batch after one run once per step, or one reading it).
ProgramModel buildProgramModel(const ProgramTables& t, std::size_t elementSize, bool fused,
                               std::vector<std::shared_ptr<const CallGeometry>> geometry = {},
                               ModelDetail detail = ModelDetail::Full);

// The output-copy rule (above) over the nodes' call geometries: per node and operand, the
// earlier operand whose received copy it reads ({-1, -1}: none). The planner's traffic
// count and the model below share it.
std::vector<std::vector<OperandCopy>> sharedOutputCopies(const ProgramTables& t,
                                                         const std::vector<std::shared_ptr<const CallGeometry>>& geometry);

// The reduced-at-read rule (above) over the nodes' call geometries and the output-copy
// rule's shares: per node, the operand that receives its partials reduced ({-1, -1}:
// none). The planner's traffic count and the model below share it.
std::vector<OperandCopy> partialsReducedAtRead(const ProgramTables& t,
                                               const std::vector<std::shared_ptr<const CallGeometry>>& geometry,
                                               const std::vector<std::vector<OperandCopy>>& copies);

// Ranks holding each block of a grid of `blocks` blocks, from distinct (rank, block) pairs.
std::vector<std::vector<int>> holdersByBlock(const std::vector<RankBlock>& pairs, int64_t blocks);

// The pieces of a reduction at read, the one walk its rule, its traffic and its staging
// count: for each (reading rank, block) of `reads`, every piece of a partial block that
// block overlaps, with the ranks holding a partial of it. The reader receives the piece
// from every holder but itself; its own partial it keeps, as in an aggregation.
// visit(int reader, int64_t partialBlock, int64_t elements, const std::vector<int>& holders).
template <class Visit>
void forEachReducedPiece(const BlockGrid& read, const std::vector<RankBlock>& reads, const BlockGrid& partials,
                         const std::vector<std::vector<int>>& holders, Visit visit) {
  for (const RankBlock& rb : reads) {
    const int reader = rb.first;  // a plain variable: clang 14 (the fuzz build) cannot capture a structured binding
    forEachOverlap(read, rb.second, partials, [&](int64_t o, int64_t elements) {
      visit(reader, o, elements, holders[static_cast<std::size_t>(o)]);
    });
  }
}

// The blocks rank `rank` holds among distinct (rank, block) pairs sorted by rank.
std::vector<int64_t> blocksOf(const std::vector<RankBlock>& pairs, int rank);

// The output blocks `rank` owns (block owners of the node).
std::vector<int64_t> ownedBlocks(const NodeTable& n, int rank);

}  // namespace einrt::model
