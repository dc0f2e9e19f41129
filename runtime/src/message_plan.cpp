// Building the message plan from box intersections (see traffic.h for the rule).
#include "message_plan.h"

#include <algorithm>

namespace einrt::detail {

int replicaSender(const Block& block, int receiver) {
  if (std::find(block.ranks.begin(), block.ranks.end(), receiver) != block.ranks.end()) return receiver;
  // Spread receivers over the replicas so no single holder serves everyone.
  return block.ranks[static_cast<std::size_t>(receiver) % block.ranks.size()];
}

MessagePlan planMessages(const Layout& src, const Layout& dst, int nranks) {
  MessagePlan plan;
  plan.nranks = nranks;
  const bool partialSource = src.holding == Holding::Partial;
  for (const Block& block : src.blocks)
    if (partialSource && block.ranks.size() > 1) plan.partial = true;
  for (std::size_t d = 0; d < dst.blocks.size(); ++d) {
    const Block& dstBlock = dst.blocks[d];
    for (std::size_t s = 0; s < src.blocks.size(); ++s) {
      const Block& srcBlock = src.blocks[s];
      auto common = intersect(srcBlock.box, dstBlock.box);
      if (!common || volume(*common) == 0) continue;
      for (int receiver : dstBlock.ranks) {
        if (partialSource && srcBlock.ranks.size() > 1) {
          for (std::size_t k = 0; k < srcBlock.ranks.size(); ++k)
            plan.pieces.push_back(Piece{s, d, srcBlock.ranks[k], receiver, static_cast<int>(k), *common});
        } else {
          plan.pieces.push_back(Piece{s, d, replicaSender(srcBlock, receiver), receiver, 0, *common});
        }
      }
    }
  }
  std::sort(plan.pieces.begin(), plan.pieces.end(), [](const Piece& a, const Piece& b) { return a.key() < b.key(); });
  return plan;
}

}  // namespace einrt::detail
