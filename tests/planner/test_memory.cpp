// The memory model (planner/cost/memory.h) and --mem-limit (planning.cpp).
//  - Peaks worked out by hand from SPEC 3.2's rules on small graphs (the end-to-end tests
//    hold the model to the emitted programs' allocator counters on every example).
//  - --mem-limit against a brute force: on random small graphs, every combination of node
//    partitions (canonical placement) is priced exactly; under a limit between the
//    smallest and the unconstrained peak, eindecomp's plan must fit, and its traffic is
//    compared with the cheapest plan that fits (the gap is printed: the penalty search is a
//    heuristic). Seeds are printed.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>

#include "oracle.h"
#include "planner/algorithms/planning.h"
#include "planner/cost/plan_cost.h"
#include "planner/graph/load.h"
#include <einrt/model/program_model.h>
#include "planner/graph/recompute.h"
#include "planner/graph/shard_at_rest.h"
#include "random_graphs.h"

using namespace eindecomp;
using namespace eindecomp::testing;

namespace {

// `onOwners`: every aggregation onto its owners (plan.h's partialsOnOwners).
PlanCost priced(const Graph& g, int64_t devices, const std::vector<Parts>& parts, bool onOwners = false) {
  Plan plan = makePlan(g, devices, "by hand", parts, placeNodes(g, parts, PlacementRule::Canonical, {}, devices));
  plan.partialsOnOwners = onOwners;
  return costPlan(g, plan, std::nullopt);
}

}  // namespace

TEST_CASE("memory model: peaks worked out by hand") {
  // f32, 8 x 8 tensors of 256 bytes.
  const Graph chain = loadGraphText(R"yaml(
name: chain
inputs: {X: [8, 8], Y: [8, 8], W: [8, 8]}
nodes:
  - {name: A, einsum: "ij,jk->ik", inputs: [X, Y]}
  - {name: B, einsum: "ik,kl->il", inputs: [A, W]}
outputs: [B]
)yaml",
                                    "chain.yaml", GraphFormat::Yaml);
  struct Case {
    int64_t devices;
    std::vector<Parts> parts;  // labels i j k / i k l
    std::vector<int64_t> peak;
    const char* why;
  };
  const Case cases[] = {
      {1, {{1, 1, 1}, {1, 1, 1}}, {1280}, "X Y W and B resident (1024), A during both steps (256)"},
      // Rows split: rank r reads X rows (128), all of Y (256), W (256); A rows stay in place
      // for B; B rows (128) resident; A rows (128) live.
      {2, {{2, 1, 1}, {2, 1, 1}}, {896, 896}, "X half + Y + W + B half + A half, no traffic, no staging"},
      // B by columns: each rank reads all of A, a copy (256) during B; the repartition sends
      // A's other half (128): staging send 128, receive 128 received + 128 sent.
      {2, {{2, 1, 1}, {1, 1, 2}}, {1408, 1408}, "inputs 128 + 256 + 128, B 128, staging 128 + 256, A 128, copy 256"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.why);
    const PlanCost cost = priced(chain, c.devices, c.parts);
    CHECK(cost.memory.peakBytesPerRank == c.peak);
  }
}

