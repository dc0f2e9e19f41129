// The distributed state of a program on one rank (executor.h): per node the layouts and
// block buffers this rank holds, the planned einrt collectives, the prepared kernel; set up
// once (collectively, in the same order on every rank), then run node by node per
// iteration, a fused group's members together (fused_group.h, host memory only). Also
// gathers outputs to rank 0.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include <einrt/block_grid.h>
#include <einrt/communicator.h>
#include <einrt/layout.h>
#include <einrt/redistribute.h>

#include "buffer.h"
#include "fused_group.h"
#include "einrt/program/spec.h"
#include "node_kernel.h"

namespace einrt::program::detail {

template <class T>
struct NodeState {
  std::vector<einrt::BlockGrid> operandGrid;
  einrt::BlockGrid outputGrid;
  std::vector<int64_t> myCalls;
  // Per operand: the blocks this rank's calls read, or none when they are read in place
  // from the producer's blocks (every block already sits on every rank that reads it).
  std::vector<std::map<int64_t, Buffer<T>>> operandBlocks;
  std::vector<bool> inPlace;
  std::vector<std::unique_ptr<RedistributePlan>> repartition;  // per operand produced by a node
  std::map<int64_t, Buffer<T>> partial;  // this rank's (partial) results per output block
  std::map<int64_t, Buffer<T>> owned;    // finished output blocks this rank owns (when aggregating)
  std::unique_ptr<RedistributePlan> aggregation;
  einrt::Layout outputLayout;            // finished output: each block on its owner
  NodeKernel<T> kernel;
  int group = -1;                        // index into the program's fused groups, -1: none
  std::map<int64_t, int64_t> callOfBlock;  // fused members: this rank's call per output block
  std::map<int64_t, Buffer<T>>& finished() { return aggregation ? owned : partial; }
};

template <class T>
class DistributedProgram {
 public:
  DistributedProgram(const ProgramSpec<T>& spec, Communicator& comm, const DeviceOps* device, int threads);

  // Builds layouts, buffers and plans; places the graph inputs: generated from `seed`, or
  // scattered from `rootInputs` (rank 0 holds each input read from --inputs; null elsewhere).
  void setUp(uint64_t seed, const std::map<int, std::vector<T>>* rootInputs);

  // Node i on this rank: repartition, kernel calls, aggregation.
  void runNode(std::size_t i);

  // The first member of node i's fused group when it runs fused (then node i's time is
  // counted in that member's), else -1.
  int fusedWith(std::size_t i) const;

  // The whole tensor of a node output on rank 0 (collective; empty elsewhere).
  std::vector<T> gather(int tensor);

 private:
  const T* operandBlock(std::size_t node, std::size_t operand, int64_t block);
  void repartitionOperands(std::size_t i);
  void runGroup(FusedGroup<T>& group);

  const ProgramSpec<T>& spec_;
  Communicator& comm_;
  const DeviceOps* device_;
  int threads_;
  RedistributeOptions options_;
  std::vector<NodeState<T>> nodes_;
  std::vector<std::unique_ptr<FusedGroup<T>>> groups_;
};

}  // namespace einrt::program::detail
