// Pack buffers shared by every plan of one Communicator. Executions on a communicator
// never overlap (they are collective and complete before returning), so one send and
// one receive buffer per memory space, grown to the largest plan executed so far, serve
// all plans: memory is the largest exchange, not the sum over a program's edges.
#pragma once

#include <cstddef>
#include <vector>

#include "einrt/device.h"

namespace einrt::detail {

class BufferPool {
 public:
  enum Side { Send = 0, Recv = 1 };
  BufferPool() = default;
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;
  ~BufferPool();

  std::byte* host(Side side, std::size_t bytes);
  std::byte* device(Side side, std::size_t bytes, const DeviceOps& ops);
  std::byte* pinned(Side side, std::size_t bytes, const DeviceOps& ops);

 private:
  struct Raw {
    void* data = nullptr;
    std::size_t bytes = 0;
    const DeviceOps* ops = nullptr;  // who allocated it (and frees it)
  };
  std::vector<std::byte> host_[2];
  Raw device_[2], pinned_[2];
};

}  // namespace einrt::detail
