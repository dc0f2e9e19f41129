// Fusion (codegen/kernels/fusion.h): which consecutive elementwise nodes run as one pass.
// Checked on a softmax whose plans are built by hand, against the rules stated there:
// members need no communication (their partition cuts only group dimensions, every group
// block runs on one rank), a scratch output is read by later members alone.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "codegen/lower/lower.h"
#include "planner/algorithms/planning.h"
#include "planner/cost/plan_cost.h"
#include "planner/graph/load.h"
#include "planner/placement/plan.h"

using namespace eindecomp;
using namespace eindecomp::codegen;

namespace {

// Iteration labels of masked/sexp/probs: b h s t; of smax/ssum: b h s t (t aggregated).
const char* kSoftmax = R"yaml(
name: softmax
inputs: {S: [2, 3, 4, 8], mask: [4, 8], V: [8, 5]}
nodes:
  - {name: masked, einsum: "bhst,st->bhst", join: "x * 0.125 + y", inputs: [S, mask]}
  - {name: smax, einsum: "bhst->bhs", agg: max, inputs: [masked]}
  - {name: sexp, einsum: "bhst,bhs->bhst", join: "exp(x - y)", inputs: [masked, smax]}
  - {name: ssum, einsum: "bhst->bhs", inputs: [sexp]}
  - {name: probs, einsum: "bhst,bhs->bhst", join: "x / y", inputs: [sexp, ssum]}
  - {name: out, einsum: "bhst,tu->bhsu", inputs: [probs, V]}
outputs: [out, ssum]
)yaml";

RankProgram lowered(const Graph& g, int64_t devices, const Parts& softmaxParts) {
  std::vector<Parts> parts;
  for (const Node& n : g.nodes) {
    if (n.name == "out") parts.push_back({1, 1, 1, 1, 1});
    else parts.push_back(softmaxParts);
  }
  const std::vector<Placement> placements = placeNodes(g, parts, PlacementRule::Canonical, {}, devices);
  const Plan plan = makePlan(g, devices, "by hand", parts, placements);
  return lowerPlan(g, plan, costPlan(g, plan, std::nullopt));
}

Graph softmaxGraph() { return loadGraphText(kSoftmax, "softmax.yaml", GraphFormat::Yaml); }

}  // namespace

TEST_CASE("fusion: softmax runs as one group; outputs read outside stay whole") {
  const Graph g = softmaxGraph();
  for (const Parts& parts : std::vector<Parts>{{1, 1, 1, 1}, {2, 1, 1, 1}, {1, 3, 1, 1}, {2, 3, 1, 1}, {1, 1, 4, 1}}) {
    int64_t devices = 1;
    for (int64_t p : parts) devices *= p;
    CAPTURE(devices);
    const RankProgram rp = lowered(g, devices, parts);
    for (std::size_t i = 0; i < 5; ++i) {
      CAPTURE(rp.nodes[i].name);
      CHECK(rp.nodes[i].fusion.group == 0);
      CHECK(rp.nodes[i].fusion.tileDims == 3);
      CHECK(rp.nodes[i].choice.kind == "fused elementwise");
    }
    // masked, smax, sexp are read by members only; ssum is a graph output; probs is read by out.
    CHECK(rp.model.nodes[0].scratch);
    CHECK(rp.model.nodes[1].scratch);
    CHECK(rp.model.nodes[2].scratch);
    CHECK_FALSE(rp.model.nodes[3].scratch);
    CHECK_FALSE(rp.model.nodes[4].scratch);
    CHECK(rp.nodes[5].fusion.group == -1);  // a GEMM
    CHECK(rp.nodes[5].choice.kind != "fused elementwise");
    CHECK(rp.nodes[0].choice.why.find("output kept in tiles only") != std::string::npos);
    CHECK(rp.nodes[4].choice.why.find("output kept in tiles only") == std::string::npos);
  }
}

TEST_CASE("fusion: a cut of the reduced label means communication, so nothing fuses") {
  const Graph g = softmaxGraph();
  // t in 2 parts: smax and ssum aggregate partial results between ranks.
  const RankProgram rp = lowered(g, 2, {1, 1, 1, 2});
  for (const NodeProgram& n : rp.nodes) {
    CAPTURE(n.name);
    CHECK(n.fusion.group == -1);
    CHECK(n.choice.kind != "fused elementwise");
  }
}

TEST_CASE("fusion: members must run each group block on the same rank") {
  const Graph g = softmaxGraph();
  std::vector<Parts> parts(6, Parts{2, 1, 1, 1});
  parts[5] = {1, 1, 1, 1, 1};
  std::vector<Placement> placements = placeNodes(g, parts, PlacementRule::Canonical, {}, 2);
  // sexp's two calls swap ranks: it would read masked and smax from the other rank.
  std::swap(placements[2].callRank[0], placements[2].callRank[1]);
  std::swap(placements[2].blockOwner[0], placements[2].blockOwner[1]);
  const Plan plan = makePlan(g, 2, "by hand", parts, placements);
  const RankProgram rp = lowerPlan(g, plan, costPlan(g, plan, std::nullopt));
  // masked and smax still fuse, and so do ssum and probs; sexp, between them, runs alone.
  CHECK(rp.nodes[0].fusion.group == 0);
  CHECK(rp.nodes[1].fusion.group == 0);
  CHECK(rp.nodes[2].fusion.group == -1);
  CHECK(rp.nodes[3].fusion.group == 1);
  CHECK(rp.nodes[4].fusion.group == 1);
  CHECK_FALSE(rp.model.nodes[0].scratch);  // read by sexp, outside the group
  CHECK_FALSE(rp.model.nodes[1].scratch);
}

TEST_CASE("fusion: every planned softmax at p = 1..8 keeps members free of communication") {
  const Graph g = softmaxGraph();
  for (int64_t devices : {1, 2, 3, 4, 6, 8}) {
    CAPTURE(devices);
    PlanOptions options;
    options.devices = devices;
    const Plan plan = planGraph("eindecomp", g, options);
    const PlanCost cost = costPlan(g, plan, std::nullopt);
    const RankProgram rp = lowerPlan(g, plan, cost);
    for (std::size_t i = 0; i < rp.nodes.size(); ++i) {
      const NodeProgram& n = rp.nodes[i];
      if (n.fusion.group < 0) continue;
      CAPTURE(n.name);
      // No traffic into a member from another member: a member's predicted bytes come
      // from its operands produced outside the group only.
      bool externalOperand = false;
      for (int tensor : n.operandTensor) {
        const int producer = rp.tensors[static_cast<std::size_t>(tensor)].producer;
        externalOperand = externalOperand || producer < 0 || rp.nodes[static_cast<std::size_t>(producer)].fusion.group != n.fusion.group;
      }
      if (!externalOperand) CHECK(cost.nodes[i].trafficBytes == 0);
      // Only group dimensions are cut.
      for (std::size_t l = 0; l < n.parts.size(); ++l) {
        bool group = false;
        for (int q = 0; q < n.fusion.tileDims; ++q) group = group || n.outputLabels[static_cast<std::size_t>(q)] == static_cast<int>(l);
        if (!group) CHECK(n.parts[l] == 1);
      }
    }
  }
}
