#include "codegen/kernels/kernel_choice.h"

#include <algorithm>
#include <cstdio>

#include <einrt/model/convolution_call.h>

#include "planner/graph/node_space.h"

namespace eindecomp::codegen {

namespace {

std::string joined(const Labels& ls) {
  std::string s;
  for (const auto& l : ls) s += (s.empty() ? "" : ",") + l;
  return s;
}

}  // namespace

KernelChoice chooseKernel(const Node& n, const std::optional<GemmMapping>& gemm) {
  if (gemm) {
    const bool permuted = !gemm->permX.empty() || !gemm->permY.empty() || !gemm->permZ.empty();
    KernelChoice k{permuted ? "GEMM + permutation" : gemm->batchLabels.empty() ? "GEMM" : "batched GEMM", "", {}};
    k.why = "contraction summing over K[" + joined(gemm->kLabels) + "]";
    if (gemm->alpha != 1.0) {
      char buf[64];
      std::snprintf(buf, sizeof buf, ", alpha %.17g", gemm->alpha);
      k.why += buf;
    }
    if (permuted) k.why += "; a stored order fits no GEMM layout";
    return k;
  }
  if (n.castTo)
    return {"cast", std::string("einrt converts each block to ") + dtypeName(*n.castTo) + " (mixed precision, SPEC 8)", {}};
  if (isIndexNode(n))
    return {n.joinName, std::string("einrt's index kernel: ") +
                            (n.joinName == "gather" ? "copies the row of each id" : "adds each row into the row of its id") +
                            " along " + n.indexLabel,
            {}};
  if (hasTaps(n) || hasSteps(n)) {
    const NodeSpace space = nodeSpace(n);
    if (einrt::model::convolutionCall(space, isContraction(n), space.sizes))
      return {"convolution", "a contraction reading its image through taps: oneDNN's convolution primitive where the "
                             "program has it, else the node's loops", {}};
  }
  const Labels aggregated = aggregatedLabels(n);
  if (const std::optional<std::vector<int>> order = permutationOrder(n))
    return {"permutation", "a copy into another order of the dimensions, in tiles", *order};
  if (!aggregated.empty())
    return {"reduction", std::string("agg ") + reduceName(n.agg) + " over " + joined(aggregated) +
                             (n.operandLabels.size() == 2 && productScale(n.join) ? " (no label summed over both operands)" : ""),
            {}};
  if (n.operandLabels.size() == 2 && productScale(n.join))
    return {"elementwise", "a broadcast multiply: nothing is summed, so it is no GEMM", {}};
  return {"elementwise", "join " + (n.joinName.empty() ? toString(n.join) : n.joinName), {}};
}

}  // namespace eindecomp::codegen