TEST_CASE("memory model: an input read in one grid by two nodes is held once, in two grids twice") {
  // f32, 8 x 8 tensors of 256 bytes: W is read by A (as its second operand) and by B. The
  // oracle for the shared copy is the same graph with B reading a second input V instead:
  // two tensors are never shared, so it holds W's bytes again where one grid is shared,
  // and the same where the two nodes read W in two grids.
  auto graph = [](const char* second) {
    return loadGraphText(std::string(R"yaml(
name: shared
inputs: {X: [8, 8], W: [8, 8], V: [8, 8]}
nodes:
  - {name: A, einsum: "ij,jk->ik", inputs: [X, W]}
  - {name: B, einsum: "jk,ik->ij", inputs: [)yaml") + second + R"yaml(, A]}
outputs: [B]
)yaml",
                         "shared.yaml", GraphFormat::Yaml);
  };
  const Graph shared = graph("W"), apart = graph("V");
  struct Case {
    std::vector<Parts> parts;  // labels i j k / j k i
    std::vector<int64_t> peak;  // of `shared`
    int64_t saved;              // apart's resident bytes less shared's, per rank
    const char* why;
  };
  const Case cases[] = {
      // p = 1: X, W once (512), B (256), A during both steps (256).
      {{{1, 1, 1}, {1, 1, 1}}, {1024}, 256, "W whole, read by A and B in the same grid: held once"},
      // p = 2, A by rows (i), B by rows of its output (i): each rank reads all of W in both
      // (256, once), X half (128), A half in place for B (128), B half (128).
      {{{2, 1, 1}, {1, 1, 2}}, {640, 640}, 256, "W whole in both nodes' one-block grid: held once"},
      // p = 2, A by k (W's columns), B by i: A reads half of W's columns (128), B all of W
      // (256): two grids, both held.
      {{{1, 1, 2}, {1, 1, 2}}, {}, 0, "W by columns for A and whole for B: held in both grids"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.why);
    const int64_t p = c.parts[0][0] * c.parts[0][1] * c.parts[0][2];
    const PlanCost one = priced(shared, p, c.parts), two = priced(apart, p, c.parts);
    if (!c.peak.empty()) CHECK(one.memory.peakBytesPerRank == c.peak);
    for (int64_t r = 0; r < p; ++r)
      CHECK(two.memory.residentBytesPerRank.at(static_cast<std::size_t>(r)) -
                one.memory.residentBytesPerRank.at(static_cast<std::size_t>(r)) == c.saved);
  }
}

TEST_CASE("output copies: nearby readers of a node output in one grid share its received copy, far ones receive again") {
  // f32, 8 x 8 tensors of 256 bytes, p = 2. A is cut by rows, B, C and E by columns: each
  // reads all of A, receiving the other rank's half (128 B a rank, 256 B in all). C comes
  // right after B and reads B's copy (einrt's rule, einrt/model/program_model.h); E comes
  // kCopyReach + 2 nodes after C and receives its own. The fillers are in place.
  std::string text = R"yaml(
name: copies
inputs: {X: [8, 8], W: [8, 8], U: [8, 8]}
nodes:
  - {name: A, einsum: "ij,jk->ik", inputs: [X, W]}
  - {name: B, einsum: "ik,kl->il", inputs: [A, U]}
  - {name: C, einsum: "ik,kl->il", inputs: [A, U]}
  - {name: F0, einsum: "il,il->il", inputs: [B, C], join: "x + y"}
)yaml";
  const int fillers = einrt::model::kCopyReach + 1;
  for (int f = 1; f < fillers; ++f)
    text += "  - {name: F" + std::to_string(f) + ", einsum: \"il,il->il\", inputs: [F" + std::to_string(f - 1) + ", B], join: \"x + y\"}\n";
  text += "  - {name: E, einsum: \"ik,kl->il\", inputs: [A, U]}\noutputs: [E, F" + std::to_string(fillers - 1) + "]\n";
  const Graph g = loadGraphText(text, "copies.yaml", GraphFormat::Yaml);
  std::vector<Parts> parts{{2, 1, 1}, {1, 1, 2}, {1, 1, 2}};
  for (int f = 0; f < fillers; ++f) parts.push_back({1, 2});
  parts.push_back({1, 1, 2});
  const Plan plan = makePlan(g, 2, "by hand", parts, placeNodes(g, parts, PlacementRule::Canonical, {}, 2));
  const PlanCost cost = costPlan(g, plan, std::nullopt);
  for (std::size_t e = 0; e < plan.edges.size(); ++e) {
    const PlanEdge& edge = plan.edges[e];
    CAPTURE(edge.from);
    CAPTURE(edge.to);
    if (edge.from != "A") {
      CHECK(cost.edges[e].trafficBytes == 0);  // in place
      continue;
    }
    if (edge.to == "C") {
      CHECK(cost.edges[e].readsCopyOf == 1);  // B's
      CHECK(cost.edges[e].trafficBytes == 0);
    } else {
      CHECK(cost.edges[e].readsCopyOf == -1);
      CHECK(cost.edges[e].trafficBytes == 256);
    }
  }
  CHECK(cost.trafficBytes == 512);
}

