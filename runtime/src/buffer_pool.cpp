// Growing the shared pack buffers (see buffer_pool.h).
#include "buffer_pool.h"

namespace einrt::detail {

std::byte* BufferPool::host(Side side, std::size_t bytes) {
  if (host_[side].size() < bytes) host_[side].resize(bytes);
  return host_[side].data();
}

BufferPool::~BufferPool() {
  for (Raw& r : device_)
    if (r.data) r.ops->release(r.data);
  for (Raw& r : pinned_)
    if (r.data) r.ops->releasePinned(r.data);
}

std::byte* BufferPool::device(Side side, std::size_t bytes, const DeviceOps& ops) {
  Raw& r = device_[side];
  if (r.bytes < bytes) {
    if (r.data) r.ops->release(r.data);
    r = Raw{ops.allocate(bytes), bytes, &ops};
  }
  return static_cast<std::byte*>(r.data);
}

std::byte* BufferPool::pinned(Side side, std::size_t bytes, const DeviceOps& ops) {
  Raw& r = pinned_[side];
  if (r.bytes < bytes) {
    if (r.data) r.ops->releasePinned(r.data);
    r = Raw{ops.allocatePinned(bytes), bytes, &ops};
  }
  return static_cast<std::byte*>(r.data);
}

}  // namespace einrt::detail
