// How a program's host buffers come from the C library: freed blocks stay in the process
// for the next allocation instead of going back to the kernel. The executor allocates a
// node's blocks when its step begins and frees them after their last reader (SPEC 3.2), so
// every iteration allocates the same sizes again; with glibc's defaults, blocks above the
// mmap threshold (and heap tops above the trim threshold) are returned and every page of
// the next allocation is faulted in and zeroed again on first touch — measured here at
// 4.4 ms instead of 0.85 ms for a 2M-element relu, more than the kernel itself. Keeping
// them costs no more memory than the run's peak, which the plan counts (the allocator
// counters still count what is held, not what the C library keeps).
#pragma once

namespace einrt::program::detail {

// Call once, before the first large allocation.
void keepFreedHostMemory();

}  // namespace einrt::program::detail