TEST_CASE("partials reduced at read: a row-cut reader of a k-cut product receives the partial sums reduced, worked by hand") {
  // f32, 8 x 8 tensors of 256 bytes, p = 2. A = X W is cut along j (its aggregated label):
  // both ranks hold a partial of its one block, owned by rank 0. B = A + Y is cut by rows.
  // Aggregated onto the owner, rank 1 sends its 256 B, then rank 0 sends rows 4..7 (128 B)
  // to rank 1: 384 B. Reduced at B's read, each rank receives the other's partial of its
  // rows: 128 B each, 256 B, and no rank's busiest load or messages grow (einrt's rule).
  const Graph g = loadGraphText(R"yaml(
name: reduced
inputs: {X: [8, 8], W: [8, 8], Y: [8, 8]}
nodes:
  - {name: A, einsum: "ij,jk->ik", inputs: [X, W]}
  - {name: B, einsum: "ik,ik->ik", inputs: [A, Y], join: add}
outputs: [B]
)yaml", "reduced.yaml", GraphFormat::Yaml);
  const std::vector<Parts> parts{{1, 2, 1}, {2, 1}};
  const PlanCost reduced = priced(g, 2, parts);
  CHECK(reduced.nodes[0].reducedAtReadBy == 1);
  CHECK(reduced.nodes[0].trafficAggBytes == 0);
  REQUIRE(reduced.edges.size() == 1);
  CHECK(reduced.edges[0].reducesPartials);
  CHECK(reduced.edges[0].trafficBytes == 256);
  CHECK(reduced.trafficBytes == 256);
  const PlanCost owners = priced(g, 2, parts, true);
  CHECK(owners.nodes[0].reducedAtReadBy == -1);
  CHECK(owners.nodes[0].trafficAggBytes == 256);
  CHECK(!owners.edges[0].reducesPartials);
  CHECK(owners.edges[0].trafficBytes == 128);
  // Memory, past the staging both reserve for the whole run: resident X, W and Y halves and
  // B's output half, 512 B a rank. On owners, A's step holds both partials and rank 0's
  // owned block (1024 B on rank 0); reduced, each rank's partial only, kept through B's
  // step beside its received 128 B copy (896 B on each).
  const auto staging = [](const PlanCost& c, int r) { return c.memory.stagingSendBytesPerRank[r] + c.memory.stagingRecvBytesPerRank[r]; };
  for (int r = 0; r < 2; ++r) {
    CAPTURE(r);
    CHECK(reduced.memory.residentBytesPerRank[r] - owners.memory.residentBytesPerRank[r] == staging(reduced, r) - staging(owners, r));
  }
  CHECK(owners.memory.peakBytesPerRank[0] - staging(owners, 0) == 1024);
  CHECK(owners.memory.peakBytesPerRank[1] - staging(owners, 1) == 768);
  CHECK(reduced.memory.peakBytesPerRank[0] - staging(reduced, 0) == 896);
  CHECK(reduced.memory.peakBytesPerRank[1] - staging(reduced, 1) == 896);
}

