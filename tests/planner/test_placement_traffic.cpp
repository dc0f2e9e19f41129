// Placement and traffic (planner/placement, planner/cost/traffic.h) against independent
// oracles: the assignment solver against brute force over all assignments; block
// overlaps against an element-by-element count; every node's traffic (costPlan) against
// einrt's own traffic prediction (runtime/include/einrt/traffic.h) on the layouts the
// emitted program builds from the plan, for random partitions, both placement rules and
// random hand-written placements (several calls on one rank included), p = 1..8; and the
// matched rule never receiving more into a node than the canonical one. Seeds printed.
#include <doctest/doctest.h>

#include <algorithm>
#include <iostream>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include <einrt/block_grid.h>
#include <einrt/layout.h>
#include <einrt/model/program_model.h>
#include <einrt/traffic.h>

#include "planner/algorithms/placed_plan.h"
#include "planner/cost/plan_cost.h"
#include "planner/cost/time_model.h"
#include "placement_fixtures.h"
#include "random_graphs.h"
#include "planner/cost/traffic.h"
#include "planner/graph/load.h"
#include "planner/partition/call_geometry.h"
#include "planner/placement/assignment.h"
#include "planner/placement/plan.h"

using namespace eindecomp;
using testing::floorMachine;
using testing::kBatched;
using testing::kChain;
using testing::randomPartitions;

TEST_CASE("the assignment solver finds the brute-force optimum") {
  const unsigned seed = 20261122;
  std::cout << "assignment seed " << seed << "\n";
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 200; ++trial) {
    const int m = 1 + static_cast<int>(rng() % 6), n = 1 + static_cast<int>(rng() % m);
    std::vector<std::vector<int64_t>> cost(n, std::vector<int64_t>(m));
    for (auto& row : cost)
      for (auto& c : row) c = static_cast<int64_t>(rng() % 5) * 100;
    const std::vector<int> got = solveAssignment(cost);
    REQUIRE(got.size() == static_cast<std::size_t>(n));
    CHECK(std::set<int>(got.begin(), got.end()).size() == got.size());
    int64_t gotCost = 0;
    for (int i = 0; i < n; ++i) gotCost += cost[i][got[i]];
    std::vector<int> cols(m);
    std::iota(cols.begin(), cols.end(), 0);
    int64_t best = INT64_MAX;
    do {
      int64_t c = 0;
      for (int i = 0; i < n; ++i) c += cost[i][cols[i]];
      best = std::min(best, c);
    } while (std::next_permutation(cols.begin(), cols.end()));
    CAPTURE(trial);
    CHECK(gotCost == best);
  }
}

TEST_CASE("block overlaps match an element-by-element count") {
  const struct {
    std::vector<int64_t> shape, to, from;
  } cases[] = {{{8, 8}, {2, 4}, {4, 2}}, {{12}, {3}, {4}}, {{6, 10}, {6, 1}, {1, 5}}, {{4, 6, 6}, {2, 3, 2}, {1, 2, 3}}, {{}, {}, {}}};
  for (const auto& c : cases) {
    einrt::BlockGrid to{c.shape, c.to}, from{c.shape, c.from};
    for (int64_t b = 0; b < to.blockCount(); ++b) {
      std::map<int64_t, int64_t> got, want;
      einrt::forEachOverlap(to, to.coords(b), from, [&](int64_t pb, int64_t n) { got[pb] += n; });
      int64_t total = 1;
      for (int64_t e : c.shape) total *= e;
      for (int64_t flat = 0; flat < total; ++flat) {
        std::vector<int64_t> idx(c.shape.size());
        int64_t rest = flat;
        for (std::size_t d = c.shape.size(); d-- > 0;) { idx[d] = rest % c.shape[d]; rest /= c.shape[d]; }
        std::vector<int64_t> tc, fc;
        for (std::size_t d = 0; d < idx.size(); ++d) {
          tc.push_back(idx[d] / to.extent(d));
          fc.push_back(idx[d] / from.extent(d));
        }
        if (to.index(tc) == b) want[from.index(fc)] += 1;
      }
      CHECK(got == want);
    }
  }
}

