// The execute step: resolve the caller's block pointers, pack, start the transport
// (receives posted first), run local copies while data is in flight, wait, then unpack
// and combine in holder order. Host buffers are used directly; CUDA buffers are packed
// by kernels and reach MPI through pinned host staging unless CUDA-aware MPI is in use.
#include <mpi.h>

#include <stdexcept>

#include "buffer_pool.h"
#include "copy_ops.h"
#include "einrt/errors.h"
#include "mpi_types.h"
#include "plan_state.h"

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace einrt {

using State = RedistributePlan::State;

bool cudaAwareMpi() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

RedistributePlan::RedistributePlan() = default;
RedistributePlan::~RedistributePlan() = default;
RedistributePlan::RedistributePlan(RedistributePlan&&) noexcept = default;
RedistributePlan& RedistributePlan::operator=(RedistributePlan&&) noexcept = default;
RedistributePlan::RedistributePlan(std::unique_ptr<State> state) : state_(std::move(state)) {}

namespace {

const State& checked(const std::unique_ptr<State>& state) {
  if (!state) throw std::logic_error("einrt: use of an empty RedistributePlan");
  return *state;
}

// Pointers to this rank's blocks, indexed by block number; absent blocks are errors.
std::vector<std::byte*> resolve(const BlockMap& map, const std::vector<std::size_t>& held,
                                const std::vector<int64_t>& elements, const State& st, const char* side) {
  std::vector<std::byte*> ptr(elements.size(), nullptr);
  for (std::size_t b : held) {
    auto it = map.find(b);
    if (it == map.end() || (it->second == nullptr && elements[b] > 0))
      throw std::invalid_argument("einrt: " + st.operation + " of tensor '" + st.tensor + "': rank " +
                                  std::to_string(st.rank) + " holds " + side + " block " + std::to_string(b) +
                                  " but was given no buffer for it");
    ptr[b] = static_cast<std::byte*>(it->second);
  }
  return ptr;
}

struct Executor {
  State& st;
  std::vector<std::byte*> src, dst;
  std::byte* send;  // pack buffers in the plan's memory space
  std::byte* recv;
  std::byte* mpiSend;  // what MPI reads and writes
  std::byte* mpiRecv;
  bool staged;  // device buffers mirrored through pinned host memory

  std::byte* base(const State::Endpoint& e) const {
    switch (e.kind) {
      case State::Endpoint::SrcBlock: return src[e.block];
      case State::Endpoint::DstBlock: return dst[e.block];
      case State::Endpoint::SendBuffer: return send + e.byteOffset;
      case State::Endpoint::RecvBuffer: return recv + e.byteOffset;
    }
    return nullptr;
  }

  void run(const std::vector<State::Step>& steps) const {
    if (steps.empty()) return;
    std::vector<detail::CopyOp> ops;
    ops.reserve(steps.size());
    for (const State::Step& s : steps) ops.push_back(detail::CopyOp{&s.geometry, base(s.from), base(s.to), s.op});
    if (st.options.memory == MemorySpace::Cuda) {
      st.options.device->runCopies(ops.data(), ops.size(), st.dtype);
      return;
    }
    detail::runCopiesHost(ops, st.dtype);
  }

  // Device -> pinned before MPI reads; pinned -> device after MPI wrote.
  void stageOut(bool sendBuffer, bool recvBuffer) const {
    if (!staged) return;
    if (sendBuffer) st.options.device->copyToHost(mpiSend, send, st.sendBytes);
    if (recvBuffer) st.options.device->copyToHost(mpiRecv, recv, st.recvBytes);
  }
  void stageIn() const {
    if (staged) st.options.device->copyToDevice(recv, mpiRecv, st.recvBytes);
  }

  void wait(std::vector<MPI_Request>& requests, const std::vector<int>& peers, const char* what) const {
    if (requests.empty()) return;
    std::vector<MPI_Status> statuses(requests.size());
    const int code = MPI_Waitall(static_cast<int>(requests.size()), requests.data(), statuses.data());
    if (code == MPI_ERR_IN_STATUS) {
      for (std::size_t i = 0; i < statuses.size(); ++i)
        if (statuses[i].MPI_ERROR != MPI_SUCCESS) checkMpi(statuses[i].MPI_ERROR, what, peers[i], st.tensor);
    }
    checkMpi(code, what, peers.size() == 1 ? peers[0] : -1, st.tensor);
  }

  // Where MPI reads the message to / writes the message from peer r: a block or the buffer.
  std::byte* sendBase(int r) const { return st.sendDirectBlock[r] >= 0 ? src[st.sendDirectBlock[r]] : mpiSend; }
  std::byte* recvBase(int r) const { return st.recvDirectBlock[r] >= 0 ? dst[st.recvDirectBlock[r]] : mpiRecv; }
  std::byte* sendBaseAll() const { return st.sendDirectAll >= 0 ? src[st.sendDirectAll] : mpiSend; }
  std::byte* recvBaseAll() const { return st.recvDirectAll >= 0 ? dst[st.recvDirectAll] : mpiRecv; }

  void pointToPoint() const {
    const int n = static_cast<int>(st.recvCounts.size());
    const MPI_Datatype type = detail::mpiType(st.dtype);
    const std::size_t es = dtypeSize(st.dtype);
    std::vector<MPI_Request> requests;
    std::vector<int> peers;
    for (int r = 0; r < n; ++r)
      if (st.recvCounts[r] > 0) {
        requests.emplace_back();
        peers.push_back(r);
        checkMpi(MPI_Irecv(recvBase(r) + st.recvDispls[r] * es, st.recvCounts[r], type, r, 0, st.mpiComm, &requests.back()),
                 "MPI_Irecv", r, st.tensor);
      }
    run(st.packSteps);
    stageOut(true, false);
    for (int r = 0; r < n; ++r)
      if (st.sendCounts[r] > 0) {
        requests.emplace_back();
        peers.push_back(r);
        checkMpi(MPI_Isend(sendBase(r) + st.sendDispls[r] * es, st.sendCounts[r], type, r, 0, st.mpiComm, &requests.back()),
                 "MPI_Isend", r, st.tensor);
      }
    run(st.earlySteps);
    wait(requests, peers, "point-to-point exchange");
  }

  // Starts the collective of the plan's transport; returns its request. The exchange
  // collectives are nonblocking so local copies overlap them; the group collectives
  // (Allgatherv, Reduce_scatter, Allreduce) are called blocking, because Open MPI's
  // nonblocking versions (libnbc) measured up to 3x slower than its tuned blocking ones
  // (bench/RESULTS.md); their local copies run right after.
  MPI_Request startCollective() const {
    const MPI_Datatype type = detail::mpiType(st.dtype);
    MPI_Request request = MPI_REQUEST_NULL;
    const int root = st.root;
    const std::size_t es = dtypeSize(st.dtype);
    switch (st.transport) {
      case Transport::Alltoallv:
        checkMpi(MPI_Ialltoallv(sendBaseAll(), st.sendCounts.data(), st.sendDispls.data(), type, recvBaseAll(),
                                st.recvCounts.data(),
                                st.recvDispls.data(), type, st.mpiComm, &request),
                 "MPI_Ialltoallv", -1, st.tensor);
        break;
      case Transport::Scatterv:
        checkMpi(MPI_Iscatterv(sendBaseAll(), st.sendCounts.data(), st.sendDispls.data(), type,
                               recvBaseAll() + st.recvDispls[root] * es, st.recvCounts[root], type, root, st.mpiComm,
                               &request),
                 "MPI_Iscatterv", root, st.tensor);
        break;
      case Transport::Gatherv:
        checkMpi(MPI_Igatherv(sendBaseAll() + st.sendDispls[root] * es, st.sendCounts[root], type, recvBaseAll(),
                              st.recvCounts.data(), st.recvDispls.data(), type, root, st.mpiComm, &request),
                 "MPI_Igatherv", root, st.tensor);
        break;
      case Transport::Allgatherv:
        checkMpi(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recvBaseAll(), st.recvCounts.data(),
                                st.recvDispls.data(), type, st.mpiComm),
                 "MPI_Allgatherv", -1, st.tensor);
        break;
      case Transport::ReduceScatter:
        checkMpi(MPI_Reduce_scatter(mpiSend, mpiRecv, st.recvCounts.data(), type, detail::mpiOp(reduceOp(), st.dtype), st.mpiComm),
                 "MPI_Reduce_scatter", -1, st.tensor);
        break;
      case Transport::Allreduce:
        checkMpi(MPI_Allreduce(MPI_IN_PLACE, mpiRecv, st.recvCounts[0], type, detail::mpiOp(reduceOp(), st.dtype), st.mpiComm),
                 "MPI_Allreduce", -1, st.tensor);
        break;
      default:
        break;
    }
    return request;
  }

  detail::CombineOp reduceOp() const { return st.reduceOp; }

  void collective() const {
    run(st.packSteps);
    stageOut(!st.inPlace, st.inPlace);
    std::vector<MPI_Request> requests{startCollective()};
    run(st.earlySteps);
    wait(requests, {st.root}, transportName(st.transport));
  }

  void execute() const {
    const bool member = st.mpiComm != MPI_COMM_NULL;
    if (st.transport == Transport::Local || !member) {
      run(st.earlySteps);
    } else if (st.transport == Transport::PointToPoint) {
      pointToPoint();
    } else {
      collective();
    }
    if (member && st.transport != Transport::Local) stageIn();
    run(st.finishSteps);
  }
};

}  // namespace