TEST_CASE("--mem-limit: eindecomp fits where a brute force finds a plan that fits; the gap is printed") {
  const int64_t counts[] = {2, 3, 4};
  int checked = 0, equal = 0;
  double gapSum = 0;
  for (int trial = 0; trial < 80; ++trial) {
    const unsigned seed = 4000 + static_cast<unsigned>(trial);
    RandomGraphs random{std::mt19937(seed), 0, {}};
    const Graph g = random.make(3 + trial % 2, trial % 4 >= 2);
    const int64_t p = counts[trial % 3];
    INFO("seed " << seed << " p " << p);
    std::vector<std::vector<Partition>> options;
    double combinations = 1;
    for (const Node& n : g.nodes) {
      options.push_back(oraclePartitions(nodeSpace(n).sizes, p));
      combinations *= static_cast<double>(options.back().size());
    }
    if (combinations > 3000) continue;
    // Every combination priced exactly, each aggregation onto its owners as the search
    // prices (eindecomp may also reduce partials at their reader where that is lower).
    std::vector<std::pair<int64_t, int64_t>> plans;  // (peak, traffic)
    std::vector<std::size_t> index(g.nodes.size(), 0);
    for (;;) {
      std::vector<Parts> parts;
      for (std::size_t v = 0; v < index.size(); ++v) parts.push_back(options[v][index[v]]);
      const PlanCost c = priced(g, p, parts, true);
      plans.emplace_back(c.peakBytesPerDevice, c.trafficBytes);
      std::size_t v = 0;
      for (; v < index.size(); ++v) {
        if (++index[v] < options[v].size()) break;
        index[v] = 0;
      }
      if (v == index.size()) break;
    }
    PlanOptions o;
    o.devices = p;
    const int64_t freePeak = priced(g, p, [&] {
                               std::vector<Parts> parts;
                               for (const auto& np : planGraph("eindecomp", g, o).nodes) parts.push_back(np.parts);
                               return parts;
                             }()).peakBytesPerDevice;
    int64_t smallest = INT64_MAX;
    for (const auto& [peak, traffic] : plans) smallest = std::min(smallest, peak);
    if (smallest >= freePeak) continue;
    const int64_t limit = smallest + (freePeak - smallest) / 2;
    int64_t best = INT64_MAX;
    for (const auto& [peak, traffic] : plans)
      if (peak <= limit) best = std::min(best, traffic);
    o.memLimitBytes = limit;
    const Plan plan = planGraph("eindecomp", g, o);
    const PlanCost mine = costPlan(g, plan, std::nullopt);
    CHECK(mine.peakBytesPerDevice <= limit);
    ++checked;
    equal += mine.trafficBytes <= best;
    gapSum += best > 0 ? static_cast<double>(mine.trafficBytes) / static_cast<double>(best) : (mine.trafficBytes == 0 ? 1.0 : 2.0);
  }
  std::printf("--mem-limit vs brute force: %d graphs, eindecomp as cheap as the best fitting plan on %d, mean traffic ratio %.3f\n",
              checked, equal, checked ? gapSum / checked : 1.0);
  CHECK(checked >= 5);
}

TEST_CASE("recompute: the graph with a node computed again is the graph with the copy written by hand") {
  // A is read by B at once and by D at the end: computed again just before D, the copy is
  // the node A_again, which D reads. f32, 8 x 8 tensors.
  const std::string head = R"yaml(
name: chain
inputs: {X: [8, 8], W: [8, 8]}
nodes:
  - {name: A, einsum: "ij,jk->ik", inputs: [X, W]}
  - {name: B, einsum: "ij,jk->ik", inputs: [A, W]}
  - {name: C, einsum: "ij,jk->ik", inputs: [B, W]}
  - {name: E, einsum: "ij,jk->ik", inputs: [C, W]}
)yaml";
  const Graph g = loadGraphText(head + R"yaml(  - {name: D, einsum: "ij,ij->ij", join: add, inputs: [E, A]}
)yaml", "chain.yaml", GraphFormat::Yaml);
  const Graph byHand = loadGraphText(head + R"yaml(  - {name: A_again, einsum: "ij,jk->ik", inputs: [X, W]}
  - {name: D, einsum: "ij,ij->ij", join: add, inputs: [E, A_again]}
)yaml", "by_hand.yaml", GraphFormat::Yaml);
  const Graph r = withRecompute(g, {{"A", "D", {}}});
  REQUIRE(r.nodes.size() == byHand.nodes.size());
  for (std::size_t i = 0; i < r.nodes.size(); ++i) {
    CHECK(r.nodes[i].name == byHand.nodes[i].name);
    CHECK(r.nodes[i].inputs == byHand.nodes[i].inputs);
    CHECK(r.nodes[i].einsum == byHand.nodes[i].einsum);
  }
  CHECK(r.outputs == byHand.outputs);
  for (const int64_t p : {1, 2, 3, 4}) {
    PlanOptions o;
    o.devices = p;
    const Plan a = planGraph("eindecomp", r, o), b = planGraph("eindecomp", byHand, o);
    const PlanCost ca = costPlan(r, a, std::nullopt), cb = costPlan(byHand, b, std::nullopt);
    CHECK(ca.memory.peakBytesPerRank == cb.memory.peakBytesPerRank);
    CHECK(ca.memory.nodeLiveBytes == cb.memory.nodeLiveBytes);
    CHECK(ca.trafficBytes == cb.trafficBytes);
  }
  CHECK(recomputedName(r, "A") == "A_again2");
  // What the entries may name.
  auto refused = [&](const Recompute& e) {
    try {
      (void)withRecompute(g, {e});
    } catch (const InputError& err) {
      return err.diagnostic().message;
    }
    return std::string();
  };
  CHECK(refused({"Q", "D", {}}).find("'Q' is not a node") != std::string::npos);
  CHECK(refused({"A", "C", {}}).find("'C' is not a node that reads 'A'") != std::string::npos);
  CHECK(refused({"D", "D", {}}).find("graph output") != std::string::npos);
}

