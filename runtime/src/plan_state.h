// The cached state of a RedistributePlan: precomputed copy steps (pack, local, unpack)
// with their BoxCopy geometry, MPI counts and displacements, the sub-communicator of
// group transports, and the sizes of the pack buffers (taken from the communicator's
// pool at every execution).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

#include "box_copy.h"
#include "einrt/redistribute.h"

namespace einrt {

struct RedistributePlan::State {
  // Where a copy reads or writes: a block of the caller's maps or a pack buffer.
  struct Endpoint {
    enum Kind { SrcBlock, DstBlock, SendBuffer, RecvBuffer } kind = SrcBlock;
    std::size_t block = 0;      // SrcBlock / DstBlock
    std::size_t byteOffset = 0;  // SendBuffer / RecvBuffer
  };
  struct Step {
    detail::BoxCopy geometry;
    Endpoint from, to;
    detail::CombineOp op = detail::CombineOp::Assign;
  };

  Communicator* comm = nullptr;
  std::string tensor, operation;
  DType dtype = DType::F32;
  RedistributeOptions options;
  Transport transport = Transport::Local;
  detail::CombineOp reduceOp = detail::CombineOp::Sum;  // the source layout's aggregation
  int rank = 0;

  std::vector<std::size_t> srcHeld, dstHeld;  // blocks the caller must pass
  std::vector<int64_t> srcElements, dstElements;  // per layout block

  std::vector<Step> packSteps;   // into the send (or in-place receive) buffer
  std::vector<Step> earlySteps;  // local copies run while messages are in flight
  std::vector<Step> finishSteps;  // unpacks and remaining local combines, in combine order

  // Element counts and displacements, indexed by rank in `mpiComm`.
  std::vector<int> sendCounts, sendDispls, recvCounts, recvDispls;
  MPI_Comm mpiComm = MPI_COMM_NULL;  // the communicator the transport runs on
  bool ownsMpiComm = false;          // a group sub-communicator created at plan time
  int root = -1;                     // Scatterv / Gatherv root (in mpiComm)
  // Messages MPI reads from / writes to the caller's blocks directly (no pack copy):
  // per peer the block number, -1 for the pack buffer; the displacements are then
  // element offsets inside that block. *All: the one block every peer uses (collectives).
  std::vector<long> sendDirectBlock, recvDirectBlock;
  long sendDirectAll = -1, recvDirectAll = -1;
  bool inPlace = false;              // Allgatherv / Allreduce use the receive buffer only
  std::size_t sendBytes = 0, recvBytes = 0;

  uint64_t bytesSent = 0, bytesRecv = 0, messagesSent = 0;
  uint64_t interNodeBytesSent = 0;  // of bytesSent, to ranks on other nodes (Communicator::rankNodes)

  // Pack buffers come from the communicator's pool (host, or device with pinned mirrors).
  bool deviceBuffersToMpi = false;  // CUDA-aware MPI in use

  ~State();
};

}  // namespace einrt
