// einrt's index kernel (runtime/src/program/index_kernel.h) against plainIndex, the --check
// reference's plain loop over whole tensors: a gather Z[n, c, u] = Y[n, c, ids[u]] (ids
// along the output's innermost label, as a stride-s convolution's phase gathers read an
// image's last dimension) cut into calls along the selected label v and along u. Ids that
// step evenly (steps 2, 1, -1, 0: the strided copy) and ids that do not (the general
// loop), int32 and int64, every call's block compared. Table of cases; each failure
// prints its case.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "einrt/model/tables.h"
#include "runtime/src/program/index_kernel.h"

namespace {

using namespace einrt;
using program::detail::IndexKernel;

struct Case {
  std::vector<int64_t> ids;  // along u
  int64_t rows;              // v's size
  int64_t rowParts, uParts;  // the calls: v cut in rowParts, u in uParts
  DType type;
};

// Labels: u 0 (the ids'), n 1, c 2, v 3 (selected); einsum u,ncv->ncu.
model::NodeTable gatherNode(int64_t u, int64_t rows) {
  model::NodeTable node;
  node.name = "phase";
  node.sizes = {u, 2, 3, rows};
  node.operandLabels = {{0}, {1, 2, 3}};
  node.outputLabels = {1, 2, 0};
  node.indexLabel = 3;
  return node;
}

std::vector<float> table(int64_t elements) {
  std::vector<float> y(static_cast<std::size_t>(elements));
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = 0.25f * static_cast<float>(i) - 3.0f;
  return y;
}

template <class I>
void runCase(const Case& k, const std::string& name) {
  const model::NodeTable node = gatherNode(static_cast<int64_t>(k.ids.size()), k.rows);
  model::TensorTable idsTensor;
  idsTensor.name = "ids";
  idsTensor.indexType = k.type;
  const std::vector<I> ids(k.ids.begin(), k.ids.end());
  const std::vector<float> y = table(2 * 3 * k.rows);
  // The whole output from the plain loop.
  std::vector<float> whole(static_cast<std::size_t>(2 * 3 * ids.size()), 0.0f);
  program::detail::plainIndex<float>(node, k.type, ids.data(), y.data(), whole.data());
  // Every call: its blocks of ids, Y and Z copied out, run, summed into the output.
  const int64_t U = static_cast<int64_t>(ids.size()), bu = U / k.uParts, bv = k.rows / k.rowParts;
  const std::vector<int64_t> extent{bu, 2, 3, bv};
  const IndexKernel<float> kernel(node, idsTensor, extent);
  std::vector<float> sum(whole.size(), 0.0f);
  for (int64_t cu = 0; cu < k.uParts; ++cu)
    for (int64_t cv = 0; cv < k.rowParts; ++cv) {
      const std::vector<I> idBlock(ids.begin() + cu * bu, ids.begin() + (cu + 1) * bu);
      std::vector<float> yBlock;
      for (int64_t i = 0; i < 6; ++i)
        for (int64_t r = 0; r < bv; ++r) yBlock.push_back(y[static_cast<std::size_t>(i * k.rows + cv * bv + r)]);
      std::vector<float> z(static_cast<std::size_t>(6 * bu), -7.0f);  // assigned or zeroed: never read as is
      kernel.run(idBlock.data(), yBlock.data(), z.data(), false, {cu * bu, 0, 0, cv * bv});
      for (int64_t i = 0; i < 6; ++i)
        for (int64_t x = 0; x < bu; ++x) sum[static_cast<std::size_t>(i * U + cu * bu + x)] += z[static_cast<std::size_t>(i * bu + x)];
    }
  for (std::size_t i = 0; i < whole.size(); ++i) REQUIRE_MESSAGE(sum[i] == whole[i], name << ": element " << i);
}

}  // namespace

TEST_CASE("index kernel: gathers along the output's last label, even steps or not, equal the plain loop") {
  const std::vector<Case> cases{
      {{0, 2, 4, 6, 8, 10}, 12, 1, 1, DType::I64},  // a phase: step 2, the whole table
      {{1, 3, 5, 7, 9, 11}, 12, 1, 2, DType::I32},  // the other phase, u cut in two
      {{0, 2, 4, 6, 8, 10}, 12, 2, 1, DType::I64},  // rows cut: ids beyond a call's rows
      {{0, 2, 4, 6, 8, 10}, 12, 2, 3, DType::I32},  // both cut: some calls' ids all inside
      {{5, 4, 3, 2, 1, 0}, 6, 1, 1, DType::I64},    // step -1
      {{3, 3, 3, 3}, 6, 1, 2, DType::I32},          // step 0
      {{0, 1, 2, 3, 4, 5}, 6, 3, 3, DType::I64},    // step 1, cut alike along u and v
      {{0, 2, 3, 6, 1, 1}, 8, 1, 1, DType::I64},    // not a progression: the general loop
      {{4, 0, 2, 6}, 8, 2, 2, DType::I32},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string name = "case " + std::to_string(i);
    if (cases[i].type == DType::I32) runCase<int32_t>(cases[i], name);
    else runCase<int64_t>(cases[i], name);
  }
}
