// Pack buffers shared by every plan of one Communicator. Executions on a communicator
// never overlap (they are collective and complete before returning), so one send and
// one receive buffer per memory space, grown to the largest plan executed so far, serve
// all plans: memory is the largest exchange, not the sum over a program's edges.
//
// The pool also owns the rank's MemoryCounter: its own buffers (host, or device in CUDA
// programs; pinned host mirrors are not counted) and everything a program allocates are
// added there. A program reserves, before its timed run, the staging its plan budgets
// (SPEC 3.2) and fixes the pool at that size: a plan that needs more is a planner bug,
// reported as one instead of growing silently past the predicted peak.
#pragma once

#include <cstddef>
#include <vector>

#include "einrt/device.h"
#include "einrt/memory_counter.h"

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

  // Frees every buffer (the counter follows).
  void release();
  // With `fixed`, a request above the current size throws std::logic_error.
  void fix(bool fixed) { fixed_ = fixed; }

  MemoryCounter& memory() { return memory_; }

 private:
  struct Raw {
    void* data = nullptr;
    std::size_t bytes = 0;
    const DeviceOps* ops = nullptr;  // who allocated it (and frees it)
  };
  void checkGrowth(std::size_t have, std::size_t want) const;
  MemoryCounter memory_;
  bool fixed_ = false;
  std::vector<std::byte> host_[2];
  Raw device_[2], pinned_[2];
};

}  // namespace einrt::detail