namespace {

// The layouts the emitted program builds (the executor in einrt), rebuilt here from the
// plan with einrt's Layout and fed to einrt's predictor.
std::vector<std::vector<int>> holders(const NodePlan& np, const std::vector<int>& dims) {
  std::map<int64_t, std::set<int>> h;
  for (int64_t c = 0; c < np.kernelCalls; ++c)
    h[einrt::blockOfCell(np.parts, dims, einrt::callCell(np.parts, c))].insert(np.placement.callRank[static_cast<std::size_t>(c)]);
  std::vector<std::vector<int>> out;
  for (const auto& [b, s] : h) out.emplace_back(s.begin(), s.end());
  return out;
}

// Whether edge `edge`'s consumer reads an earlier reader's copy (einrt's output-copy rule,
// from the layouts): an earlier edge from the same producer needs the same blocks on the
// same ranks, and the readers between come at most kCopyReach nodes apart.
bool readsEarlierCopy(const Graph& g, const Plan& plan, std::size_t edge) {
  auto need = [&](const PlanEdge& e) {
    const NodePlan& np = plan.nodes[static_cast<std::size_t>(e.toNode)];
    return std::make_pair(e.consumerParts, holders(np, nodeSpace(g.nodes[static_cast<std::size_t>(e.toNode)]).operandLabels[static_cast<std::size_t>(e.operand)]));
  };
  const PlanEdge& mine = plan.edges[edge];
  int last = -1;  // the last earlier reader needing what mine needs: its copy's or one of its own
  for (std::size_t k = 0; k < edge; ++k) {
    const PlanEdge& e = plan.edges[k];
    if (e.fromNode == mine.fromNode && need(e) == need(mine)) last = e.toNode;
  }
  return last >= 0 && mine.toNode - last <= einrt::model::kCopyReach;
}

// einrt's prediction of a node's bytes: all of them, and those between nodes of
// `ranksPerNode` ranks (0: one node). Where `cost` says a node's partials are reduced at
// their reader (einrt's reduced-at-read rule), that reader's operand receives them from
// the partial layout and the node aggregates nothing; the prediction then also checks
// that this moves fewer bytes than the aggregation and the repartition would.
struct NodeBytes {
  uint64_t all = 0, interNode = 0;
  void add(const einrt::TrafficPrediction& t) {
    all += t.totalBytes;
    interNode += t.interNodeBytes;
  }
};

NodeBytes predictedNodeBytes(const Graph& g, const Plan& plan, std::size_t i, const PlanCost& cost, int64_t ranksPerNode = 0) {
  const einrt::RankNodes nodes{ranksPerNode};
  const Node& n = g.nodes[i];
  const NodePlan& np = plan.nodes[i];
  const NodeSpace space = nodeSpace(n);
  const einrt::DType dt = g.dtype == DType::F64 ? einrt::DType::F64 : einrt::DType::F32;
  auto owned = [&](std::size_t node) {
    std::vector<std::vector<int>> owners;
    for (int o : plan.nodes[node].placement.blockOwner) owners.push_back({o});
    return einrt::Layout::grid(outputShape(g.nodes[node]), plan.nodes[node].outputParts, owners);
  };
  auto partial = [&](std::size_t node) {
    return einrt::Layout::grid(outputShape(g.nodes[node]), plan.nodes[node].outputParts,
                               holders(plan.nodes[node], nodeSpace(g.nodes[node]).outputLabels), einrt::Holding::Partial);
  };
  auto predict = [&](const einrt::Layout& from, const einrt::Layout& to) {
    return einrt::predictTraffic(from, to, dt, static_cast<int>(plan.devices), "t", nodes);
  };
  NodeBytes bytes;
  for (std::size_t k = 0; k < plan.edges.size(); ++k) {
    const PlanEdge& e = plan.edges[k];
    if (static_cast<std::size_t>(e.toNode) != i || readsEarlierCopy(g, plan, k)) continue;
    const einrt::Layout need = einrt::Layout::grid(e.bounds, e.consumerParts, holders(np, space.operandLabels[static_cast<std::size_t>(e.operand)]));
    const auto from = static_cast<std::size_t>(e.fromNode);
    if (cost.nodes[from].reducedAtReadBy != static_cast<int>(i)) {
      bytes.add(predict(owned(from), need));
      continue;
    }
    const einrt::TrafficPrediction reduced = predict(partial(from), need);
    CHECK(reduced.totalBytes < predict(partial(from), owned(from)).totalBytes + predict(owned(from), need).totalBytes);
    bytes.add(reduced);
  }
  if (cost.nodes[i].reducedAtReadBy < 0) bytes.add(predict(partial(i), owned(i)));
  return bytes;
}

}  // namespace

