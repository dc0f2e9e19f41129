// Lowering (codegen/lower) executes the plan as written: the placement, the predicted
// bytes and the FLOPs come from the plan and its cost, node by node; identifiers are
// checked; hostile names never reach the emitted code.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "codegen/lower/identifiers.h"
#include "codegen/lower/lower.h"
#include "planner/algorithms/planning.h"
#include "planner/cost/plan_cost.h"
#include "planner/graph/load.h"

using namespace eindecomp;
using namespace eindecomp::codegen;

TEST_CASE("identifiers: the SPEC 1 rule, internal names and deterministic C++ names") {
  const struct {
    const char* name;
    bool identifier, internal;
  } cases[] = {{"A", true, true},          {"_x9", true, true},        {"9a", false, false},   {"a-b", false, false},
               {"a\"b", false, false},     {"a;b", false, false},      {"a\nb", false, false}, {"#include", false, false},
               {"", false, false},         {"AB.1", false, true},      {"AB.1.2", false, true}, {"AB.", false, false},
               {"AB.x", false, false},     {".1", false, false}};
  for (const auto& c : cases) {
    CAPTURE(c.name);
    CHECK(isValidIdentifier(c.name) == c.identifier);
    CHECK(isValidInternalName(c.name) == c.internal);
  }
  CHECK(isValidIdentifier(std::string(64, 'a')));
  CHECK_FALSE(isValidIdentifier(std::string(65, 'a')));
  CHECK(cppIdentifier(3, "AB.1") == "t3_AB_1");
  CHECK(cppIdentifier(4, "AB_1") == "t4_AB_1");
  CHECK(commentSafe("a\nb\r*/") == "a?b?*/");
}

namespace {

const char* kChain = R"(
name: chain
inputs: {A: [12, 8], B: [8, 6], C: [6, 12]}
nodes:
  - {name: AB, einsum: "ij,jk->ik", inputs: [A, B]}
  - {name: ABC, einsum: "ik,kl->il", inputs: [AB, C]}
  - {name: M, einsum: "il->l", agg: max, inputs: [ABC]}
  - {name: D, einsum: "il,l->il", join: "x - y", inputs: [ABC, M]}
  - {name: T, einsum: "il,ik->lk", inputs: [D, AB]}
)";


}  // namespace

TEST_CASE("lowering takes placement, traffic and FLOPs from the plan as written") {
  const Graph g = loadGraphText(kChain, "test.yaml", GraphFormat::Yaml);
  for (int64_t devices : {1, 2, 3, 4, 6, 8}) {
    PlanOptions options;
    options.devices = devices;
    const Plan plan = planGraph("eindecomp", g, options);
    const PlanCost cost = costPlan(g, plan, std::nullopt);
    const RankProgram rp = lowerPlan(g, plan, cost);
    REQUIRE(rp.nodes.size() == plan.nodes.size());
    CHECK(rp.devices == devices);
    CHECK(rp.bytesPredicted == cost.trafficBytes);
    for (std::size_t i = 0; i < rp.nodes.size(); ++i) {
      CAPTURE(rp.nodes[i].name);
      CHECK(rp.nodes[i].callRank == plan.nodes[i].placement.callRank);
      CHECK(rp.nodes[i].blockOwner == plan.nodes[i].placement.blockOwner);
      CHECK(rp.nodes[i].parts == plan.nodes[i].parts);
      CHECK(rp.nodes[i].bytesPredicted == cost.nodes[i].trafficBytes);
      CHECK(rp.nodes[i].flops == cost.nodes[i].flops);
    }
  }
}

TEST_CASE("hostile names are rejected before lowering") {
  Graph g = loadGraphText(kChain, "test.yaml", GraphFormat::Yaml);
  for (const std::string& bad : std::vector<std::string>{"x\"; system(\"rm\"); //", "a\nb", "#include <x>", std::string(80, 'n'), "a b"}) {
    Graph h = g;
    h.nodes[0].name = bad;
    CHECK_THROWS_AS(validateGraphForCodegen(h), InputError);
    h = g;
    h.name = bad;
    CHECK_THROWS_AS(validateGraphForCodegen(h), InputError);
    h = g;
    h.inputs[0].name = bad;
    CHECK_THROWS_AS(validateGraphForCodegen(h), InputError);
  }
  CHECK_NOTHROW(validateGraphForCodegen(g));
}