TEST_CASE("shard at rest: the graph with an input sharded is the graph with its copies written by hand") {
  // W is read by two contractions (each gets its own copy, made just before it) and by an
  // update that reads it pointwise (which keeps reading W). f32, 8 x 8 tensors.
  const Graph g = loadGraphText(R"yaml(
name: step
inputs: {X: [8, 8], W: [8, 8], v: [8]}
nodes:
  - {name: A, einsum: "ij,jk->ik", inputs: [X, W]}
  - {name: B, einsum: "ij,kj->ik", inputs: [A, W]}
  - {name: U, einsum: "ij,ij->ij", join: "x - 0.5 * y", inputs: [W, B]}
  - {name: C, einsum: "ij,j->ij", inputs: [B, v]}
outputs: [U, C]
)yaml",
                                "step.yaml", GraphFormat::Yaml);
  const Graph byHand = loadGraphText(R"yaml(
name: step
inputs: {X: [8, 8], W: [8, 8], v: [8]}
nodes:
  - {name: W_fetched, einsum: "d0 d1 -> d0 d1", inputs: [W]}
  - {name: A, einsum: "ij,jk->ik", inputs: [X, W_fetched]}
  - {name: W_fetched_2, einsum: "d0 d1 -> d0 d1", inputs: [W]}
  - {name: B, einsum: "ij,kj->ik", inputs: [A, W_fetched_2]}
  - {name: U, einsum: "ij,ij->ij", join: "x - 0.5 * y", inputs: [W, B]}
  - {name: C, einsum: "ij,j->ij", inputs: [B, v]}
outputs: [U, C]
)yaml",
                                     "by_hand.yaml", GraphFormat::Yaml);
  CHECK(shardableInputs(g) == std::vector<std::string>{"X", "W", "v"});
  const Graph s = withInputsShardedAtRest(g, {{"W", {}}});
  REQUIRE(s.nodes.size() == byHand.nodes.size());
  for (std::size_t i = 0; i < s.nodes.size(); ++i) {
    CHECK(s.nodes[i].name == byHand.nodes[i].name);
    CHECK(s.nodes[i].inputs == byHand.nodes[i].inputs);
    CHECK(s.nodes[i].operandLabels == byHand.nodes[i].operandLabels);
    CHECK(s.nodes[i].outputLabels == byHand.nodes[i].outputLabels);
  }
  CHECK(s.outputs == byHand.outputs);
  for (const int64_t p : {1, 2, 3, 4}) {
    PlanOptions o;
    o.devices = p;
    const Plan a = planGraph("eindecomp", s, o), b = planGraph("eindecomp", byHand, o);
    const PlanCost ca = costPlan(s, a, std::nullopt), cb = costPlan(byHand, b, std::nullopt);
    CHECK(ca.memory.peakBytesPerRank == cb.memory.peakBytesPerRank);
    CHECK(ca.trafficBytes == cb.trafficBytes);
  }
  // By hand at p = 2, A and B cut by rows (i:2) read W whole: as written W is resident
  // twice whole (512 B) and half for U (128 B); sharded, each copy cut by rows keeps a
  // half (128 B), and the gathered copy lives only through its reader's step (at this
  // size the gathers' staging buffers, resident too, outweigh the saving).
  const std::vector<Parts> rows{{2, 1, 1}, {2, 1, 1}, {2, 1}, {2, 1}};
  const std::vector<Parts> rowsSharded{{2, 1}, {2, 1, 1}, {2, 1}, {2, 1, 1}, {2, 1}, {2, 1}};
  const PlanCost asWritten = priced(g, 2, rows), sharded = priced(s, 2, rowsSharded);
  auto inputBytes = [](const PlanCost& c) {
    int64_t sum = 0;
    for (int64_t b : c.memory.nodeResidentInputBytes) sum += b;
    return sum;
  };
  CHECK(inputBytes(asWritten) == 128 + 2 * 256 + 128 + 32);  // X's half, W twice whole and half, v
  CHECK(inputBytes(sharded) == 128 + 3 * 128 + 32);
  CHECK(asWritten.trafficBytes == 0);
  CHECK(sharded.trafficBytes == 2 * 256);  // each copy gathered: every rank receives the other half
  auto refused = [&](const std::string& input) {
    try {
      (void)withInputsShardedAtRest(g, {{input, {}}});
    } catch (const InputError& err) {
      return err.diagnostic().message;
    }
    return std::string();
  };
  CHECK(refused("Q").find("'Q' is not an input") != std::string::npos);
  CHECK(refused("A").find("'A' is not an input") != std::string::npos);
  try {
    (void)withInputsShardedAtRest(g, {{"W", {}}, {"W", {}}});
    FAIL("W given twice was accepted");
  } catch (const InputError& err) {
    CHECK(std::string(err.diagnostic().message).find("given twice") != std::string::npos);
  }
}

