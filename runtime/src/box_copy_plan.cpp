// Building BoxCopy descriptors: strides of both containers, then merging every pair of
// neighbouring dimensions that is contiguous on both sides, so a whole block becomes
// one run and a row-block one run per row.
#include "box_copy_plan.h"

#include <stdexcept>
#include <vector>

namespace einrt::detail {

namespace {
std::vector<int64_t> rowMajorStrides(const Box& container) {
  std::vector<int64_t> stride(container.rank(), 1);
  for (int d = static_cast<int>(container.rank()) - 2; d >= 0; --d)
    stride[d] = stride[d + 1] * container.extent(d + 1);
  return stride;
}
}  // namespace

BoxCopy makeBoxCopy(const Box& box, const Box& fromContainer, const Box& toContainer) {
  const std::vector<int64_t> fromStride = rowMajorStrides(fromContainer), toStride = rowMajorStrides(toContainer);
  BoxCopy c;
  c.count = volume(box);
  struct Dim {
    int64_t extent, from, to;
  };
  std::vector<Dim> dims;  // outermost first, extent-1 dimensions dropped
  for (std::size_t d = 0; d < box.rank(); ++d) {
    c.fromOffset += (box.lo[d] - fromContainer.lo[d]) * fromStride[d];
    c.toOffset += (box.lo[d] - toContainer.lo[d]) * toStride[d];
    if (box.extent(d) == 1) continue;
    dims.push_back(Dim{box.extent(d), fromStride[d], toStride[d]});
  }
  // Merge from the innermost outwards: dimension k folds into k+1 when stepping k once
  // equals stepping over the whole of k+1 on both sides.
  std::vector<Dim> merged;
  for (int k = static_cast<int>(dims.size()) - 1; k >= 0; --k) {
    if (!merged.empty()) {
      Dim& inner = merged.back();
      if (dims[k].from == inner.extent * inner.from && dims[k].to == inner.extent * inner.to) {
        inner.extent *= dims[k].extent;
        continue;
      }
    }
    merged.push_back(dims[k]);
  }
  if (merged.empty()) merged.push_back(Dim{1, 1, 1});
  if (merged.size() > static_cast<std::size_t>(kMaxDims)) throw std::length_error("einrt: box has too many dimensions");
  c.ndims = static_cast<int>(merged.size());
  for (int k = 0; k < c.ndims; ++k) {
    const Dim& dim = merged[merged.size() - 1 - k];
    c.extent[k] = dim.extent;
    c.fromStride[k] = dim.from;
    c.toStride[k] = dim.to;
  }
  return c;
}

CombineOp combineOpFor(Reduce reduce) {
  switch (reduce) {
    case Reduce::Sum: return CombineOp::Sum;
    case Reduce::Max: return CombineOp::Max;
    case Reduce::Min: return CombineOp::Min;
    case Reduce::Prod: return CombineOp::Prod;
  }
  return CombineOp::Sum;
}

}  // namespace einrt::detail
