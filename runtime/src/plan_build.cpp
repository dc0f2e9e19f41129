// The plan step of every einrt collective: validate the layouts, build the message plan,
// choose the transport, and turn this rank's pieces into precomputed copy steps, MPI
// counts and pooled buffers. Nothing here runs per execution.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <map>
#include <stdexcept>

#include "box_copy_plan.h"
#include "copy_ops.h"
#include "einrt/errors.h"
#include "message_plan.h"
#include "plan_state.h"
#include "transport_choice.h"

namespace einrt {

using detail::Piece;
using Endpoint = RedistributePlan::State::Endpoint;
using Step = RedistributePlan::State::Step;

const char* transportName(Transport t) {
  switch (t) {
    case Transport::Auto: return "auto";
    case Transport::Local: return "local";
    case Transport::PointToPoint: return "p2p";
    case Transport::Alltoallv: return "alltoallv";
    case Transport::Allgatherv: return "allgatherv";
    case Transport::Scatterv: return "scatterv";
    case Transport::Gatherv: return "gatherv";
    case Transport::ReduceScatter: return "reduce_scatter";
    case Transport::Allreduce: return "allreduce";
  }
  return "?";
}


RedistributePlan::State::~State() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (ownsMpiComm && mpiComm != MPI_COMM_NULL && !finalized) MPI_Comm_free(&mpiComm);
}

namespace {

// Accumulates this rank's copy steps; `contribution` orders the combining steps.
struct StepBuilder {
  const Layout& src;
  const Layout& dst;
  std::size_t elementSize;
  std::vector<Step> pack;
  std::vector<std::pair<int, Step>> local, unpack;

