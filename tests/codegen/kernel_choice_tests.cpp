// Kernel choice (codegen/kernels/kernel_choice.h): which kernel a node runs, on nodes
// whose answer is known by hand.
#include <doctest/doctest.h>

#include "codegen/kernels/kernel_choice.h"
#include "planner/graph/load.h"
#include "planner/paths/gemm_mapping.h"

using namespace eindecomp;
using namespace eindecomp::codegen;

namespace {

KernelChoice choose(const char* einsum, const char* join = nullptr, const char* agg = nullptr) {
  std::string text = std::string("name: k\ninputs: {A: [4, 4, 3], B: [4, 4, 3]}\nnodes:\n  - {name: N, einsum: \"") + einsum +
                     "\", inputs: [A" + (std::string(einsum).find(',') != std::string::npos ? ", B" : "") + "]";
  if (join) text += std::string(", join: \"") + join + "\"";
  if (agg) text += std::string(", agg: ") + agg;
  text += "}\n";
  const Graph g = loadGraphText(text, "k.yaml", GraphFormat::Yaml);
  const Node& n = g.nodes[0];
  std::vector<int64_t> extent;
  for (const auto& l : iterationLabels(n)) extent.push_back(n.labelSizes.at(l));
  return chooseKernel(n, runsAsGemm(n) ? std::optional<GemmMapping>(mapContractionToGemm(n, extent)) : std::nullopt);
}

}  // namespace

TEST_CASE("kernel choice: permutations, copies and what is neither") {
  CHECK(choose("ijk->kij").kind == "permutation");
  CHECK(choose("ijk->kij").permutation == std::vector<int>{2, 0, 1});
  CHECK(choose("ijk->ijk").permutation == std::vector<int>{0, 1, 2});  // a copy
  CHECK(choose("ijk->kji", "x").kind == "permutation");
  CHECK(choose("ijk->kji", "exp(x)").kind == "elementwise");  // a join to apply
  CHECK(choose("ijk->ki").kind == "reduction");               // j aggregated
  CHECK(choose("ijk,ijk->kij", "add").kind == "elementwise");
  CHECK(choose("ijk,ijk->ik").kind.find("GEMM") != std::string::npos);
  CHECK(choose("ijk,jik->k").kind != "permutation");
}
