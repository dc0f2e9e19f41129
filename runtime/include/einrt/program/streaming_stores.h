// Non-temporal ("streaming") stores, for kernel outputs too large for the caches. A plain
// store to a line not in cache first reads the line (write-allocate), so writing a block
// costs a read and a write of it; a streaming store writes whole lines through the
// write-combining buffers without that read and without evicting what the caches hold.
// On this project's machine a 4096^2 f32 scale (x * 2) runs at 82-94 % of the triad with
// plain stores and at 100-125 % with streaming ones (bench/RESULTS.md, "Streaming
// stores"). Used by the transposes (host_permute.cpp) and the elementwise kernel
// (elementwise.h) for outputs above streamBytes(); outputs that fit keep plain stores, so
// the next node finds them in cache. Streamed stores are weakly ordered: a kernel fences
// (streamFence) before its output is read by anyone else.
#pragma once

#include <cstdint>

#include "einrt/program/loop_nest.h"

#if defined(__x86_64__) && !defined(__CUDACC__)
#include <immintrin.h>
#define EINRT_STREAMING_STORES 1
#endif

namespace einrt::program {

// Outputs larger than this many bytes are streamed: EINRT_STREAM_BYTES, else 16 MiB (not
// the last-level cache's size from sysconf: virtual machines report the host's, 256 MiB
// on this project's 32 MiB-per-core-complex VM).
int64_t streamBytes();

// Streamed runs are at least this many bytes long (shorter ones keep plain stores: the
// alignment prologue and the chunking would cost more than the stores save).
inline constexpr int64_t kStreamRunBytes = 1024;

// The one rule of the elementwise kernel (elementwise.h), which the planner's kernel model
// applies too: a call over nest `n` streams when it writes its output once (no combining
// into it) and the output is larger than `threshold` bytes (streamBytes() in a program);
// within it, a run streams when it is contiguous and at least kStreamRunBytes long.
inline bool streamsCall(const LoopNest& n, int64_t elementBytes, int64_t threshold, bool accumulate) {
  return !accumulate && !n.aggregates && n.outputElements * elementBytes > threshold;
}
inline bool streamsRun(int64_t runElements, int64_t strideZ, int64_t elementBytes) {
  return strideZ == 1 && runElements * elementBytes >= kStreamRunBytes;
}

#if defined(EINRT_STREAMING_STORES)

// The alignment a destination needs, and the unit of streamChunk: one AVX store where the
// build has AVX, else one SSE2 store (every x86-64 CPU).
#if defined(__AVX__)
inline constexpr int64_t kStreamAlign = 32;
#else
inline constexpr int64_t kStreamAlign = 16;
#endif

// Copies `bytes` (a multiple of kStreamAlign) from `from` (64-byte aligned: a buffer in
// the first-level cache) to `to` (kStreamAlign-aligned) with streaming stores.
inline void streamChunk(const void* from, void* to, int64_t bytes) {
  const char* s = static_cast<const char*>(from);
  char* d = static_cast<char*>(to);
  for (int64_t k = 0; k < bytes; k += kStreamAlign) {
#if defined(__AVX__)
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + k), _mm256_load_si256(reinterpret_cast<const __m256i*>(s + k)));
#else
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + k), _mm_load_si128(reinterpret_cast<const __m128i*>(s + k)));
#endif
  }
}

inline void streamFence() { _mm_sfence(); }

#endif

}  // namespace einrt::program
