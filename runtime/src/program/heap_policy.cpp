#include "heap_policy.h"

#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

namespace einrt::program::detail {

void keepFreedHostMemory() {
#if defined(M_MMAP_MAX) && defined(M_TRIM_THRESHOLD)  // glibc
  // Every allocation from the heap (no per-block mmap, whose pages go back on free), and
  // the heap's top never trimmed.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, -1);
#endif
}

}  // namespace einrt::program::detail