TEST_CASE("--mem-limit: the search's own pricing of the plan it returns equals a fresh pricing (one node and a cluster)") {
  // planGraph hands back the cost it priced the returned plan at (PlanOptions::returnedCost)
  // so that the report need not price it again; on a cluster the flat plan is priced on its
  // own thread. Either way the figures must be costPlan's for that plan, rank by rank.
  Machine cluster;
  cluster.latencySeconds = 3e-6, cluster.bandwidthBytesPerSecond = 300e9, cluster.flopsPerSecond = 1e12;
  cluster.ranksPerNode = 2;
  cluster.interNodeLatencySeconds = 6e-6, cluster.interNodeBandwidthBytesPerSecond = 25e9;
  Machine oneNode = cluster;
  oneNode.ranksPerNode.reset();
  int handedBack = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const unsigned seed = 7100 + static_cast<unsigned>(trial);
    RandomGraphs random{std::mt19937(seed), 0, {}};
    const Graph g = random.make(3 + trial % 3, trial % 2 == 1);
    const Machine& machine = trial % 2 == 0 ? cluster : oneNode;
    INFO("seed " << seed);
    PlanOptions o;
    o.devices = 4;
    o.machine = machine;
    o.objective = trial % 4 < 2 ? Objective::Time : Objective::Traffic;
    o.returnedCost = std::make_shared<std::optional<PlanCost>>();
    const PlanCost free = costPlan(g, planGraph("eindecomp", g, o), machine);
    CHECK_FALSE(o.returnedCost->has_value());  // without --mem-limit the search prices no memory
    o.memLimitBytes = free.peakBytesPerDevice;  // the unconstrained plan fits: no penalty search
    if (trial % 3 == 0) o.memLimitBytes = free.peakBytesPerDevice - free.peakBytesPerDevice / 8;
    Plan plan;
    try {
      plan = planGraph("eindecomp", g, o);
    } catch (const InputError& e) {
      CHECK(e.exitCode() == kExitNoPlan);
      continue;
    }
    REQUIRE(o.returnedCost->has_value());
    const PlanCost& searched = **o.returnedCost;
    const PlanCost fresh = costPlan(g, plan, machine, MemoryDetail::Peak);
    CHECK(searched.peakBytesPerDevice == fresh.peakBytesPerDevice);
    CHECK(searched.memory.peakBytesPerRank == fresh.memory.peakBytesPerRank);
    CHECK(searched.trafficBytes == fresh.trafficBytes);
    CHECK(searched.interNodeBytes == fresh.interNodeBytes);
    CHECK(searched.timePs == fresh.timePs);
    CHECK(searched.paper == fresh.paper);
    REQUIRE(searched.nodes.size() == fresh.nodes.size());
    for (std::size_t i = 0; i < fresh.nodes.size(); ++i) CHECK(searched.nodes[i].trafficBytes == fresh.nodes[i].trafficBytes);
    ++handedBack;
  }
  CHECK(handedBack >= 12);
}
