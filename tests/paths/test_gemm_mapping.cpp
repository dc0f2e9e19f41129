// The C/M/N/K classification of binary contractions (Einsum Trees paper, sections 2.1 and
// 3), as a table of format strings with the kernel each maps to.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "planner/paths/gemm_mapping.h"

using namespace eindecomp;

namespace {

Labels chars(const std::string& s) {
  Labels out;
  for (char c : s) out.push_back(std::string(1, c));
  return out;
}

struct Case {
  std::string left, right, out;
  KernelMapping kind;
  std::string types;
};

}  // namespace

TEST_CASE("binary contractions map to GEMM, batched GEMM or need a permutation") {
  const std::vector<Case> cases{
      // plain matrix products in every transpose combination BLAS accepts
      {"ij", "jk", "ik", KernelMapping::Gemm, "M: i  N: k  K: j"},
      {"ji", "jk", "ik", KernelMapping::Gemm, "M: i  N: k  K: j"},
      {"ij", "kj", "ik", KernelMapping::Gemm, "M: i  N: k  K: j"},
      {"ij", "jk", "ki", KernelMapping::Gemm, "M: i  N: k  K: j"},
      // fused groups: r s act as one M dimension (the paper's third example, no batch)
      {"qrs", "tq", "trs", KernelMapping::Gemm, "M: r s  N: t  K: q"},
      // outer product and GEMV are single calls with an empty group
      {"i", "k", "ik", KernelMapping::Gemm, "M: i  N: k"},
      {"ij", "j", "i", KernelMapping::Gemm, "M: i  K: j"},
      // the paper's first example: batched matrix product over the leading p
      {"pqr", "psq", "psr", KernelMapping::BatchedGemm, "C: p  M: r  N: s  K: q"},
      {"pqrs", "ptq", "ptrs", KernelMapping::BatchedGemm, "C: p  M: r s  N: t  K: q"},
      // Hadamard product: batch only
      {"pq", "pq", "pq", KernelMapping::BatchedGemm, "C: p q"},
      // the paper's packed GEMM keeps the batch innermost: a strided batch needs it first
      {"pqr", "spr", "sqr", KernelMapping::Permutation, "C: r  M: q  N: s  K: p"},
      // the paper's fifth example
      {"rqp", "qsp", "prs", KernelMapping::Permutation, "C: p  M: r  N: s  K: q"},
      // M labels split by N in the output
      {"ikj", "jl", "ilk", KernelMapping::Permutation, "M: i k  N: l  K: j"},
      // K labels in different orders in the two operands
      {"iab", "bak", "ik", KernelMapping::Permutation, "M: i  N: k  K: a b"},
      // a label summed within one operand (R) must be reduced first
      {"ijr", "jk", "ik", KernelMapping::Permutation, "M: i  N: k  K: j  R: r"},
      // a broadcast label (B)
      {"ij", "jk", "ikz", KernelMapping::Permutation, "M: i  N: k  K: j  B: z"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.left + "," + c.right + "->" + c.out);
    Node n;
    n.operandLabels = {chars(c.left), chars(c.right)};
    n.outputLabels = chars(c.out);
    n.join = Expr::binary(Expr::Kind::Mul, Expr::x(), Expr::y());
    for (const auto& l : iterationLabels(n)) n.labelSizes[l] = 3;
    const KernelMapping kind = kernelMappingOf(mapContractionToGemm(n, iterationSizes(n)));
    CHECK(kernelMappingName(kind) == std::string(kernelMappingName(c.kind)));
    CHECK(describeLabelClasses(classifyLabels(chars(c.left), chars(c.right), chars(c.out))) == c.types);
  }
}
