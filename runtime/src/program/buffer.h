// A block buffer in the program's memory space: host memory, or device memory through
// the program's DeviceOps. Owning, movable, not copyable. Buffers of the program's run
// are counted in the rank's MemoryCounter (SPEC 3.2); null counts nothing (the --check
// reference and the output gather, which run after the measured run).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "einrt/device.h"
#include "einrt/memory_counter.h"

namespace einrt::program::detail {

template <class T>
class Buffer {
 public:
  Buffer() = default;
  // Room for `bytes` bytes of another element type (an index tensor's ids in a program
  // of T): whole T elements are allocated, the counter counts exactly `bytes`.
  static Buffer ofBytes(std::size_t bytes, const DeviceOps* device, MemoryCounter* counter) {
    Buffer b((bytes + sizeof(T) - 1) / sizeof(T), device, nullptr);
    b.counted_ = bytes;
    b.counter_ = counter;
    if (counter && b.data_) counter->allocated(bytes);
    return b;
  }
  Buffer(std::size_t n, const DeviceOps* device, MemoryCounter* counter) : size_(n), counted_(n * sizeof(T)), device_(device) {
    if (n == 0) return;
    if (device) {
      data_ = static_cast<T*>(device->allocate(n * sizeof(T)));
    } else {
      raw_ = std::malloc(n * sizeof(T) + kHostAlign);
      data_ = raw_ ? reinterpret_cast<T*>((reinterpret_cast<std::uintptr_t>(raw_) + kHostAlign - 1) / kHostAlign * kHostAlign)
                   : nullptr;
    }
    if (!data_) throw std::bad_alloc();
    counter_ = counter;
    if (counter_) counter_->allocated(counted_);
  }
  ~Buffer() { release(); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), raw_(std::exchange(o.raw_, nullptr)), size_(std::exchange(o.size_, 0)),
        counted_(std::exchange(o.counted_, 0)), device_(o.device_),
        counter_(std::exchange(o.counter_, nullptr)) {}
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      raw_ = std::exchange(o.raw_, nullptr);
      size_ = std::exchange(o.size_, 0);
      counted_ = std::exchange(o.counted_, 0);
      device_ = o.device_;
      counter_ = std::exchange(o.counter_, nullptr);
    }
    return *this;
  }
  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  void fromHost(const T* host) {
    if (!size_) return;
    if (device_) device_->copyToDevice(data_, host, size_ * sizeof(T));
    else std::memcpy(data_, host, size_ * sizeof(T));
  }
  void toHost(T* host) const {
    if (!size_) return;
    if (device_) device_->copyToHost(host, data_, size_ * sizeof(T));
    else std::memcpy(host, data_, size_ * sizeof(T));
  }

 private:
  // Host blocks start on a cache line (malloc gives 16 bytes): whole-line vector stores,
  // as the streamed transposes make, need 32-byte alignment (a 4096^2 transpose ran at
  // 44-46 % of the triad 16-byte aligned, 55-62 % 64-byte aligned; 2026-11-26). Aligned
  // by hand inside a malloc'd block one line larger, not with aligned_alloc: glibc then
  // mapped fresh pages far more often (tt's program: 491,000 page faults against 404,000,
  // and its 118 MB GEMM node 136 ms against 72-90). The counter keeps the bytes asked for
  // (SPEC 3.2's prediction), not the line added.
  static constexpr std::uintptr_t kHostAlign = 64;
  void release() {
    if (!data_) return;
    if (device_) device_->release(data_);
    else std::free(raw_);
    raw_ = nullptr;
    if (counter_) counter_->released(counted_);
    data_ = nullptr;
    size_ = 0;
    counted_ = 0;
    counter_ = nullptr;
  }
  T* data_ = nullptr;
  void* raw_ = nullptr;  // host blocks: what malloc returned (data_ is aligned inside it)
  std::size_t size_ = 0;
  std::size_t counted_ = 0;  // bytes counted in the MemoryCounter (size_ * sizeof(T) but for ofBytes)
  const DeviceOps* device_ = nullptr;
  MemoryCounter* counter_ = nullptr;
};

}  // namespace einrt::program::detail
