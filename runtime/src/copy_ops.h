// Executing batches of box copies in one memory space: the host loop here, CUDA kernels
// in cuda_copy.cu (built only with the CUDA backend). Plus the few CUDA memory helpers
// the plans need for device pack buffers and pinned host staging.
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

#if EINRT_HAVE_CUDA
// Runs the copies in order as CUDA kernels on device pointers; returns when done.
void runCopiesCuda(const std::vector<CopyOp>& ops, DType dtype);
void* cudaAllocDevice(std::size_t bytes);
void cudaFreeDevice(void* p);
void* cudaAllocPinned(std::size_t bytes);
void cudaFreePinned(void* p);
void cudaCopyDeviceToHost(void* dst, const void* src, std::size_t bytes);
void cudaCopyHostToDevice(void* dst, const void* src, std::size_t bytes);
#endif

}  // namespace einrt::detail
