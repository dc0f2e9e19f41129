// Traffic prediction: the payload of the message plan between different ranks.
#include "einrt/traffic.h"

#include "message_plan.h"

namespace einrt {

TrafficPrediction predictTraffic(const Layout& src, const Layout& dst, DType dtype, int nranks,
                                 const std::string& tensor, const RankNodes& nodes) {
  validatePair(src, dst, nranks, tensor);
  const detail::MessagePlan plan = detail::planMessages(src, dst, nranks);
  TrafficPrediction t;
  t.bytesSentByRank.assign(nranks, 0);
  t.bytesRecvByRank.assign(nranks, 0);
  for (const detail::Piece& piece : plan.pieces) {
    if (piece.from == piece.to) continue;
    const uint64_t bytes = static_cast<uint64_t>(volume(piece.box)) * dtypeSize(dtype);
    t.totalBytes += bytes;
    if (!nodes.sameNode(piece.from, piece.to)) t.interNodeBytes += bytes;
    t.bytesSentByRank[piece.from] += bytes;
    t.bytesRecvByRank[piece.to] += bytes;
  }
  return t;
}

}  // namespace einrt