TEST_CASE("traffic equals einrt's prediction on the program's layouts, for every placement, split by link") {
  // On a cluster of two ranks per node, the bytes between nodes too: priced without a
  // machine (totals; the plan's ranks_per_node) and with one (per rank, for the time model).
  Machine cluster;
  cluster.latencySeconds = 1e-6;
  cluster.bandwidthBytesPerSecond = 1e11;
  cluster.flopsPerSecond = 1e12;
  cluster.ranksPerNode = 2;
  cluster.interNodeLatencySeconds = 1e-5;
  cluster.interNodeBandwidthBytesPerSecond = 1e10;
  const LinkWeights weights{{2}, 10};
  const unsigned seed = 777;
  std::cout << "partition seed " << seed << "\n";
  std::mt19937 rng(seed);
  int64_t reducedSeen = 0;  // nodes reduced at read among the plans (the rule is exercised)
  for (const char* text : {kChain, kBatched}) {
    const Graph g = loadGraphText(text, "test.yaml", GraphFormat::Yaml);
    for (int64_t devices : {1, 2, 3, 4, 6, 8}) {
      for (int trial = 0; trial < 6; ++trial) {
        const std::vector<Parts> parts = randomPartitions(g, devices, rng);
        std::vector<std::vector<Placement>> placements{placeNodes(g, parts, PlacementRule::Canonical, {}, devices),
                                                       placeNodes(g, parts, PlacementRule::Matched, {}, devices),
                                                       placeNodes(g, parts, PlacementRule::Matched, {}, devices, weights)};
        PinnedPlacements hand;  // any rank for any call, repeats allowed
        for (std::size_t i = 0; i < g.nodes.size(); ++i) {
          std::vector<int> ranks;
          for (int64_t c = 0, calls = callGeometry(nodeSpace(g.nodes[i]), parts[i]).calls; c < calls; ++c)
            ranks.push_back(static_cast<int>(rng() % static_cast<unsigned>(devices)));
          hand[g.nodes[i].name] = ranks;
        }
        placements.push_back(placeNodes(g, parts, PlacementRule::Canonical, hand, devices));
        for (const auto& placement : placements) {
          Plan plan = makePlan(g, devices, "test", parts, placement);
          const PlanCost cost = costPlan(g, plan, std::nullopt);
          const PlanCost perRank = costPlan(g, plan, cluster);
          plan.ranksPerNode = 2;
          const PlanCost totals = costPlan(g, plan, std::nullopt);
          // (Which partials are reduced at read depends on the links: the split by node
          // compares the split pricings, each with einrt's prediction under its own.)
          bool sameChoice = true;
          for (std::size_t i = 0; i < g.nodes.size(); ++i)
            sameChoice = sameChoice && cost.nodes[i].reducedAtReadBy == totals.nodes[i].reducedAtReadBy &&
                         totals.nodes[i].reducedAtReadBy == perRank.nodes[i].reducedAtReadBy;
          reducedSeen += std::count_if(cost.nodes.begin(), cost.nodes.end(), [](const NodePlanCost& c) { return c.reducedAtReadBy >= 0; });
          int64_t total = 0, inter = 0;
          for (std::size_t i = 0; i < g.nodes.size(); ++i) {
            CAPTURE(g.nodes[i].name);
            CAPTURE(devices);
            CHECK(static_cast<uint64_t>(cost.nodes[i].trafficBytes) == predictedNodeBytes(g, plan, i, cost).all);
            CHECK(cost.nodes[i].interNodeBytes == 0);
            const NodeBytes split = predictedNodeBytes(g, plan, i, totals, 2);
            CHECK(static_cast<uint64_t>(totals.nodes[i].trafficBytes) == split.all);
            CHECK(static_cast<uint64_t>(totals.nodes[i].interNodeBytes) == split.interNode);
            CHECK(perRank.nodes[i].trafficBytes == totals.nodes[i].trafficBytes);
            CHECK(perRank.nodes[i].interNodeBytes == totals.nodes[i].interNodeBytes);
            if (sameChoice) CHECK(perRank.nodes[i].trafficBytes == cost.nodes[i].trafficBytes);
            total += cost.nodes[i].trafficBytes;
            inter += totals.nodes[i].interNodeBytes;
          }
          CHECK(cost.trafficBytes == total);
          CHECK(totals.interNodeBytes == inter);
          CHECK(perRank.interNodeBytes == inter);
          if (devices <= 2) CHECK(inter == 0);
          if (devices == 1) CHECK(total == 0);
        }
      }
    }
  }
  CHECK(reducedSeen > 0);
}

