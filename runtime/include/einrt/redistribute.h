// The repartition collectives: redistribute (any source layout -> any destination
// layout, the TRA paper's SHUF and BCAST), reduce-redistribute (partial blocks combined
// with the layout's aggregation on their way), scatter from and gather to one rank.
// Each is split into a plan step - message lists from box intersections, the choice of
// MPI transport, pack-buffer sizes, sub-communicators - done once and cached in a
// RedistributePlan, and an execute step that moves the data and may run many times.
//
// Planning and executing are collective over the Communicator: every rank calls them
// with the same layouts, in the same order. A rank passes the buffers of the blocks it
// holds (BlockMap: block number -> pointer to the block's elements, row-major over the
// block's box, in the plan's memory space); blocks it does not hold are not looked up.
//
//   einrt::Communicator comm(MPI_COMM_WORLD);
//   auto src = einrt::Layout::grid({8, 8}, {2, 1}, {{0}, {1}});
//   auto dst = einrt::Layout::grid({8, 8}, {1, 2}, {{0}, {1}});
//   auto plan = einrt::planRedistribute(comm, "A", src, dst, einrt::DType::F32);
//   plan.execute(mySrcBlocks, myDstBlocks);
//   comm.counters().bytesSent;   // what this rank sent to others
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "einrt/communicator.h"
#include "einrt/device.h"
#include "einrt/layout.h"
#include "einrt/types.h"

namespace einrt {

using BlockMap = std::map<std::size_t, void*>;

// The MPI mechanism a plan uses. Auto picks a specialized collective where the message
// pattern allows (rules in docs/runtime.md) and otherwise the general path: Alltoallv
// for dense exchanges, PointToPoint (Irecv/Isend) for sparse ones. Forcing PointToPoint
// or Alltoallv gives the general path for any pattern (used to check the others).
enum class Transport {
  Auto,
  Local,          // no data crosses ranks
  PointToPoint,   // MPI_Irecv / MPI_Isend per peer
  Alltoallv,      // MPI_Ialltoallv over the communicator
  Allgatherv,     // replication within disjoint rank groups (a grid axis)
  Scatterv,       // one sender
  Gatherv,        // one receiver
  ReduceScatter,  // partial blocks reduced within holder groups, each rank keeps its part
  Allreduce,      // partial blocks reduced within holder groups, every holder keeps all
};

const char* transportName(Transport t);

struct RedistributeOptions {
  Transport transport = Transport::Auto;
  MemorySpace memory = MemorySpace::Host;
  // Required with Cuda buffers: the device operations (einrt::cudaDevice() of einrt::cuda).
  const DeviceOps* device = nullptr;
  // With Cuda buffers: pass device pointers straight to MPI only if this is true AND the
  // runtime probe cudaAwareMpi() says the MPI library handles them; else pinned staging.
  bool allowCudaAwareMpi = true;
};

// Runtime probe: the MPI library reports CUDA-aware support (MPIX_Query_cuda_support).
bool cudaAwareMpi();

// A planned collective. It keeps a pointer to its Communicator (which must outlive it and
// not move) and takes pack buffers from the communicator's pool when executing.
class RedistributePlan {
 public:
  RedistributePlan();
  ~RedistributePlan();
  RedistributePlan(RedistributePlan&&) noexcept;
  RedistributePlan& operator=(RedistributePlan&&) noexcept;

  // Moves the data (collective). `src` holds this rank's source blocks, `dst` this
  // rank's destination blocks (all of them must be present and distinct from sources).
  void execute(const BlockMap& src, const BlockMap& dst);

  Transport transport() const;            // what Auto chose
  const std::string& tensor() const;
  const std::string& operation() const;   // "redistribute", "reduce-redistribute", ...
  uint64_t bytesSentPerExecution() const;  // by this rank
  uint64_t bytesRecvPerExecution() const;

  struct State;

 private:
  explicit RedistributePlan(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
  friend RedistributePlan makeRedistributePlan(Communicator&, const std::string&, const std::string&,
                                               const Layout&, const Layout&, DType,
                                               const RedistributeOptions&);
};

// src -> dst. A Partial source makes it a reduce-redistribute (counted as such).
// Throws LayoutError (before any message) when the layouts do not describe one tensor.
RedistributePlan planRedistribute(Communicator& comm, const std::string& tensor, const Layout& src,
                                  const Layout& dst, DType dtype, const RedistributeOptions& options = {});

// The whole tensor on `root` (BlockMap {0: buffer} there, empty elsewhere) -> dst.
RedistributePlan planScatter(Communicator& comm, const std::string& tensor, int root, const Layout& dst,
                             DType dtype, const RedistributeOptions& options = {});

// src -> the whole tensor on `root` (partial sources are combined on the way).
RedistributePlan planGather(Communicator& comm, const std::string& tensor, const Layout& src, int root,
                            DType dtype, const RedistributeOptions& options = {});

// Internal entry shared by the three planners (operation names the counters' key).
RedistributePlan makeRedistributePlan(Communicator& comm, const std::string& operation,
                                      const std::string& tensor, const Layout& src, const Layout& dst,
                                      DType dtype, const RedistributeOptions& options);

}  // namespace einrt
