// Growing the shared pack buffers (see buffer_pool.h).
#include "buffer_pool.h"

#include <stdexcept>
#include <string>

namespace einrt::detail {

void BufferPool::checkGrowth(std::size_t have, std::size_t want) const {
  if (fixed_ && want > have)
    throw std::logic_error("einrt: a collective needs " + std::to_string(want) + " bytes of staging, above the " +
                           std::to_string(have) + " bytes the plan reserved for this rank (a planner bug; please report it)");
}

std::byte* BufferPool::host(Side side, std::size_t bytes) {
  std::vector<std::byte>& b = host_[side];
  if (b.size() < bytes) {
    checkGrowth(b.size(), bytes);
    memory_.allocated(bytes - b.size());
    b.resize(bytes);
  }
  return b.data();
}

void BufferPool::release() {
  for (std::vector<std::byte>& b : host_) {
    memory_.released(b.size());
    std::vector<std::byte>().swap(b);
  }
  for (Raw& r : device_) {
    if (r.data) r.ops->release(r.data);
    memory_.released(r.bytes);
    r = Raw{};
  }
  for (Raw& r : pinned_) {
    if (r.data) r.ops->releasePinned(r.data);
    r = Raw{};
  }
}

BufferPool::~BufferPool() { release(); }

std::byte* BufferPool::device(Side side, std::size_t bytes, const DeviceOps& ops) {
  Raw& r = device_[side];
  if (r.bytes < bytes) {
    checkGrowth(r.bytes, bytes);
    if (r.data) r.ops->release(r.data);
    memory_.released(r.bytes);
    r = Raw{ops.allocate(bytes), bytes, &ops};
    memory_.allocated(bytes);
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