void RedistributePlan::execute(const BlockMap& srcBlocks, const BlockMap& dstBlocks) {
  State& st = const_cast<State&>(checked(state_));
  Executor ex{st,
              resolve(srcBlocks, st.srcHeld, st.srcElements, st, "source"),
              resolve(dstBlocks, st.dstHeld, st.dstElements, st, "destination"),
              nullptr, nullptr, nullptr, nullptr, false};
  detail::BufferPool& pool = st.comm->bufferPool();
  using Side = detail::BufferPool::Side;
  if (st.options.memory == MemorySpace::Host) {
    ex.send = ex.mpiSend = pool.host(Side::Send, st.sendBytes);
    ex.recv = ex.mpiRecv = pool.host(Side::Recv, st.recvBytes);
  } else {
    const DeviceOps& device = *st.options.device;
    ex.send = pool.device(Side::Send, st.sendBytes, device);
    ex.recv = pool.device(Side::Recv, st.recvBytes, device);
    ex.staged = !st.deviceBuffersToMpi;
    ex.mpiSend = ex.staged ? pool.pinned(Side::Send, st.sendBytes, device) : ex.send;
    ex.mpiRecv = ex.staged ? pool.pinned(Side::Recv, st.recvBytes, device) : ex.recv;
  }
  ex.execute();
  st.comm->recordSent(st.operation, transportName(st.transport), st.tensor, st.bytesSent, st.messagesSent, st.interNodeBytesSent);
}

Transport RedistributePlan::transport() const { return checked(state_).transport; }
const std::string& RedistributePlan::tensor() const { return checked(state_).tensor; }
const std::string& RedistributePlan::operation() const { return checked(state_).operation; }
uint64_t RedistributePlan::bytesSentPerExecution() const { return checked(state_).bytesSent; }
uint64_t RedistributePlan::bytesRecvPerExecution() const { return checked(state_).bytesRecv; }

}  // namespace einrt
