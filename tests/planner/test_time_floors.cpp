// The time and traffic floors the planner skips work by (planner/cost/plan_cost.h
// trafficLowerBound, timeLowerBound, timeFloorsByNode; traffic.h repartitionFloor with
// time_model.h repartitionFloorPicoseconds) against exact counts of placed plans: never
// above a plan's cost under any placement with a rank per call (both rules, random
// distinct ranks, one node and nodes of two), and a plan priced as it is placed
// (placed_plan.h placeAndPrice) abandoned only when it is sure to lose. Seeds printed.
#include <doctest/doctest.h>

#include <algorithm>
#include <iostream>
#include <limits>
#include <numeric>
#include <random>

#include "placement_fixtures.h"
#include "planner/algorithms/placed_plan.h"
#include "planner/cost/plan_cost.h"
#include "planner/cost/time_model.h"
#include "planner/cost/traffic.h"
#include "planner/graph/load.h"
#include "planner/partition/call_geometry.h"
#include "planner/placement/plan.h"
#include "random_graphs.h"

using namespace eindecomp;
using testing::floorMachine;
using testing::kBatched;
using testing::kChain;
using testing::randomPartitions;

TEST_CASE("a rank that holds a block and reads one pays both sides' messages in a repartition's floor") {
  // Exact phases (repartitionTraffic, per rank and link) of repartitions placed on random
  // distinct ranks and canonically, against repartitionFloorPicoseconds. Where holders and
  // readers outnumber the ranks, some rank sends and receives: the floor then counts both
  // sides' messages, as the all-to-alls below do on every rank (LLaMA's scores read
  // 1,024 holders that each send to 1,024 readers).
  struct Case {
    std::vector<int64_t> shape, producer, consumer;
    int64_t readersPerBlock, devices, ranksPerNode;
    bool mustBoth;  // holders + readers > devices
  };
  const std::vector<Case> cases{
      {{8, 8}, {8, 1}, {1, 8}, 1, 8, 0, true},    // all-to-all: every rank holds and reads
      {{8, 8}, {8, 1}, {1, 8}, 1, 8, 2, true},    // the same on nodes of two ranks
      {{8, 8}, {8, 1}, {1, 8}, 1, 16, 4, false},  // room to keep holders and readers apart
      {{8, 6}, {4, 3}, {2, 6}, 1, 12, 3, true},
      {{12, 4}, {6, 1}, {2, 4}, 2, 16, 4, true},  // two readers per block
      {{6, 4, 4}, {3, 2, 1}, {1, 1, 4}, 3, 12, 2, true},
  };
  const unsigned seed = 20261205;
  std::cout << "holding reader seed " << seed << "\n";
  std::mt19937 rng(seed);
  int bothCounted = 0;
  for (const Case& c : cases) {
    const einrt::BlockGrid producer{c.shape, c.producer}, consumer{c.shape, c.consumer};
    const einrt::RankNodes nodes{c.ranksPerNode};
    const Machine m = floorMachine(nodes);
    const bool cluster = nodes.spansNodes(c.devices);
    const int64_t perNode = cluster ? c.ranksPerNode : 0;
    einrt::model::BlockNumbers read;
    for (int64_t b = 0; b < consumer.blockCount(); ++b)
      for (int64_t k = 0; k < c.readersPerBlock; ++k) read.push_back(static_cast<int32_t>(b));
    const auto readers = static_cast<int64_t>(read.size());
    const RepartitionFloor any = repartitionFloor(c.shape, c.producer, c.consumer, readers, perNode, std::nullopt, c.devices);
    CAPTURE(c.shape);
    CAPTURE(c.devices);
    CHECK(any.holdingReader.has_value() == c.mustBoth);
    const int64_t floor = repartitionFloorPicoseconds(m, any, 4, cluster, c.ranksPerNode);
    if (c.mustBoth) {
      // Above either side's alone; on one node, both sides' messages at its latency.
      const int64_t oneSide = std::max(phaseFloorPicoseconds(m, any.reader, 4, cluster, c.ranksPerNode),
                                       phaseFloorPicoseconds(m, any.holder, 4, cluster, c.ranksPerNode));
      CHECK(floor > oneSide);
      if (!cluster) CHECK(floor >= std::llround(3e-6 * 1e12) * (any.holder.messages + any.holdingReader->messages) - 1);
      bothCounted += floor > oneSide;
    }
    for (int trial = 0; trial < 40; ++trial) {
      std::vector<int> ranks(static_cast<std::size_t>(c.devices));
      std::iota(ranks.begin(), ranks.end(), 0);
      std::shuffle(ranks.begin(), ranks.end(), rng);
      std::vector<int> owner(ranks.begin(), ranks.begin() + producer.blockCount());
      std::shuffle(ranks.begin(), ranks.end(), rng);
      std::vector<int> callRank(ranks.begin(), ranks.begin() + readers);
      const Traffic t = repartitionTraffic(BlockHomes(producer, owner, c.devices), consumer, read, callRank, c.devices,
                                           TrafficDetail::PerRank, nodes);
      CAPTURE(trial);
      CHECK(floor <= phasePicoseconds(m, t, 4));
    }
    // The canonical placement (block b on rank b, call c on rank c): rank 0 does both.
    std::vector<int> owner(static_cast<std::size_t>(producer.blockCount())), callRank(read.size());
    std::iota(owner.begin(), owner.end(), 0);
    std::iota(callRank.begin(), callRank.end(), 0);
    const Traffic canonical = repartitionTraffic(BlockHomes(producer, owner, c.devices), consumer, read, callRank, c.devices,
                                                 TrafficDetail::PerRank, nodes);
    const RepartitionFloor strided = repartitionFloor(c.shape, c.producer, c.consumer, readers, perNode, int64_t{1}, c.devices);
    CHECK(strided.holdingReader.has_value());
    CHECK(repartitionFloorPicoseconds(m, strided, 4, cluster, c.ranksPerNode) <= phasePicoseconds(m, canonical, 4));
  }
  CHECK(bothCounted == 5);  // every case where some rank must do both
}

