// Box copies on the host: one run per row of the merged innermost dimension, memcpy
// when assigning, an element loop when combining partial results.
#include <cstring>

#include "copy_ops.h"

namespace einrt::detail {

namespace {
template <class T>
void runOne(const CopyOp& op) {
  const BoxCopy& c = *op.geometry;
  const T* from = reinterpret_cast<const T*>(op.from);
  T* to = reinterpret_cast<T*>(op.to);
  const int inner = c.ndims - 1;
  const int64_t run = c.extent[inner];
  const int64_t fromStep = c.fromStride[inner], toStep = c.toStride[inner];
  const int64_t rows = run > 0 ? c.count / run : 0;
  for (int64_t row = 0; row < rows; ++row) {
    int64_t f = 0, t = 0;
    elementOffsets(c, row * run, f, t);
    if (op.op == CombineOp::Assign && fromStep == 1 && toStep == 1) {
      std::memcpy(to + t, from + f, static_cast<std::size_t>(run) * sizeof(T));
    } else {
      for (int64_t i = 0; i < run; ++i) to[t + i * toStep] = combine(op.op, to[t + i * toStep], from[f + i * fromStep]);
    }
  }
}
}  // namespace

void runCopiesHost(const std::vector<CopyOp>& ops, DType dtype) {
  withElementType(dtype, [&](auto element) {
    for (const CopyOp& op : ops) runOne<decltype(element)>(op);
  });
}

}  // namespace einrt::detail