TEST_CASE("the placement rules: canonical keeps block b on rank b; matched never receives more into a node") {
  const unsigned seed = 4711;
  std::cout << "placement seed " << seed << "\n";
  std::mt19937 rng(seed);
  for (const char* text : {kChain, kBatched}) {
    const Graph g = loadGraphText(text, "test.yaml", GraphFormat::Yaml);
    for (int64_t devices : {2, 3, 4, 6, 8}) {
      for (int trial = 0; trial < 6; ++trial) {
        const std::vector<Parts> parts = randomPartitions(g, devices, rng);
        const std::vector<Placement> canonical = placeNodes(g, parts, PlacementRule::Canonical, {}, devices);
        for (const Placement& p : canonical) {
          std::vector<int> identity(p.blockOwner.size());
          std::iota(identity.begin(), identity.end(), 0);
          CHECK(p.blockOwner == identity);
          CHECK(std::set<int>(p.callRank.begin(), p.callRank.end()).size() == p.callRank.size());
        }
        const std::vector<Placement> matched = placeNodes(g, parts, PlacementRule::Matched, {}, devices);
        // Node by node, given the matched producers: the matched node receives at most what
        // the canonical placement of that node would.
        for (std::size_t i = 0; i < g.nodes.size(); ++i) {
          std::vector<Placement> alternative = matched;
          alternative[i] = canonical[i];
          const PlanCost mine = costPlan(g, makePlan(g, devices, "m", parts, matched), std::nullopt);
          const PlanCost other = costPlan(g, makePlan(g, devices, "c", parts, alternative), std::nullopt);
          CAPTURE(g.nodes[i].name);
          CHECK(mine.nodes[i].trafficInBytes <= other.nodes[i].trafficInBytes);
          CHECK(std::set<int>(matched[i].callRank.begin(), matched[i].callRank.end()).size() == matched[i].callRank.size());
        }
      }
    }
  }
}