  detail::CombineOp opFor(const Piece& p) const {
    return p.contribution == 0 ? detail::CombineOp::Assign : detail::combineOpFor(src.reduce);
  }
  // Source block -> buffer at `elementOffset`.
  void addPack(const Piece& p, Endpoint::Kind buffer, int64_t elementOffset) {
    Step s{detail::makeBoxCopy(p.box, src.blocks[p.srcBlock].box, p.box), {Endpoint::SrcBlock, p.srcBlock, 0},
           {buffer, 0, static_cast<std::size_t>(elementOffset) * elementSize}, detail::CombineOp::Assign};
    pack.push_back(s);
  }
  // Buffer at `elementOffset` -> destination block.
  void addUnpack(const Piece& p, int64_t elementOffset, detail::CombineOp op) {
    Step s{detail::makeBoxCopy(p.box, p.box, dst.blocks[p.dstBlock].buffer()),
           {Endpoint::RecvBuffer, 0, static_cast<std::size_t>(elementOffset) * elementSize},
           {Endpoint::DstBlock, p.dstBlock, 0}, op};
    unpack.emplace_back(p.contribution, s);
  }
  void addLocal(const Piece& p) {
    Step s{detail::makeBoxCopy(p.box, src.blocks[p.srcBlock].box, dst.blocks[p.dstBlock].buffer()),
           {Endpoint::SrcBlock, p.srcBlock, 0}, {Endpoint::DstBlock, p.dstBlock, 0}, opFor(p)};
    local.emplace_back(p.contribution, s);
  }
  // Local copies that assign go while messages fly; everything that combines waits and
  // runs in holder order so every replica of a destination block gets the same bits.
  void finish(RedistributePlan::State& state) {
    state.packSteps = std::move(pack);
    std::vector<std::pair<int, Step>> later;
    for (auto& [c, s] : local) {
      if (c == 0)
        state.earlySteps.push_back(s);
      else
        later.emplace_back(c, s);
    }
    for (auto& u : unpack) later.push_back(u);
    std::stable_sort(later.begin(), later.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [c, s] : later) state.finishSteps.push_back(s);
  }
};

int toMpiCount(int64_t elements, const std::string& tensor) {
  if (elements > INT_MAX)
    throw LayoutError(tensor, "a message of " + std::to_string(elements) + " elements exceeds MPI's int counts");
  return static_cast<int>(elements);
}

std::vector<int> prefixSums(const std::vector<int>& counts) {
  std::vector<int> displs(counts.size(), 0);
  for (std::size_t i = 1; i < counts.size(); ++i) displs[i] = displs[i - 1] + counts[i - 1];
  return displs;
}

// True when `p` is one contiguous run of `container` (so MPI can read or write it in place).
bool contiguousIn(const Piece& p, const Box& container, int64_t& offset) {
  const detail::BoxCopy c = detail::makeBoxCopy(p.box, container, p.box);
  offset = c.fromOffset;
  return c.ndims == 1 && c.fromStride[0] == 1 && c.toStride[0] == 1 && c.fromOffset <= INT_MAX;
}

// Decides which peers' messages go straight from a source block / into a destination
// block (host buffers, one contiguous piece per peer, assigned rather than combined).
// Point-to-point can do it peer by peer; the collectives only when every peer's piece
// lies in the same block. Fills `directBlock` (-1: through the pack buffer), `offsets`.
long chooseDirect(const std::vector<std::vector<const Piece*>>& perPeer, bool onSource, bool perPeerAllowed,
                  const StepBuilder& steps, std::vector<long>& directBlock, std::vector<int64_t>& offsets) {
  const int n = static_cast<int>(perPeer.size());
  directBlock.assign(n, -1);
  offsets.assign(n, 0);
  long common = -2;  // -2: no peer yet
  bool all = true;
  for (int r = 0; r < n; ++r) {
    if (perPeer[r].empty()) continue;
    const Piece& p = *perPeer[r][0];
    const std::size_t block = onSource ? p.srcBlock : p.dstBlock;
    const Box& box = onSource ? steps.src.blocks[block].box : steps.dst.blocks[block].buffer();
    int64_t offset = 0;
    const bool direct = perPeer[r].size() == 1 && (onSource || p.contribution == 0) && contiguousIn(p, box, offset);
    if (direct) {
      directBlock[r] = static_cast<long>(block);
      offsets[r] = offset;
    }
    all = all && direct && (common == -2 || common == static_cast<long>(block));
    common = static_cast<long>(block);
  }
  if (perPeerAllowed) return -1;
  if (!all || common < 0) {
    directBlock.assign(n, -1);
    return -1;
  }
  return common;
}

// Point-to-point, Alltoallv, Scatterv, Gatherv: one segment per peer in each direction,
// in the pack buffers or - where possible - directly in the caller's blocks.
void buildSegments(RedistributePlan::State& st, const detail::MessagePlan& mp, StepBuilder& steps, int nranks) {
  std::vector<std::vector<const Piece*>> sendPieces(nranks), recvPieces(nranks);
  for (const Piece& p : mp.pieces) {
    if (p.from == st.rank && p.to == st.rank)
      steps.addLocal(p);
    else if (p.from == st.rank)
      sendPieces[p.to].push_back(&p);
    else if (p.to == st.rank)
      recvPieces[p.from].push_back(&p);
  }
  const bool host = st.options.memory == MemorySpace::Host;
  const bool perPeer = st.transport == Transport::PointToPoint;
  std::vector<int64_t> sendDirectOffset, recvDirectOffset;
  st.sendDirectAll = host ? chooseDirect(sendPieces, true, perPeer, steps, st.sendDirectBlock, sendDirectOffset) : -1;
  st.recvDirectAll = host ? chooseDirect(recvPieces, false, perPeer, steps, st.recvDirectBlock, recvDirectOffset) : -1;
  if (!host) {
    st.sendDirectBlock.assign(nranks, -1);
    st.recvDirectBlock.assign(nranks, -1);
  }
  st.mpiComm = st.comm->get();
  st.sendCounts.assign(nranks, 0);
  st.recvCounts.assign(nranks, 0);
  st.sendDispls.assign(nranks, 0);
  st.recvDispls.assign(nranks, 0);
  int64_t sendTotal = 0, recvTotal = 0;  // elements in the pack buffers
  for (int r = 0; r < nranks; ++r) {
    int64_t sent = 0, received = 0;
    for (const Piece* p : sendPieces[r]) {
      if (st.sendDirectBlock[r] < 0) steps.addPack(*p, Endpoint::SendBuffer, sendTotal + sent);
      sent += volume(p->box);
    }
    for (const Piece* p : recvPieces[r]) {
      if (st.recvDirectBlock[r] < 0) steps.addUnpack(*p, recvTotal + received, steps.opFor(*p));
      received += volume(p->box);
    }
    st.sendCounts[r] = toMpiCount(sent, st.tensor);
    st.recvCounts[r] = toMpiCount(received, st.tensor);
    st.sendDispls[r] = toMpiCount(st.sendDirectBlock[r] >= 0 ? sendDirectOffset[r] : sendTotal, st.tensor);
    st.recvDispls[r] = toMpiCount(st.recvDirectBlock[r] >= 0 ? recvDirectOffset[r] : recvTotal, st.tensor);
    if (st.sendDirectBlock[r] < 0) sendTotal += sent;
    if (st.recvDirectBlock[r] < 0) recvTotal += received;
  }
  st.sendBytes = sendTotal * steps.elementSize;
  st.recvBytes = recvTotal * steps.elementSize;
}

MPI_Comm splitGroup(RedistributePlan::State& st, const std::vector<int>& color) {
  MPI_Comm group = MPI_COMM_NULL;
  const int myColor = color[st.rank] < 0 ? MPI_UNDEFINED : color[st.rank];
  checkMpi(MPI_Comm_split(st.comm->get(), myColor, st.rank, &group), "MPI_Comm_split", -1, st.tensor);
  if (group != MPI_COMM_NULL) {
    checkMpi(MPI_Comm_set_errhandler(group, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler", -1, st.tensor);
    st.ownsMpiComm = true;
  }
  return group;
}

std::vector<int> membersOf(const std::vector<int>& color, int c) {
  std::vector<int> members;
  for (int r = 0; r < static_cast<int>(color.size()); ++r)
    if (color[r] == c) members.push_back(r);
  return members;
}

// Replication within groups: each member contributes the pieces it sends to every peer.
void buildAllgather(RedistributePlan::State& st, const detail::MessagePlan& mp, const detail::TransportChoice& choice,
                    StepBuilder& steps) {
  st.mpiComm = splitGroup(st, choice.color);
  auto addLocals = [&](const Piece* skip) {
    for (const Piece& p : mp.pieces)
      if (p.from == st.rank && p.to == st.rank && !(skip && p.srcBlock == skip->srcBlock && p.box == skip->box))
        steps.addLocal(p);
  };
  if (choice.color[st.rank] < 0) return addLocals(nullptr);
  const std::vector<int> members = membersOf(choice.color, choice.color[st.rank]);
  // A member's contribution is its piece list to its first peer (identical for all peers).
  std::map<int, std::vector<const Piece*>> contribution;
  std::map<int, std::vector<const Piece*>> toMe;
  for (const Piece& p : mp.pieces) {
    if (p.from == p.to || choice.color[p.from] != choice.color[st.rank]) continue;
    const int firstPeer = members[0] == p.from ? members[1] : members[0];
    if (p.to == firstPeer) contribution[p.from].push_back(&p);
    if (p.to == st.rank) toMe[p.from].push_back(&p);
  }
  st.recvCounts.assign(members.size(), 0);
  for (std::size_t i = 0; i < members.size(); ++i) {
    int64_t n = 0;
    for (const Piece* p : contribution[members[i]]) n += volume(p->box);
    st.recvCounts[i] = toMpiCount(n, st.tensor);
  }
  st.inPlace = true;

  // Direct: every member's contribution is one piece landing contiguously in the same
  // destination block of this rank; that block is then the allgather buffer itself.
  long direct = st.options.memory == MemorySpace::Host ? -2 : -1;
  std::vector<int> directDispls(members.size(), 0);
  for (std::size_t i = 0; i < members.size() && direct != -1; ++i) {
    const bool mine = members[i] == st.rank;
    const std::vector<const Piece*>& pieces = mine ? contribution[members[i]] : toMe[members[i]];
    if (pieces.size() != 1) {
      direct = -1;
      break;
    }
    long block = mine ? -1 : static_cast<long>(pieces[0]->dstBlock);
    if (mine)
      for (std::size_t b : st.dstHeld)
        if (contains(steps.dst.blocks[b].box, pieces[0]->box)) block = static_cast<long>(b);
    int64_t offset = 0;
    if (block < 0 || (direct >= 0 && block != direct) ||
        !contiguousIn(*pieces[0], steps.dst.blocks[block].buffer(), offset)) {
      direct = -1;
      break;
    }
    direct = block;
    directDispls[i] = static_cast<int>(offset);
  }
  if (direct >= 0) {
    const Piece& own = *contribution[st.rank][0];
    steps.pack.push_back(Step{detail::makeBoxCopy(own.box, steps.src.blocks[own.srcBlock].box,
                                                  steps.dst.blocks[direct].buffer()),
                              {Endpoint::SrcBlock, own.srcBlock, 0}, {Endpoint::DstBlock, static_cast<std::size_t>(direct), 0},
                              detail::CombineOp::Assign});
    addLocals(&own);
    st.recvDirectAll = direct;
    st.recvDispls = directDispls;
    st.recvBytes = 0;
    return;
  }
  addLocals(nullptr);
  st.recvDispls = prefixSums(st.recvCounts);
  for (std::size_t i = 0; i < members.size(); ++i) {
    int64_t offset = st.recvDispls[i];
    const bool mine = members[i] == st.rank;
    for (const Piece* p : mine ? contribution[members[i]] : toMe[members[i]]) {
      if (mine)
        steps.addPack(*p, Endpoint::RecvBuffer, offset);
      else
        steps.addUnpack(*p, offset, detail::CombineOp::Assign);
      offset += volume(p->box);
    }
  }
  st.recvBytes = static_cast<std::size_t>(st.recvDispls.back() + st.recvCounts.back()) * steps.elementSize;
}

// Partial blocks reduced inside holder groups by MPI_Reduce_scatter or MPI_Allreduce.
void buildReduction(RedistributePlan::State& st, const detail::MessagePlan& mp, const detail::TransportChoice& choice,
                    StepBuilder& steps, const Layout& src) {
  for (const Piece& p : mp.pieces)
    if (p.from == st.rank && p.to == st.rank && src.blocks[p.srcBlock].ranks.size() < 2) steps.addLocal(p);
  st.mpiComm = splitGroup(st, choice.color);
  if (choice.color[st.rank] < 0) return;
  const std::vector<int> members = membersOf(choice.color, choice.color[st.rank]);
  std::map<int, std::vector<const Piece*>> needs;  // member -> the reduced pieces it keeps
  for (const Piece& p : mp.pieces)
    if (p.contribution == 0 && src.blocks[p.srcBlock].ranks.size() > 1 && choice.color[p.to] == choice.color[st.rank])
      needs[p.to].push_back(&p);
  const bool all = choice.transport == Transport::Allreduce;
  int64_t sendOffset = 0;
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (all && i > 0) break;  // Allreduce: one segment, the same for every member
    const int64_t start = sendOffset;
    for (const Piece* p : needs[members[i]]) {
      steps.addPack(*p, all ? Endpoint::RecvBuffer : Endpoint::SendBuffer, sendOffset);
      sendOffset += volume(p->box);
    }
    st.recvDispls.push_back(toMpiCount(start, st.tensor));
    st.recvCounts.push_back(toMpiCount(sendOffset - start, st.tensor));
  }
  int64_t recvOffset = 0;
  for (const Piece* p : needs[st.rank]) {
    steps.addUnpack(*p, recvOffset, detail::CombineOp::Assign);
    recvOffset += volume(p->box);
  }
  toMpiCount(sendOffset, st.tensor);
  st.inPlace = all;
  st.sendBytes = all ? 0 : static_cast<std::size_t>(sendOffset) * steps.elementSize;
  st.recvBytes = static_cast<std::size_t>(all ? sendOffset : recvOffset) * steps.elementSize;
}

}  // namespace

RedistributePlan makeRedistributePlan(Communicator& comm, const std::string& operation, const std::string& tensor,
                                      const Layout& src, const Layout& dst, DType dtype,
                                      const RedistributeOptions& options) {
  validatePair(src, dst, comm.size(), tensor);
  if (options.memory == MemorySpace::Cuda && !options.device)
    throw std::invalid_argument("einrt: tensor '" + tensor + "': CUDA buffers need RedistributeOptions::device "
                                "(einrt::cudaDevice() from einrt::cuda)");
  const detail::MessagePlan mp = detail::planMessages(src, dst, comm.size());
  detail::TransportChoice choice;
  try {
    choice = detail::chooseTransport(mp, src, options.transport);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(e.what()) + " (tensor '" + tensor + "')");
  }

