#include "codegen/kernels/kernel_choice.h"

#include <algorithm>
#include <cstdio>

namespace eindecomp::codegen {

namespace {

std::string joined(const Labels& ls) {
  std::string s;
  for (const auto& l : ls) s += (s.empty() ? "" : ",") + l;
  return s;
}

// A unary node with join x that aggregates nothing and reads every label once: the operand
// dimension of each output dimension.
std::optional<std::vector<int>> permutationOf(const Node& n) {
  if (n.operandLabels.size() != 1 || n.join.kind != Expr::Kind::VarX) return std::nullopt;
  const Labels& in = n.operandLabels[0];
  if (in.size() != n.outputLabels.size()) return std::nullopt;
  std::vector<int> order;
  for (const auto& l : n.outputLabels) {
    const auto first = std::find(in.begin(), in.end(), l);
    if (first == in.end() || std::find(first + 1, in.end(), l) != in.end()) return std::nullopt;
    order.push_back(static_cast<int>(first - in.begin()));
  }
  for (std::size_t d = 0; d < order.size(); ++d)
    if (std::count(order.begin(), order.end(), order[d]) != 1) return std::nullopt;
  return order;
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
  const Labels aggregated = aggregatedLabels(n);
  if (const std::optional<std::vector<int>> order = permutationOf(n))
    return {"permutation", "a copy into another order of the dimensions, in tiles", *order};
  if (!aggregated.empty())
    return {"reduction", std::string("agg ") + aggName(n.agg) + " over " + joined(aggregated) +
                             (n.operandLabels.size() == 2 && productScale(n.join) ? " (no label summed over both operands)" : ""),
            {}};
  if (n.operandLabels.size() == 2 && productScale(n.join))
    return {"elementwise", "a broadcast multiply: nothing is summed, so it is no GEMM", {}};
  return {"elementwise", "join " + (n.joinName.empty() ? toString(n.join) : n.joinName), {}};
}

}  // namespace eindecomp::codegen