namespace {

// Tensor shapes for the canonical-placement tests, and a random divisor of each extent.
const std::vector<std::vector<int64_t>> shapes{{12}, {8, 6}, {4, 6, 4}, {6, 2, 3, 4}};

std::vector<int64_t> randomDivisors(const std::vector<int64_t>& shape, std::mt19937& rng) {
  std::vector<int64_t> parts;
  for (int64_t e : shape) {
    std::vector<int64_t> divisors;
    for (int64_t d = 1; d <= e; ++d)
      if (e % d == 0) divisors.push_back(d);
    parts.push_back(divisors[rng() % divisors.size()]);
  }
  return parts;
}

// Every count a Traffic carries, checked one by one so that a failure names the field.
void checkSameTraffic(const Traffic& got, const Traffic& want) {
  CHECK(got.elements == want.elements);
  CHECK(got.interNodeElements == want.interNodeElements);
  CHECK(got.intraNode.busiestElements == want.intraNode.busiestElements);
  CHECK(got.intraNode.busiestMessages == want.intraNode.busiestMessages);
  CHECK(got.interNode.busiestElements == want.interNode.busiestElements);
  CHECK(got.interNode.busiestMessages == want.interNode.busiestMessages);
}

// The per-rank count element by element (an oracle apart from traffic.cpp's pieces):
// every element of every distinct (rank, block) read, from its producer block's owner.
Traffic elementByElementTraffic(const einrt::BlockGrid& producer, const std::vector<int>& owner, const einrt::BlockGrid& consumer,
                                const einrt::model::BlockNumbers& read, const std::vector<int>& callRank, int64_t devices,
                                const einrt::RankNodes& nodes) {
  std::set<std::pair<int, int64_t>> needs;
  for (std::size_t c = 0; c < read.size(); ++c) needs.emplace(callRank[c], read[c]);
  std::map<std::pair<int, int>, int64_t> pairs;  // (sender, receiver) -> elements
  const std::size_t dims = consumer.dims();
  for (const auto& [rank, block] : needs) {
    std::vector<int64_t> at(dims), lo(dims);
    int64_t rest = block;
    for (std::size_t d = dims; d-- > 0;) {
      lo[d] = rest % consumer.parts[d] * consumer.extent(d);
      rest /= consumer.parts[d];
    }
    at = lo;
    for (bool more = true; more;) {
      int64_t from = 0;
      for (std::size_t d = 0; d < dims; ++d) from = from * producer.parts[d] + at[d] / producer.extent(d);
      if (owner[static_cast<std::size_t>(from)] != rank) ++pairs[{owner[static_cast<std::size_t>(from)], rank}];
      more = false;
      for (std::size_t d = dims; d-- > 0;) {
        if (++at[d] < lo[d] + consumer.extent(d)) {
          more = true;
          break;
        }
        at[d] = lo[d];
      }
    }
  }
  Traffic t;
  std::vector<int64_t> sent[2], received[2], messages[2];
  for (int l = 0; l < 2; ++l) sent[l] = received[l] = messages[l] = std::vector<int64_t>(static_cast<std::size_t>(devices), 0);
  for (const auto& [pair, elements] : pairs) {
    const int l = nodes.sameNode(pair.first, pair.second) ? 0 : 1;
    t.elements += elements;
    if (l == 1) t.interNodeElements += elements;
    sent[l][static_cast<std::size_t>(pair.first)] += elements;
    received[l][static_cast<std::size_t>(pair.second)] += elements;
    ++messages[l][static_cast<std::size_t>(pair.first)];
    ++messages[l][static_cast<std::size_t>(pair.second)];
  }
  LinkLoad* load[2] = {&t.intraNode, &t.interNode};
  for (int l = 0; l < 2; ++l)
    for (std::size_t r = 0; r < static_cast<std::size_t>(devices); ++r) {
      load[l]->busiestElements = std::max({load[l]->busiestElements, sent[l][r], received[l][r]});
      load[l]->busiestMessages = std::max(load[l]->busiestMessages, messages[l][r]);
    }
  return t;
}

}  // namespace

TEST_CASE("the search's canonical repartition count equals an element-by-element count") {
  // Rank r owns block r of the producer's grid and reads block read[r] of the consumer's;
  // the elements it must receive are those of its read block it does not own, counted
  // element by element (elementByElementTraffic: no overlap arithmetic), and through
  // repartitionTraffic.
  const unsigned seed = 20261125;
  std::cout << "canonical repartition seed " << seed << "\n";
  std::mt19937 rng(seed);
  auto randomParts = [&](const std::vector<int64_t>& shape) { return randomDivisors(shape, rng); };
  for (int trial = 0; trial < 300; ++trial) {
    const std::vector<int64_t>& shape = shapes[rng() % shapes.size()];
    const einrt::BlockGrid producer{shape, randomParts(shape)}, consumer{shape, randomParts(shape)};
    const int64_t ranks = 1 + static_cast<int64_t>(rng() % 12);
    einrt::model::BlockNumbers read(static_cast<std::size_t>(ranks));
    for (auto& b : read) b = static_cast<int32_t>(rng() % static_cast<unsigned>(consumer.blockCount()));
    const int64_t devices = std::max(ranks, producer.blockCount());
    const int64_t got = canonicalRepartitionElements(producer, ownedBlockCoordinates(producer), consumer,
                                                     rankBlockCoordinates(consumer, read));
    std::vector<int> owner(static_cast<std::size_t>(producer.blockCount()));
    std::iota(owner.begin(), owner.end(), 0);
    std::vector<int> callRank(static_cast<std::size_t>(ranks));
    std::iota(callRank.begin(), callRank.end(), 0);
    const int64_t want = elementByElementTraffic(producer, owner, consumer, read, callRank, devices, {}).elements;
    const Traffic general = repartitionTraffic(BlockHomes(producer, owner, devices), consumer, read, callRank, devices,
                                               TrafficDetail::Total);
    CAPTURE(trial);
    CHECK(got == want);
    CHECK(general.elements == want);
  }
}