  auto st = std::make_unique<RedistributePlan::State>();
  st->comm = &comm;
  st->tensor = tensor;
  st->operation = operation;
  st->dtype = dtype;
  st->options = options;
  st->transport = choice.transport;
  st->reduceOp = detail::combineOpFor(src.reduce);
  st->rank = comm.rank();
  st->srcHeld = src.blocksHeldBy(st->rank);
  st->dstHeld = dst.blocksHeldBy(st->rank);
  for (std::size_t b = 0; b < src.blocks.size(); ++b) st->srcElements.push_back(volume(src.blocks[b].box));
  for (std::size_t b = 0; b < dst.blocks.size(); ++b) st->dstElements.push_back(volume(dst.blocks[b].buffer()));
  std::vector<bool> sendsTo(comm.size(), false);
  for (const Piece& p : mp.pieces) {
    if (p.from == p.to) continue;
    const uint64_t bytes = static_cast<uint64_t>(volume(p.box)) * dtypeSize(dtype);
    if (p.from == st->rank) {
      st->bytesSent += bytes;
      if (!comm.rankNodes().sameNode(p.from, p.to)) st->interNodeBytesSent += bytes;
      sendsTo[p.to] = true;
    }
    if (p.to == st->rank) st->bytesRecv += bytes;
  }
  st->messagesSent = std::count(sendsTo.begin(), sendsTo.end(), true);

