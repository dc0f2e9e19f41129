// Growing the shared pack buffers (see buffer_pool.h).
#include "buffer_pool.h"

#include <stdexcept>

#include "copy_ops.h"

namespace einrt::detail {

std::byte* BufferPool::host(Side side, std::size_t bytes) {
  if (host_[side].size() < bytes) host_[side].resize(bytes);
  return host_[side].data();
}

#if EINRT_HAVE_CUDA
BufferPool::~BufferPool() {
  for (Raw& r : device_) cudaFreeDevice(r.data);
  for (Raw& r : pinned_) cudaFreePinned(r.data);
}

std::byte* BufferPool::device(Side side, std::size_t bytes) {
  Raw& r = device_[side];
  if (r.bytes < bytes) {
    cudaFreeDevice(r.data);
    r = Raw{};
    r.data = cudaAllocDevice(bytes);
    r.bytes = bytes;
  }
  return static_cast<std::byte*>(r.data);
}

std::byte* BufferPool::pinned(Side side, std::size_t bytes) {
  Raw& r = pinned_[side];
  if (r.bytes < bytes) {
    cudaFreePinned(r.data);
    r = Raw{};
    r.data = cudaAllocPinned(bytes);
    r.bytes = bytes;
  }
  return static_cast<std::byte*>(r.data);
}
#else
BufferPool::~BufferPool() = default;

std::byte* BufferPool::device(Side, std::size_t) {
  throw std::logic_error("einrt: device buffers requested from a build without CUDA");
}
std::byte* BufferPool::pinned(Side, std::size_t) {
  throw std::logic_error("einrt: pinned buffers requested from a build without CUDA");
}
#endif

}  // namespace einrt::detail