namespace {

// The search's floors (traffic.h repartitionFloor, firstGroupRepartitionTraffic;
// time_model.h phaseFloorPicoseconds, repartitionFloorPicoseconds) under the exact count `want` of the canonical
// placement, with and without the canonical rule's owner stride.
void checkFloorsUnder(const Traffic& want, const einrt::BlockGrid& producer, int64_t stride, const einrt::BlockGrid& consumer,
                      const einrt::model::BlockNumbers& read, int64_t devices, const einrt::RankNodes& nodes) {
  const Machine m = floorMachine(nodes);
  const bool cluster = nodes.spansNodes(devices);
  const int64_t perNode = cluster ? nodes.ranksPerNode : 0, readers = static_cast<int64_t>(read.size());
  const int64_t phase = phasePicoseconds(m, want, 4);
  for (const std::optional<int64_t> s : {std::optional<int64_t>(stride), std::optional<int64_t>()}) {
    const RepartitionFloor f = repartitionFloor(producer.shape, producer.parts, consumer.parts, readers, perNode, s, devices);
    CHECK(f.elements <= want.elements);
    CHECK(phaseFloorPicoseconds(m, f.reader, 4, cluster, nodes.ranksPerNode) <= phase);
    CHECK(phaseFloorPicoseconds(m, f.holder, 4, cluster, nodes.ranksPerNode) <= phase);
    CHECK(repartitionFloorPicoseconds(m, f, 4, cluster, nodes.ranksPerNode) <= phase);
  }
  const Traffic first = firstGroupRepartitionTraffic(producer, stride, consumer, read, devices, nodes);
  CHECK(first.elements <= want.elements);
  CHECK(first.interNodeElements <= want.interNodeElements);
  for (auto [a, b] : {std::pair{first.intraNode, want.intraNode}, std::pair{first.interNode, want.interNode}}) {
    CHECK(a.busiestElements <= b.busiestElements);
    CHECK(a.busiestMessages <= b.busiestMessages);
  }
  CHECK(phasePicoseconds(m, first, 4) <= phase);
}

}  // namespace

