// repartitionTraffic's per-rank count (traffic.h) block by block: where each rank reads
// one block of the operand (one call per rank, as every full plan runs), the ranks reading
// a consumer block all meet the same pieces of the producer, so the pieces are found and
// summed by owner once per block, and each reader's and each owner's load follows from
// how many of the block's readers and owners share its node. The same figures as the
// piece-by-piece count, in O(pieces per block + readers) where that count is O(pieces x
// readers): LLaMA-65B's attention reads its values from 256 owners in 8 ranks' calls per
// block at p = 4096, and on a cluster's matched placement (which repeats no layer) these
// counts were most of the pricing.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <einrt/model/program_model.h>

#include "planner/cost/traffic.h"

namespace eindecomp {

// The per-rank, per-link Traffic of the repartition into `consumerGrid` whose reads are
// `needs` (distinct (rank, block) pairs, sorted by rank); none where some rank reads more
// than one block (then only the piece-by-piece count knows its distinct messages).
std::optional<Traffic> perRankTrafficByBlock(const BlockHomes& producer, const einrt::BlockGrid& consumerGrid,
                                             const std::vector<einrt::model::RankBlock>& needs, int64_t devices,
                                             const einrt::RankNodes& nodes);

}  // namespace eindecomp
