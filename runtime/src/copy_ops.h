// Executing batches of box copies: the host loop here; device memory through the
// DeviceOps of the plan (einrt::cuda runs them as CUDA kernels).
#pragma once

#include <cstddef>
#include <vector>

#include "box_copy.h"
#include "einrt/types.h"

namespace einrt::detail {

struct CopyOp {
  const BoxCopy* geometry;
  const std::byte* from;  // container base pointers
  std::byte* to;
  CombineOp op;
};

// Runs the copies in order on the host.
void runCopiesHost(const std::vector<CopyOp>& ops, DType dtype);


}  // namespace einrt::detail
