// The emitted program's threads, handed to einrt as a function pointer (spec.h
// ProgramSpec::parallelFor): einrt itself is built without OpenMP, the emitted program
// with it when its CMake finds it, so the pool that splits the generic kernels
// (elementwise.h) also runs the tiles of fused groups. Header-only.
#pragma once

#include <cstdint>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace einrt::program {

// Calls body(context, begin, end, thread) on up to `threads` threads, splitting [0, count)
// into contiguous ranges; one call with thread 0 when single-threaded.
using ParallelBody = void (*)(void* context, int64_t begin, int64_t end, int thread);
using ParallelForFn = void (*)(int64_t count, int threads, ParallelBody body, void* context);

inline void parallelFor(int64_t count, int threads, ParallelBody body, void* context) {
#if defined(_OPENMP)
  if (threads > 1 && count > 1) {
#pragma omp parallel num_threads(threads)
    {
      const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
      body(context, count * t / nt, count * (t + 1) / nt, static_cast<int>(t));
    }
    return;
  }
#endif
  (void)threads;
  body(context, 0, count, 0);
}

}  // namespace einrt::program
