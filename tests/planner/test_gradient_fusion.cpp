// Gradient accumulation fusion as a plan's rewrite (planner/graph/gradient_fusion.h):
//  - the rewritten graph is the graph written by hand with the widening contraction, and
//    plans of the two cost alike at p = 1..4 (traffic, peaks);
//  - the planner's choice (gradientCastsToFuse) skips a gradient whose labels make no GEMM;
//  - what an entry may name: each refusal names the entry.
#include <doctest/doctest.h>

#include <string>

#include "planner/algorithms/planning.h"
#include "planner/algorithms/strategies.h"
#include "planner/cost/plan_cost.h"
#include "planner/graph/gradient_fusion.h"
#include "planner/graph/load.h"
#include "planner/graph/tensor_types.h"

using namespace eindecomp;

namespace {

// A bf16 step with an f32 master weight W: its cast Wb, a forward product, the weight
// gradient dWb (a GEMM over b) and its cast back grad_W, which the update reads; and a
// scale s whose gradient ds is a Hadamard product (no label aggregated: no GEMM), cast
// back too.
const std::string kHead = R"yaml(
name: step
dtype: bf16
inputs:
  - {name: W, shape: [8, 4], dtype: f32}
  - {name: s, shape: [4], dtype: f32}
  - {name: X, shape: [6, 8]}
  - {name: dY, shape: [6, 4]}
nodes:
  - {name: Wb, einsum: "ij->ij", inputs: [W], cast: bf16}
  - {name: sb, einsum: "j->j", inputs: [s], cast: bf16}
  - {name: Y, einsum: "bi,ij->bj", inputs: [X, Wb]}
  - {name: Z, einsum: "bj,j->bj", inputs: [Y, sb]}
)yaml";

const std::string kUpdates = R"yaml(  - {name: W_next, einsum: "ij,ij->ij", join: "x - 0.5 * y", inputs: [W, grad_W]}
  - {name: s_next, einsum: "j,j->j", join: "x - 0.5 * y", inputs: [s, grad_s]}
outputs: [Z, W_next, s_next]
)yaml";

Graph unfused() {
  return loadGraphText(kHead + R"yaml(  - {name: dWb, einsum: "bi,bj->ij", inputs: [X, dY]}
  - {name: grad_W, einsum: "ij->ij", inputs: [dWb], cast: f32}
  - {name: ds, einsum: "j,j->j", inputs: [sb, sb]}
  - {name: grad_s, einsum: "j->j", inputs: [ds], cast: f32}
)yaml" + kUpdates, "unfused.yaml", GraphFormat::Yaml);
}

std::string refusal(const Graph& g, const std::vector<FusedGradientCast>& entries) {
  try {
    (void)withFusedGradientCasts(g, entries);
  } catch (const InputError& e) {
    return e.diagnostic().message;
  }
  return {};
}

}  // namespace

TEST_CASE("gradient fusion: the rewritten graph is the widening contraction written by hand, and plans cost alike") {
  const Graph g = unfused();
  const Graph byHand = loadGraphText(kHead + R"yaml(  - {name: grad_W, einsum: "bi,bj->ij", inputs: [X, dY], cast: f32}
  - {name: ds, einsum: "j,j->j", inputs: [sb, sb]}
  - {name: grad_s, einsum: "j->j", inputs: [ds], cast: f32}
)yaml" + kUpdates, "by_hand.yaml", GraphFormat::Yaml);
  const Graph r = withFusedGradientCasts(g, {{"grad_W", {}}});
  REQUIRE(r.nodes.size() == byHand.nodes.size());
  // The widened contraction keeps its cast's output file shape (NAME.npy).
  Graph shaped = g;
  for (Node& n : shaped.nodes)
    if (n.name == "grad_W") n.fileShape = {32};
  CHECK(findNode(withFusedGradientCasts(shaped, {{"grad_W", {}}}), "grad_W")->fileShape == std::vector<int64_t>{32});
  for (std::size_t i = 0; i < r.nodes.size(); ++i) {
    CHECK(r.nodes[i].name == byHand.nodes[i].name);
    CHECK(r.nodes[i].inputs == byHand.nodes[i].inputs);
    CHECK(r.nodes[i].einsum == byHand.nodes[i].einsum);
    CHECK(r.nodes[i].castTo == byHand.nodes[i].castTo);
  }
  CHECK(nodeOutputTypes(r) == nodeOutputTypes(byHand));
  CHECK(r.outputs == byHand.outputs);
  for (const int64_t p : {1, 2, 3, 4}) {
    PlanOptions o;
    o.devices = p;
    const Plan a = planGraph("eindecomp", r, o), b = planGraph("eindecomp", byHand, o);
    const PlanCost ca = costPlan(r, a, std::nullopt), cb = costPlan(byHand, b, std::nullopt);
    CHECK(ca.memory.peakBytesPerRank == cb.memory.peakBytesPerRank);
    CHECK(ca.trafficBytes == cb.trafficBytes);
  }
}

