// Per-rank memory accounting (SPEC 3.2). Every byte einrt allocates for a program on a
// rank — tensor blocks, received operand copies, partial results, message staging, GEMM
// scratch, fused-group tiles — is added here when it is allocated and removed when it is
// released, so `peak()` is the rank's high-water mark: the number the planner's memory
// model predicts exactly (planner/cost/memory.h). One counter per rank, owned by its
// Communicator; counting is plain arithmetic on the thread that allocates (einrt
// allocates outside its threaded kernels).
#pragma once

#include <algorithm>
#include <cstdint>

namespace einrt {

class MemoryCounter {
 public:
  void allocated(uint64_t bytes) {
    current_ += bytes;
    peak_ = std::max(peak_, current_);
  }
  void released(uint64_t bytes) { current_ -= bytes; }
  uint64_t current() const { return current_; }
  uint64_t peak() const { return peak_; }
  // Starts a new high-water mark from what is held now.
  void resetPeak() { peak_ = current_; }

 private:
  uint64_t current_ = 0;
  uint64_t peak_ = 0;
};

}  // namespace einrt
