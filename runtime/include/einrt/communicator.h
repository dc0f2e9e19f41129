// The communicator every einrt collective runs on, and the byte counters it keeps.
// It duplicates the caller's MPI communicator (so einrt's messages never meet the
// program's own), sets MPI_ERRORS_RETURN on the duplicate (failures become CommError
// exceptions instead of aborting), and counts the bytes this rank sent to *other* ranks:
// per operation ("redistribute", "reduce-redistribute", "scatter", "gather"), per MPI
// transport actually used ("alltoallv", "p2p", "allgatherv", ...) and per tensor name.
// Local copies count 0. Given the ranks' nodes (setRankNodes, before plans are built) it
// also counts the bytes sent to ranks on other nodes (SPEC 9). It also owns the pack buffers its plans share. Counted bytes are the message plan's payload (see traffic.h), so
// they equal predictTraffic() exactly, whichever transport ran.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "einrt/memory_counter.h"
#include "einrt/nodes.h"

namespace einrt {

struct DeviceOps;

namespace detail {
class BufferPool;
}

struct ByteCounters {
  uint64_t bytesSent = 0;     // this rank -> other ranks, all operations
  uint64_t interNodeBytesSent = 0;  // of those, to ranks on other nodes
  uint64_t messagesSent = 0;  // point-to-point messages (or collective segments) with data
  uint64_t executions = 0;    // plan executions on this communicator
  std::map<std::string, uint64_t> byOperation;
  std::map<std::string, uint64_t> byTransport;
  std::map<std::string, uint64_t> byTensor;
};

class Communicator {
 public:
  // Duplicates `comm` (collective over it) and sets MPI_ERRORS_RETURN on the duplicate.
  explicit Communicator(MPI_Comm comm);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  Communicator(Communicator&& other) noexcept;
  Communicator& operator=(Communicator&& other) noexcept;

  MPI_Comm get() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }

  const ByteCounters& counters() const { return counters_; }
  void resetCounters() { counters_ = ByteCounters{}; }
  // Called by executing plans; public so that programs can account their own traffic.
  void recordSent(const std::string& operation, const std::string& transport,
                  const std::string& tensor, uint64_t bytes, uint64_t messages, uint64_t interNodeBytes = 0);

  // Which node each rank is on (einrt/nodes.h; default: one node). Plans built after this
  // call split their bytes by link.
  void setRankNodes(const RankNodes& nodes) { nodes_ = nodes; }
  const RankNodes& rankNodes() const { return nodes_; }

  // Sum of bytesSent over all ranks (collective).
  uint64_t totalBytesSentAllRanks() const;

  // The pack buffers shared by the plans on this communicator (einrt internal).
  detail::BufferPool& bufferPool() { return *pool_; }

  // The rank's memory accounting (memory_counter.h): the pack buffers below and whatever
  // a program allocates for its tensors.
  MemoryCounter& memory();
  // Emitted programs (SPEC 3.2): grow the pack buffers to the staging the plan budgets
  // for this rank (device buffers when `device` is given) and, with fixStaging(true),
  // hold them there: a collective needing more throws std::logic_error.
  void reserveStaging(std::size_t sendBytes, std::size_t recvBytes, const DeviceOps* device);
  void fixStaging(bool fixed);
  // Frees the pack buffers (they grow again on demand).
  void releaseStaging();

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  ByteCounters counters_;
  RankNodes nodes_;
  std::unique_ptr<detail::BufferPool> pool_;
};

// Turns an MPI return code into a CommError naming the call, the peer (-1: collective)
// and the tensor. No-op for MPI_SUCCESS.
void checkMpi(int code, const char* collective, int peer, const std::string& tensor);

}  // namespace einrt
