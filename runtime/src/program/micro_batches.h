// The program's side of micro-batches (einrt/model/program_model.h, the planner's
// planner/graph/micro_batches.h): a split input's slice for one micro-batch, and the sum
// of an accumulated node's results over the micro-batches. The executor and its --check
// reference share these, so the two cut and add alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "einrt/types.h"

#include "einrt/model/tables.h"
#include "mixed_types.h"

namespace einrt::program::detail {

// Micro-batch m of the whole step's values of `t` (packed as the program holds them:
// elements of t's own type in T-sized words), cut along t's split dimension into
// `microBatches` equal slices: one micro-batch's tensor, row-major over t.shape.
template <class T>
std::vector<T> microBatchSlice(const model::TensorTable& t, const std::vector<T>& whole, int64_t microBatches, int64_t m) {
  const auto d = static_cast<std::size_t>(t.splitDimension);
  const std::size_t elementBytes = t.elementBytes(sizeof(T));
  int64_t outer = 1, inner = 1;
  for (std::size_t k = 0; k < d; ++k) outer *= t.shape[k];
  for (std::size_t k = d + 1; k < t.shape.size(); ++k) inner *= t.shape[k];
  // Per index along the dimensions before the split one: the slice's run of elements.
  const auto run = static_cast<std::size_t>(t.shape[d] * inner) * elementBytes;
  std::vector<T> slice((static_cast<std::size_t>(outer) * run + sizeof(T) - 1) / sizeof(T));
  const auto* from = reinterpret_cast<const unsigned char*>(whole.data());
  auto* to = reinterpret_cast<unsigned char*>(slice.data());
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(to + static_cast<std::size_t>(o) * run,
                from + (static_cast<std::size_t>(o * microBatches + m)) * run, run);
  return slice;
}

// sum += part over n elements of `type` (T, or f32 in a program of another float type:
// mixed_types.h), each sum rounded once to the type — the accumulation the planner's
// evaluator (einplan eval) does in the node's own type.
template <class T>
void addInto(DType type, const void* part, void* sum, int64_t n) {
  if (type == DType::F32 && dtypeOf<T>() != DType::F32) {
    const auto* x = static_cast<const float*>(part);
    auto* z = static_cast<float*>(sum);
    for (int64_t i = 0; i < n; ++i) z[i] += x[i];
    return;
  }
  const auto* x = static_cast<const T*>(part);
  auto* z = static_cast<T*>(sum);
  for (int64_t i = 0; i < n; ++i)
    storeElement(z, i, static_cast<Compute<T>>(loadElement(z, i)) + static_cast<Compute<T>>(loadElement(x, i)));
}

}  // namespace einrt::program::detail