TEST_CASE("gradient fusion: the planner fuses the casts of GEMM gradients only") {
  const std::vector<FusedGradientCast> chosen = gradientCastsToFuse(unfused());
  REQUIRE(chosen.size() == 1);
  CHECK(chosen[0].cast == "grad_W");  // ds (j,j->j) makes no GEMM: its cast stays
  // The rewrite itself accepts ds's cast (its form is a widening contraction's); the GEMM
  // shape is the program tables' check (exit 2 at plan time).
  CHECK(refusal(unfused(), {{"grad_s", {}}}).empty());
}

TEST_CASE("gradient fusion: what an entry may name") {
  const Graph g = unfused();
  CHECK(refusal(g, {{"nope", {}}}).find("'nope' is not a node of the graph") != std::string::npos);
  CHECK(refusal(g, {{"Y", {}}}).find("is not a cast to f32") != std::string::npos);
  CHECK(refusal(g, {{"Wb", {}}}).find("is not a cast to f32") != std::string::npos);  // a cast to bf16
  CHECK(refusal(g, {{"grad_W", {}}, {"grad_W", {}}}).find("given twice") != std::string::npos);
  // The contraction read by another node too, a cast of an input, a graph output.
  const Graph shared = loadGraphText(kHead + R"yaml(  - {name: dWb, einsum: "bi,bj->ij", inputs: [X, dY]}
  - {name: grad_W, einsum: "ij->ij", inputs: [dWb], cast: f32}
  - {name: grad_s, einsum: "j->j", inputs: [s], cast: f32}
  - {name: other, einsum: "ij->ij", inputs: [dWb]}
  - {name: W_next, einsum: "ij,ij->ij", join: "x - 0.5 * y", inputs: [W, grad_W]}
outputs: [Z, W_next, other]
)yaml",
                                     "shared.yaml", GraphFormat::Yaml);
  CHECK(refusal(shared, {{"grad_W", {}}}).find("which other nodes read too") != std::string::npos);
  CHECK(refusal(shared, {{"grad_s", {}}}).find("casts a graph input") != std::string::npos);
  const Graph output = loadGraphText(kHead + R"yaml(  - {name: dWb, einsum: "bi,bj->ij", inputs: [X, dY]}
  - {name: grad_W, einsum: "ij->ij", inputs: [dWb], cast: f32}
  - {name: grad_s, einsum: "j->j", inputs: [s], cast: f32}
  - {name: W_next, einsum: "ij,ij->ij", join: "x - 0.5 * y", inputs: [W, grad_W]}
outputs: [Z, W_next, dWb]
)yaml",
                                     "output.yaml", GraphFormat::Yaml);
  CHECK(refusal(output, {{"grad_W", {}}}).find("a graph output") != std::string::npos);
  // A gradient the micro-batches accumulate itself (its cast runs once, on the sum): the
  // rewrite would take away the name `accumulate` gives, so the planner leaves it.
  const std::string summed = kHead + R"yaml(  - {name: dWb, einsum: "bi,bj->ij", inputs: [X, dY]}
  - {name: grad_W, einsum: "ij->ij", inputs: [dWb], cast: f32}
  - {name: grad_s, einsum: "j->j", inputs: [s], cast: f32}
  - {name: W_next, einsum: "ij,ij->ij", join: "x - 0.5 * y", inputs: [W, grad_W]}
outputs: [W_next]
micro_batches: {count: 2, split: {X: 0, dY: 0}, accumulate: [dWb]}
)yaml";
  const Graph accumulated = loadGraphText(summed, "summed.yaml", GraphFormat::Yaml);
  CHECK(refusal(accumulated, {{"grad_W", {}}}).find("which the micro-batches accumulate") != std::string::npos);
  CHECK(gradientCastsToFuse(accumulated).empty());
  // An f32 graph has no 2-byte gradient to widen.
  const Graph f32 = loadGraphText(R"yaml(
name: f32step
inputs: {X: [6, 8], dY: [6, 4]}
nodes:
  - {name: dW, einsum: "bi,bj->ij", inputs: [X, dY]}
  - {name: grad_W, einsum: "ij->ij", inputs: [dW], cast: f32}
)yaml",
                                  "f32.yaml", GraphFormat::Yaml);
  CHECK(refusal(f32, {{"grad_W", {}}}).find("not a contraction of two bf16 or f16 operands") != std::string::npos);
}
