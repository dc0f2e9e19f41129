// The distributed state of a program on one rank (executor.h): per node the layouts and
// block buffers this rank holds, the planned einrt collectives, the prepared kernel; set up
// once (collectively, in the same order on every rank), then run step by step per
// iteration — a step is one node, or a fused group's members together (fused_group.h,
// host memory only). Also gathers outputs to rank 0.
//
// What happens is decided by einrt's program model (einrt/model/program_model.h), built
// once from the tables; the buffers follow its rules (einrt/model/memory_timeline.h, the
// rules the planner's memory model prices): graph inputs' blocks, graph outputs' finished
// blocks, the fused-tile workspace and the plan's staging budget are allocated by setUp
// and stay; every other buffer of a step — received operand copies, (partial) output
// blocks, owned blocks of an aggregation, GEMM scratch — is allocated when the step
// begins; when it ends, copies (a shared output copy: when its last reader's step ends),
// partials that were aggregated and scratch are released, and so is every node output
// whose last reader ran in this step.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <einrt/block_grid.h>
#include <einrt/communicator.h>
#include <einrt/layout.h>
#include <einrt/redistribute.h>

#include "buffer.h"
#include "fused_group.h"
#include "index_kernel.h"
#include "einrt/model/program_model.h"
#include "einrt/program/spec.h"
#include "node_kernel.h"

namespace einrt::program::detail {

template <class T>
struct NodeState {
  std::vector<int64_t> myCalls;
  // Per operand: the blocks this rank's calls read (held only during the step for
  // operands another node produces), none when they are read in place from the
  // producer's blocks (every block already sits on every rank that reads it).
  std::vector<std::map<int64_t, Buffer<T>>> operandBlocks;
  std::vector<std::vector<int64_t>> operandNeed;  // block numbers of operandBlocks
  // Per operand read through a window: its blocks' numbers in the layout they arrive in
  // (einrt::Layout::window; -1: a block wholly in the fill); empty for other operands.
  std::vector<std::vector<int64_t>> operandLayoutBlock;
  std::vector<int64_t> partialNeed, ownedNeed;    // block numbers of partial, owned
  std::vector<std::unique_ptr<RedistributePlan>> repartition;  // per operand produced by a node
  std::map<int64_t, Buffer<T>> partial;  // this rank's (partial) results per output block
  // An accumulated node's results of a micro-batch after its first, before they are added
  // into `partial` (which holds their sum over the micro-batches so far).
  std::map<int64_t, Buffer<T>> fresh;
  std::map<int64_t, Buffer<T>> owned;    // finished output blocks this rank owns (when aggregating)
  std::unique_ptr<RedistributePlan> aggregation;
  einrt::Layout outputLayout;            // what readers read: each finished block on its owner
                                         // (a node reduced at read: its partials' holders)
  NodeKernel<T> kernel;
  std::optional<IndexKernel<T>> index;     // an index node's kernel (instead of `kernel`)
  // Mixed precision (mixed_types.h): an f32 node's kernel (instead of `kernel`), or a
  // cast's element types (from, to; its calls convert blocks, no kernel).
  std::optional<NodeKernel<float>> wide;
  std::optional<std::pair<DType, DType>> cast;
  bool widens = false;  // a widening contraction: `kernel` over T operands into f32 blocks
  std::map<int64_t, int64_t> callOfBlock;  // fused members: this rank's call per output block
  bool resident = false;                 // a graph output: finished blocks held for the whole run
  std::map<int64_t, Buffer<T>>& finished() { return aggregation ? owned : partial; }
};

template <class T>
class DistributedProgram {
 public:
  DistributedProgram(const ProgramSpec<T>& spec, Communicator& comm, const DeviceOps* device, int threads);

  // Builds layouts, buffers and plans; places the graph inputs: generated from `seed`, or
  // scattered from `rootInputs` (rank 0 holds each input read from --inputs; null elsewhere).
  void setUp(uint64_t seed, const std::map<int, std::vector<T>>* rootInputs);