TEST_CASE("the traffic and time bounds the planner skips pricing by never exceed a plan's with a rank per call") {
  // planner/cost/plan_cost.h trafficLowerBound: for random partitions placed by both rules,
  // on one node and on nodes of two ranks, and by random distinct ranks per call.
  const unsigned seed = 2718;
  std::cout << "traffic bound seed " << seed << "\n";
  std::mt19937 rng(seed);
  int tight = 0, positive = 0, timeTight = 0;
  std::vector<Graph> graphs{loadGraphText(kChain, "test.yaml", GraphFormat::Yaml), loadGraphText(kBatched, "test.yaml", GraphFormat::Yaml)};
  testing::RandomGraphs random{std::mt19937(seed), 0, {}};
  for (int k = 0; k < 6; ++k) graphs.push_back(random.make(4 + k % 3, k % 2 == 1));  // in-trees and DAGs
  for (const Graph& g : graphs) {
    for (int64_t devices : {1, 2, 3, 4, 6, 8}) {
      for (int trial = 0; trial < 4; ++trial) {
        const std::vector<Parts> parts = randomPartitions(g, devices, rng);
        const int64_t bound = trafficLowerBound(g, parts);
        LinkWeights twoPerNode;
        twoPerNode.nodes = einrt::RankNodes{2};
        twoPerNode.interNodeWeight = 4;
        PinnedPlacements shuffled;  // distinct random ranks
        for (std::size_t i = 0; i < g.nodes.size(); ++i) {
          std::vector<int> ranks(static_cast<std::size_t>(devices));
          std::iota(ranks.begin(), ranks.end(), 0);
          std::shuffle(ranks.begin(), ranks.end(), rng);
          ranks.resize(static_cast<std::size_t>(callGeometry(nodeSpace(g.nodes[i]), parts[i]).calls));
          shuffled[g.nodes[i].name] = ranks;
        }
        for (const auto& placement : {placeNodes(g, parts, PlacementRule::Canonical, {}, devices),
                                      placeNodes(g, parts, PlacementRule::Matched, {}, devices),
                                      placeNodes(g, parts, PlacementRule::Matched, {}, devices, twoPerNode),
                                      placeNodes(g, parts, PlacementRule::Canonical, shuffled, devices)}) {
          const PlanCost cost = costPlan(g, makePlan(g, devices, "b", parts, placement), std::nullopt);
          CAPTURE(devices);
          CHECK(bound <= cost.trafficBytes);
          tight += bound == cost.trafficBytes;
          // timeLowerBound, on one node and on nodes of two ranks, under the same placement;
          // node by node, its floors under each node's time, and a node's exchanges
          // (counted as it is placed) with its kernels' floor (one call's time, without a
          // kernel model) are its time in the whole plan.
          for (const einrt::RankNodes nodes : {einrt::RankNodes{}, einrt::RankNodes{2}}) {
            const Machine m = floorMachine(nodes);
            Plan plan = makePlan(g, devices, "b", parts, placement);
            plan.ranksPerNode = nodes.ranksPerNode;
            const PlanCost cost = costPlan(g, plan, m, MemoryDetail::None);
            const int64_t time = *cost.timePs;
            CHECK(timeLowerBound(g, parts, m, devices) <= time);
            timeTight += timeLowerBound(g, parts, m, devices) > time / 2;
            const std::vector<int64_t> floors = timeFloorsByNode(g, parts, m, devices);
            const std::vector<int64_t> compute = computeFloorsByNode(m, g, parts);
            const GraphIndex index(g);
            for (std::size_t i = 0; i < g.nodes.size(); ++i) {
              CAPTURE(i);
              CHECK(floors[i] <= cost.nodes[i].timePs);
              const CallGeometry geometry = callGeometry(nodeSpace(g.nodes[i]), parts[i]);
              // (Exactly, unless an operand may read a shared copy, or the node's partials
              // may be reduced at their reader, or this node may be that reader: then at most.)
              const std::vector<NodeRuns> runs = nodeRuns(g, Invariants::OncePerStep);
              const int64_t placed =
                  exchangePicoseconds(g, index, i, geometry, parts, placement, nodeOutputTypes(g), runs, m, devices, nullptr) + compute[i];
              bool mayShare = false;
              for (std::size_t k = 0; k < g.nodes[i].inputs.size(); ++k) mayShare = mayShare || mayReadSharedCopy(g, index, parts, runs, i, k);
              mayShare = mayShare || mayReduceAtRead(g, index, parts, i).has_value();
              for (std::size_t k = 0; k < g.nodes[i].inputs.size(); ++k)
                if (const int from = index.nodeIndex(g.nodes[i].inputs[k]); from >= 0)
                  if (const auto r = mayReduceAtRead(g, index, parts, static_cast<std::size_t>(from)); r && r->node == static_cast<int>(i))
                    mayShare = true;
              if (mayShare) CHECK(placed <= cost.nodes[i].timePs);
              else CHECK(placed == cost.nodes[i].timePs);
            }
          }
        }
        positive += bound > 0;
      }
    }
  }
  // Not vacuous: the bound is often exact and often above zero.
  CHECK(tight > 40);
  CHECK(positive > 40);
  CHECK(timeTight > 40);  // the time bound: within half of the plan's time often
}