TEST_CASE("the search's canonical per-rank repartition equals repartitionTraffic's, link by link") {
  // Rank r owns producer block r and reads consumer block read[r]; every consumer block is
  // read by the same number of ranks (as a node's calls read an operand's blocks).
  const unsigned seed = 20261126;
  std::cout << "canonical per-rank seed " << seed << "\n";
  std::mt19937 rng(seed);
  auto randomParts = [&](const std::vector<int64_t>& shape) { return randomDivisors(shape, rng); };
  for (int trial = 0; trial < 800; ++trial) {
    const std::vector<int64_t>& shape = shapes[rng() % shapes.size()];
    einrt::BlockGrid producer{shape, randomParts(shape)}, consumer{shape, randomParts(shape)};
    if (producer.blockCount() > 24 || consumer.blockCount() > 24) continue;
    const int64_t perBlock = 1 + static_cast<int64_t>(rng() % 3);
    einrt::model::BlockNumbers read;
    for (int64_t b = 0; b < consumer.blockCount(); ++b)
      for (int64_t k = 0; k < perBlock; ++k) read.push_back(static_cast<int32_t>(b));
    // Half in block order, as the canonical rule reads: a node's blocks then mostly form
    // products of per-dimension coordinates (rankLoads' shortcut, NodeSums::fromProducts).
    if (trial % 2 == 0) std::shuffle(read.begin(), read.end(), rng);
    // Block b on rank b * stride (the canonical rule's cluster form spaces a producer's
    // blocks by its aggregation parts).
    const int64_t stride = 1 + static_cast<int64_t>(rng() % 3);
    const int64_t devices = std::max<int64_t>(static_cast<int64_t>(read.size()), (producer.blockCount() - 1) * stride + 1) +
                            static_cast<int64_t>(rng() % 3);
    const einrt::RankNodes nodes{static_cast<int64_t>(rng() % 5)};
    std::vector<int> owner(static_cast<std::size_t>(producer.blockCount()));
    for (std::size_t b = 0; b < owner.size(); ++b) owner[b] = static_cast<int>(static_cast<int64_t>(b) * stride);
    std::vector<int> callRank(read.size());
    std::iota(callRank.begin(), callRank.end(), 0);
    const Traffic want = repartitionTraffic(BlockHomes(producer, owner, devices), consumer, read, callRank, devices,
                                            TrafficDetail::PerRank, nodes);
    const RankBlockCoordinates owns = ownedBlockCoordinates(producer, stride), reads = rankBlockCoordinates(consumer, read);
    const Traffic got = canonicalRepartitionTraffic(producer, owns, consumer, reads, devices, nodes);
    CAPTURE(trial);
    CAPTURE(nodes.ranksPerNode);
    CAPTURE(stride);
    CHECK(canonicalRepartitionElements(producer, owns, consumer, reads) == want.elements);
    checkFloorsUnder(want, producer, stride, consumer, read, devices, nodes);
    checkSameTraffic(got, want);
  }
}

TEST_CASE("a repartition's per-rank count equals the element-by-element count, one block per rank or several") {
  // repartitionTraffic counts block by block where each rank reads one block
  // (traffic_by_block.h), piece by piece otherwise: both against the oracle, for random
  // grids, owners anywhere, calls on random ranks (distinct, or several per rank), on one
  // node and on nodes of 1-4 ranks.
  const unsigned seed = 20261202;
  std::cout << "per-rank by block seed " << seed << "\n";
  std::mt19937 rng(seed);
  int oneBlockEach = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const std::vector<int64_t>& shape = shapes[rng() % shapes.size()];
    const einrt::BlockGrid producer{shape, randomDivisors(shape, rng)}, consumer{shape, randomDivisors(shape, rng)};
    const int64_t devices = 1 + static_cast<int64_t>(rng() % 12);
    std::vector<int> owner(static_cast<std::size_t>(producer.blockCount()));
    for (int& o : owner) o = static_cast<int>(rng() % static_cast<unsigned>(devices));
    const std::size_t calls = 1 + rng() % 16;
    einrt::model::BlockNumbers read(calls);
    for (auto& b : read) b = static_cast<int32_t>(rng() % static_cast<unsigned>(consumer.blockCount()));
    std::vector<int> callRank(calls);
    std::vector<int> ranks(static_cast<std::size_t>(devices));
    std::iota(ranks.begin(), ranks.end(), 0);
    std::shuffle(ranks.begin(), ranks.end(), rng);
    const bool distinct = trial % 2 == 0 && calls <= ranks.size();
    for (std::size_t c = 0; c < calls; ++c) callRank[c] = distinct ? ranks[c] : static_cast<int>(rng() % static_cast<unsigned>(devices));
    oneBlockEach += distinct ? 1 : 0;
    const einrt::RankNodes nodes{static_cast<int64_t>(rng() % 5)};
    const Traffic want = elementByElementTraffic(producer, owner, consumer, read, callRank, devices, nodes);
    const Traffic got = repartitionTraffic(BlockHomes(producer, owner, devices), consumer, read, callRank, devices,
                                           TrafficDetail::PerRank, nodes);
    CAPTURE(trial);
    checkSameTraffic(got, want);
  }
  CHECK(oneBlockEach > 100);  // the block-by-block count ran
}
