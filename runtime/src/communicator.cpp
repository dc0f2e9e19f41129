// The einrt communicator: a private duplicate of the caller's communicator that returns
// MPI errors (turned into CommError by checkMpi) and accumulates byte counters.
#include "einrt/communicator.h"

#include <utility>

#include "buffer_pool.h"
#include "einrt/errors.h"

namespace einrt {

void checkMpi(int code, const char* collective, int peer, const std::string& tensor) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) length = 0;
  throw CommError(collective, peer, tensor, code,
                  length > 0 ? std::string(text, length) : "MPI error " + std::to_string(code));
}

Communicator::Communicator(MPI_Comm comm) : pool_(std::make_unique<detail::BufferPool>()) {
  checkMpi(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup", -1, "(communicator)");
  checkMpi(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler", -1,
           "(communicator)");
  checkMpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank", -1, "(communicator)");
  checkMpi(MPI_Comm_size(comm_, &size_), "MPI_Comm_size", -1, "(communicator)");
}

Communicator::~Communicator() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
}

Communicator::Communicator(Communicator&& other) noexcept
    : comm_(std::exchange(other.comm_, MPI_COMM_NULL)),
      rank_(other.rank_),
      size_(other.size_),
      counters_(std::move(other.counters_)),
      nodes_(other.nodes_),
      pool_(std::move(other.pool_)) {}

Communicator& Communicator::operator=(Communicator&& other) noexcept {
  if (this != &other) {
    std::swap(comm_, other.comm_);
    rank_ = other.rank_;
    size_ = other.size_;
    counters_ = std::move(other.counters_);
    nodes_ = other.nodes_;
    std::swap(pool_, other.pool_);
  }
  return *this;
}

void Communicator::recordSent(const std::string& operation, const std::string& transport,
                              const std::string& tensor, uint64_t bytes, uint64_t messages, uint64_t interNodeBytes) {
  counters_.bytesSent += bytes;
  counters_.interNodeBytesSent += interNodeBytes;
  counters_.messagesSent += messages;
  counters_.executions += 1;
  counters_.byOperation[operation] += bytes;
  counters_.byTransport[transport] += bytes;
  counters_.byTensor[tensor] += bytes;
}

uint64_t Communicator::totalBytesSentAllRanks() const {
  unsigned long long mine = counters_.bytesSent, total = 0;
  checkMpi(MPI_Allreduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm_), "MPI_Allreduce", -1,
           "(byte counters)");
  return total;
}

}  // namespace einrt

namespace einrt {

MemoryCounter& Communicator::memory() { return pool_->memory(); }

void Communicator::reserveStaging(std::size_t sendBytes, std::size_t recvBytes, const DeviceOps* device) {
  using Side = detail::BufferPool::Side;
  if (device) {
    pool_->device(Side::Send, sendBytes, *device);
    pool_->device(Side::Recv, recvBytes, *device);
  } else {
    pool_->host(Side::Send, sendBytes);
    pool_->host(Side::Recv, recvBytes);
  }
}

void Communicator::fixStaging(bool fixed) { pool_->fix(fixed); }

void Communicator::releaseStaging() { pool_->release(); }

}  // namespace einrt