TEST_CASE("a plan priced as it is placed is abandoned only when it is sure to lose to its rival") {
  // placed_plan.h placeAndPrice with a rival's time: against a rival as fast as the plan
  // (its cheapest rule's time) it is finished, the same plan at the same cost as without
  // one; against a rival below its floor it is abandoned, and the floor it reports is
  // under every rule's time and above the rival's. On nodes of two ranks, p = 2..8.
  const unsigned seed = 20261203;
  std::cout << "abandoned plans seed " << seed << "\n";
  std::mt19937 rng(seed);
  testing::RandomGraphs random{std::mt19937(seed), 0, {}};
  int abandoned = 0;
  for (int k = 0; k < 8; ++k) {
    const Graph g = random.make(4 + k % 3, k % 2 == 1);
    for (int64_t devices : {2, 4, 6, 8}) {
      const std::vector<Parts> parts = randomPartitions(g, devices, rng);
      PlanOptions options;
      options.devices = devices;
      options.machine = floorMachine(einrt::RankNodes{2});
      options.objective = Objective::Time;
      options.trafficMemo = std::make_shared<TrafficMemo>();
      const PricedPlan whole = placeAndPrice(g, options, "b", parts);
      int64_t fastest = std::numeric_limits<int64_t>::max();
      for (PlacementRule rule : options.placementRules) {
        PlanOptions one = options;
        one.placementRules = {rule};
        fastest = std::min(fastest, *placeAndPrice(g, one, "b", parts).cost.timePs);
      }
      CAPTURE(k);
      CAPTURE(devices);
      const PricedPlan raced = placeAndPrice(g, options, "b", parts, [&] { return std::optional<int64_t>(fastest); });
      REQUIRE_FALSE(raced.abandoned);
      CHECK(raced.cost.timePs == whole.cost.timePs);
      CHECK(raced.cost.trafficBytes == whole.cost.trafficBytes);
      CHECK(raced.rule == whole.rule);
      for (std::size_t i = 0; i < g.nodes.size(); ++i) CHECK(raced.plan.nodes[i].placement.callRank == whole.plan.nodes[i].placement.callRank);
      const int64_t floor = timeLowerBound(g, parts, *options.machine, devices);
      if (floor == 0) continue;
      const PricedPlan lost = placeAndPrice(g, options, "b", parts, [&] { return std::optional<int64_t>(floor - 1); });
      REQUIRE(lost.abandoned);
      CHECK(lost.timeFloorPs > floor - 1);
      CHECK(lost.timeFloorPs <= fastest);
      abandoned += 1;
    }
  }
  CHECK(abandoned > 16);  // not vacuous
}
