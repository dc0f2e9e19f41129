// The canonical repartition count by rank bits (planner/cost/rank_bits.h) against the
// general count (repartitionTraffic, which sorts every rank's pieces): for nodes of
// several shapes, random partitions and producer layouts, power-of-two parts (where the
// bits apply) and others (where the count visits every rank), the canonical rule's reads
// on one node and in its cluster form, owners spaced by 1, 2, 4 or 3 ranks, p = 1..64.
// Seed printed.
#include <doctest/doctest.h>

#include <iostream>
#include <numeric>
#include <random>

#include "planner/cost/rank_bits.h"
#include "planner/cost/traffic.h"
#include "planner/graph/node_space.h"
#include "planner/partition/call_geometry.h"
#include "planner/placement/placement.h"
#include "test_graphs.h"

using namespace eindecomp;

namespace {

// A random divisor of each extent, a power of two where `powersOfTwo`, with at most
// `budget` blocks in all.
Parts randomParts(const std::vector<int64_t>& extents, bool powersOfTwo, int64_t budget, std::mt19937& rng) {
  Parts parts;
  for (int64_t e : extents) {
    std::vector<int64_t> divisors;
    for (int64_t d = 1; d <= e && d <= budget; ++d)
      if (e % d == 0 && (!powersOfTwo || (d & (d - 1)) == 0)) divisors.push_back(d);
    parts.push_back(divisors[rng() % divisors.size()]);
    budget /= parts.back();
  }
  return parts;
}

}  // namespace

TEST_CASE("the canonical repartition count by rank bits equals the general count") {
  const unsigned seed = 20261203;
  std::cout << "rank bits seed " << seed << "\n";
  std::mt19937 rng(seed);
  const std::vector<std::string> specs{"ij,jk->ik", "bij,bjk->bik", "ijk->ik", "ij,j->ij", "hsd,htd->hst"};
  int byBits = 0, trials = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const bool powersOfTwo = trial % 4 != 3;
    Graph g;
    testing::addNode(g, "n", specs[rng() % specs.size()], {"x", "y"});
    std::map<Label, int64_t> sizes;
    for (const char* l : {"i", "j", "k", "b", "h", "s", "t", "d"}) sizes[l] = powersOfTwo ? int64_t{1} << (1 + rng() % 4) : 6 + 6 * (rng() % 2);
    testing::sizeLabels(g, sizes);
    const NodeSpace space = nodeSpace(g.nodes[0]);
    const int64_t p = int64_t{1} << (rng() % 7);
    const Parts parts = randomParts(space.sizes, powersOfTwo, p, rng);
    const CallGeometry geometry = callGeometry(space, parts);
    const Placement placement = canonicalPlacement(geometry, trial % 2 == 1);
    const std::size_t k = rng() % space.operandLabels.size();
    // Rank callRank[c] reads call c's block of operand k, as the search's columns say.
    einrt::model::BlockNumbers read(static_cast<std::size_t>(geometry.calls));
    for (std::size_t c = 0; c < placement.callRank.size(); ++c)
      read[static_cast<std::size_t>(placement.callRank[c])] = static_cast<int32_t>(geometry.operandBlock[k][c]);
    const std::vector<int64_t> shape = operandExtent(space, k);
    const einrt::BlockGrid consumer{shape, projectParts(parts, space.operandLabels[k])};
    const einrt::BlockGrid producer{shape, randomParts(shape, powersOfTwo, p, rng)};
    const int64_t stride = std::vector<int64_t>{1, 2, 4, 3}[rng() % 4];
    const RankBlockCoordinates owns = ownedBlockCoordinates(producer, stride), reads = rankBlockCoordinates(consumer, read);
    const int64_t devices = std::max<int64_t>(geometry.calls, (producer.blockCount() - 1) * stride + 1);
    std::vector<int> owner(static_cast<std::size_t>(producer.blockCount()));
    for (std::size_t b = 0; b < owner.size(); ++b) owner[b] = static_cast<int>(static_cast<int64_t>(b) * stride);
    std::vector<int> callRank(read.size());
    std::iota(callRank.begin(), callRank.end(), 0);
    const int64_t want =
        repartitionTraffic(BlockHomes(producer, owner, devices), consumer, read, callRank, devices, TrafficDetail::Total).elements;
    CAPTURE(trial);
    CAPTURE(g.nodes[0].einsum);
    CAPTURE(p);
    CAPTURE(stride);
    CHECK(canonicalRepartitionElements(producer, owns, consumer, reads) == want);
    ++trials;
    if (powersOfTwo && stride != 3) {
      // Every canonical layout of power-of-two parts is a selection of the ranks' bits.
      REQUIRE(reads.bits);
      REQUIRE(owns.bits);
      ++byBits;
    } else if (!powersOfTwo && (consumer.blockCount() & (consumer.blockCount() - 1)) != 0) {
      CHECK_FALSE(reads.bits);
    }
  }
  CHECK(byBits > trials / 2);
}

TEST_CASE("coordinates that are no selection of the rank's bits have no bit description") {
  // Rank r reads block (r + 1) mod 4: a rotation, not a selection.
  CHECK_FALSE(rankBitsOf({{1, 2, 3, 0}}, 1));
  // Two rank bits into one coordinate bit.
  CHECK_FALSE(rankBitsOf({{0, 1, 1, 0}}, 1));
  // Three ranks: not a power of two of them.
  CHECK_FALSE(rankBitsOf({{0, 1, 2}}, 1));
  // Owners spaced by 2: ranks 0, 2, 4, 6 hold blocks 0..3 of a 2 x 2 grid.
  const std::optional<RankBits> owned = rankBitsOf({{0, -1, 0, -1, 1, -1, 1}, {0, -1, 1, -1, 0, -1, 1}}, 2);
  REQUIRE(owned);
  CHECK(owned->zeroBits == 1);
  CHECK(owned->rankBits == 3);
  CHECK(owned->bitOf[0][0] == 2);
  CHECK(owned->bitOf[1][0] == 1);
}