  StepBuilder steps{src, dst, dtypeSize(dtype), {}, {}, {}};
  switch (choice.transport) {
    case Transport::Allgatherv:
      buildAllgather(*st, mp, choice, steps);
      break;
    case Transport::ReduceScatter:
    case Transport::Allreduce:
      buildReduction(*st, mp, choice, steps, src);
      break;
    default:
      st->root = choice.root;
      buildSegments(*st, mp, steps, comm.size());
      break;
  }
  steps.finish(*st);
  // 2-byte types are reduced by einrt's own MPI operations, which run on host memory: their
  // device buffers always reach MPI through host staging.
  st->deviceBuffersToMpi = options.memory == MemorySpace::Cuda && options.allowCudaAwareMpi && cudaAwareMpi() && !isTwoByte(dtype);
  return RedistributePlan(std::move(st));
}

RedistributePlan planRedistribute(Communicator& comm, const std::string& tensor, const Layout& src, const Layout& dst,
                                  DType dtype, const RedistributeOptions& options) {
  bool partial = false;
  for (const Block& b : src.blocks) partial |= src.holding == Holding::Partial && b.ranks.size() > 1;
  return makeRedistributePlan(comm, partial ? "reduce-redistribute" : "redistribute", tensor, src, dst, dtype, options);
}

RedistributePlan planScatter(Communicator& comm, const std::string& tensor, int root, const Layout& dst, DType dtype,
                             const RedistributeOptions& options) {
  return makeRedistributePlan(comm, "scatter", tensor, Layout::whole(dst.shape, root), dst, dtype, options);
}

RedistributePlan planGather(Communicator& comm, const std::string& tensor, const Layout& src, int root, DType dtype,
                            const RedistributeOptions& options) {
  return makeRedistributePlan(comm, "gather", tensor, src, Layout::whole(src.shape, root), dtype, options);
}

}  // namespace einrt
