// The message plan of a (source, destination) layout pair: every piece of data that has
// to reach a destination holder, as the intersection of one source block with one
// destination block, with the rank that sends it. The same plan drives execution,
// transport detection and traffic prediction, so counters and predictions agree.
#pragma once

#include <cstdint>
#include <tuple>
#include <vector>

#include "einrt/layout.h"

namespace einrt::detail {

struct Piece {
  std::size_t srcBlock = 0;
  std::size_t dstBlock = 0;
  int from = 0;          // sending rank (a holder of srcBlock)
  int to = 0;            // receiving rank (a holder of dstBlock)
  int contribution = 0;  // position of `from` among the holders of a partial source block
  Box box;               // global coordinates, inside both blocks

  // Canonical order: by sender, receiver, then by source block and box (so a sender's
  // piece list to each receiver is ordered the same way), then destination block.
  auto key() const { return std::tie(from, to, srcBlock, box, dstBlock); }
};

struct MessagePlan {
  int nranks = 1;
  bool partial = false;       // some source block has several partial holders
  std::vector<Piece> pieces;  // all pieces, local ones included, in canonical order
};

// Assumes validatePair() passed.
MessagePlan planMessages(const Layout& src, const Layout& dst, int nranks);

// The holder that sends replica data of `block` to `receiver` (itself when it holds it).
int replicaSender(const Block& block, int receiver);

}  // namespace einrt::detail