  // Node i on this rank: repartition, kernel calls, aggregation (a fused group's members
  // all run at its first member).
  void runNode(std::size_t i);

  // A new iteration: the bytes per node start from zero, and the first micro-batch.
  void startIteration();
  // The micro-batch the nodes run per micro-batch run next (einrt/model/program_model.h).
  void setMicroBatch(int64_t m) { microBatch_ = m; }

  // The rank's memory counter (collective-free).
  MemoryCounter& memory() { return comm_.memory(); }

  // The first member of node i's fused group when it runs fused (then node i's time is
  // counted in that member's), else -1.
  int fusedWith(std::size_t i) const;

  // The bytes this rank sent for node i in this iteration (all its runs): a fused group's are counted
  // per member (each member's operands are repartitioned on their own), so that per-node
  // traffic is the plan's even where members run as one step.
  uint64_t lastBytesSent(std::size_t i) const { return lastBytes_.at(i).all; }
  uint64_t lastInterNodeBytesSent(std::size_t i) const { return lastBytes_.at(i).interNode; }

  // The whole tensor of a node output on rank 0 (collective; empty elsewhere).
  std::vector<T> gather(int tensor);

 private:
  void setUpOperand(std::size_t i, std::size_t k, uint64_t seed, const std::map<int, std::vector<T>>* rootInputs);
  void setUpOutput(std::size_t i);
  const T* operandBlock(std::size_t node, std::size_t operand, int64_t block);
  void repartitionOperands(std::size_t i);
  void fillWindowBlock(std::size_t i, std::size_t k, int64_t block, Buffer<T>& buffer, const T* inRange);
  void runGroup(FusedGroup<T>& group);
  void placeInputBlocks(std::size_t i, std::size_t k, int64_t m, uint64_t seed, const std::map<int, std::vector<T>>* rootInputs,
                        const einrt::Layout& need, const std::vector<int64_t>& layoutBlock, std::map<int64_t, Buffer<T>>& blocks);
  void addFreshIntoPartials(std::size_t i);
  model::RunOfStep runOf(std::size_t i) const;
  int64_t inputBlockKey(std::size_t node, std::size_t operand, int64_t block) const;
  Buffer<T> block(std::size_t elements);
  // A block of `elements` of tensor t's element type (another float type's bytes: mixed_types.h).
  Buffer<T> blockOf(int tensor, std::size_t elements);
  DType typeOf(int tensor) const { return spec_.tensors[static_cast<std::size_t>(tensor)].elementType(dtypeOf<T>()); }
  void beginStep(std::size_t first, std::size_t last);
  void endStep(std::size_t first, std::size_t last);
  void releaseAtBodyEnd(std::size_t last);

  const ProgramSpec<T>& spec_;
  Communicator& comm_;
  const DeviceOps* device_;
  int threads_;
  RedistributeOptions options_;
  model::ProgramModel model_;
  std::vector<NodeState<T>> nodes_;
  std::vector<std::unique_ptr<FusedGroup<T>>> groups_;  // aligned with model_.groups
  Buffer<T> workspace_;  // the fused groups' tiles, threads x the largest group's need
  // What this rank sent in each node's last step: all bytes, and those to other nodes.
  struct SentBytes {
    uint64_t all = 0, interNode = 0;
  };
  SentBytes sentSoFar() const { return {comm_.counters().bytesSent, comm_.counters().interNodeBytesSent}; }
  SentBytes sentSince(const SentBytes& before) const {
    const SentBytes now = sentSoFar();
    return {now.all - before.all, now.interNode - before.interNode};
  }
  // Adds what this rank sent since `before` to node i's bytes of the iteration (its runs').
  void countSentSince(std::size_t i, const SentBytes& before) {
    const SentBytes sent = sentSince(before);
    lastBytes_.at(i).all += sent.all;
    lastBytes_.at(i).interNode += sent.interNode;
  }
  std::vector<SentBytes> lastBytes_;
  int64_t microBatch_ = 0;
};

}  // namespace einrt::program::detail
