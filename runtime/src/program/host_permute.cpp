#include <algorithm>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <stdexcept>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "einrt/program/permute.h"
#include "einrt/program/streaming_stores.h"

namespace einrt::program {

namespace {

// The 2-D transpose at the heart of every permutation runs in two levels, each for a
// reason measured on a 4096^2 f32 transpose (bench/RESULTS.md, issue 29):
// - kBlock x kBlock blocks (the work items split among threads) keep the source rows and
//   the destination rows being visited few enough that each is read or written in runs
//   of kBlock elements, which the prefetchers and DRAM pages serve well;
// - squares of 8 x 8 (f32, and 2-byte types) or 4 x 4 (f64) elements are transposed in
//   vector registers, straight from the source's rows into the destination's: AVX where
//   the processor has it (chosen at run time: einrt is built for any x86-64), SSE2 else.
//   Plain stores for transposes that fit the caches; larger ones stream whole tiles
//   (streamTileAvx below): non-temporal stores of half lines straight from the squares
//   were slower than plain ones, of whole rows from a buffered tile faster.
// The walk's rules (which dimensions, how many tiles) are in
// runtime/src/model/permutation_walk.cpp, which the planner's kernel model reads too.
constexpr int64_t kBlock = kPermuteBlock;

// Accumulating into 2-byte storage adds in f32 and rounds once.
template <class T>
inline void addTo(T& to, T from) {
  to = T(static_cast<Compute<T>>(to) + static_cast<Compute<T>>(from));
}

// dst[i * da + j] = src[j * sb + i] for a square of Square<T> elements, in registers.
template <class T>
struct Square {
  static constexpr int64_t kSide = sizeof(T) == 8 ? 4 : 8;
  static void portable(const T* src, int64_t sb, T* dst, int64_t da) {
    for (int64_t i = 0; i < kSide; ++i)
      for (int64_t j = 0; j < kSide; ++j) dst[i * da + j] = src[j * sb + i];
  }
};

#if defined(__x86_64__)
__attribute__((target("avx"))) void square8(const float* s, int64_t sb, float* d, int64_t da) {
  const __m256 r0 = _mm256_loadu_ps(s), r1 = _mm256_loadu_ps(s + sb), r2 = _mm256_loadu_ps(s + 2 * sb),
               r3 = _mm256_loadu_ps(s + 3 * sb), r4 = _mm256_loadu_ps(s + 4 * sb), r5 = _mm256_loadu_ps(s + 5 * sb),
               r6 = _mm256_loadu_ps(s + 6 * sb), r7 = _mm256_loadu_ps(s + 7 * sb);
  const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1), t2 = _mm256_unpacklo_ps(r2, r3),
               t3 = _mm256_unpackhi_ps(r2, r3), t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5),
               t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE),
               u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE),
               u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE),
               u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  _mm256_storeu_ps(d, _mm256_permute2f128_ps(u0, u4, 0x20));
  _mm256_storeu_ps(d + da, _mm256_permute2f128_ps(u1, u5, 0x20));
  _mm256_storeu_ps(d + 2 * da, _mm256_permute2f128_ps(u2, u6, 0x20));
  _mm256_storeu_ps(d + 3 * da, _mm256_permute2f128_ps(u3, u7, 0x20));
  _mm256_storeu_ps(d + 4 * da, _mm256_permute2f128_ps(u0, u4, 0x31));
  _mm256_storeu_ps(d + 5 * da, _mm256_permute2f128_ps(u1, u5, 0x31));
  _mm256_storeu_ps(d + 6 * da, _mm256_permute2f128_ps(u2, u6, 0x31));
  _mm256_storeu_ps(d + 7 * da, _mm256_permute2f128_ps(u3, u7, 0x31));
}

__attribute__((target("avx"))) void square4(const double* s, int64_t sb, double* d, int64_t da) {
  const __m256d r0 = _mm256_loadu_pd(s), r1 = _mm256_loadu_pd(s + sb), r2 = _mm256_loadu_pd(s + 2 * sb),
                r3 = _mm256_loadu_pd(s + 3 * sb);
  const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1), t2 = _mm256_unpacklo_pd(r2, r3),
                t3 = _mm256_unpackhi_pd(r2, r3);
  _mm256_storeu_pd(d, _mm256_permute2f128_pd(t0, t2, 0x20));
  _mm256_storeu_pd(d + da, _mm256_permute2f128_pd(t1, t3, 0x20));
  _mm256_storeu_pd(d + 2 * da, _mm256_permute2f128_pd(t0, t2, 0x31));
  _mm256_storeu_pd(d + 3 * da, _mm256_permute2f128_pd(t1, t3, 0x31));
}

// 8 x 8 two-byte values (bf16, f16 move as bits): SSE2, part of every x86-64.
void square8(const uint16_t* s, int64_t sb, uint16_t* d, int64_t da) {
  __m128i r[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i * sb));
  __m128i a[8], b[8];
  for (int i = 0; i < 4; ++i) {
    a[2 * i] = _mm_unpacklo_epi16(r[2 * i], r[2 * i + 1]);
    a[2 * i + 1] = _mm_unpackhi_epi16(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 2; ++i)
    for (int h = 0; h < 2; ++h) {
      b[4 * i + 2 * h] = _mm_unpacklo_epi32(a[4 * i + h], a[4 * i + 2 + h]);
      b[4 * i + 2 * h + 1] = _mm_unpackhi_epi32(a[4 * i + h], a[4 * i + 2 + h]);
    }
  for (int q = 0; q < 4; ++q) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + (2 * q) * da), _mm_unpacklo_epi64(b[q], b[4 + q]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d + (2 * q + 1) * da), _mm_unpackhi_epi64(b[q], b[4 + q]));
  }
}
#endif

// The squares of one tile: whole squares in registers through `square`, inlined into the
// loops (a call per square cost a fifth of the time), the edges element by element.
template <class T, class SquareFn>
inline __attribute__((always_inline)) void tileSquares(const T* src, T* dst, int64_t wa, int64_t wb, int64_t sb,
                                                       int64_t da, SquareFn square) {
  constexpr int64_t q = Square<T>::kSide;
  const int64_t fa = wa / q * q, fb = wb / q * q;
  for (int64_t j = 0; j < fb; j += q)
    for (int64_t i = 0; i < fa; i += q) square(src + j * sb + i, sb, dst + i * da + j, da);
  for (int64_t i = fa; i < wa; ++i)
    for (int64_t j = 0; j < wb; ++j) dst[i * da + j] = src[j * sb + i];
  for (int64_t i = 0; i < fa; ++i)
    for (int64_t j = fb; j < wb; ++j) dst[i * da + j] = src[j * sb + i];
}

template <class T>
void tilePortable(const T* src, T* dst, int64_t wa, int64_t wb, int64_t sb, int64_t da) {
  tileSquares(src, dst, wa, wb, sb, da, &Square<T>::portable);
}

#if defined(__x86_64__)
__attribute__((target("avx"))) void tileAvx(const float* src, float* dst, int64_t wa, int64_t wb, int64_t sb, int64_t da) {
  tileSquares(src, dst, wa, wb, sb, da, [](const float* s, int64_t ssb, float* d, int64_t dda) __attribute__((target("avx"))) {
    square8(s, ssb, d, dda);
  });
}
__attribute__((target("avx"))) void tileAvx(const double* src, double* dst, int64_t wa, int64_t wb, int64_t sb, int64_t da) {
  tileSquares(src, dst, wa, wb, sb, da, [](const double* s, int64_t ssb, double* d, int64_t dda) __attribute__((target("avx"))) {
    square4(s, ssb, d, dda);
  });
}
void tileSse2(const uint16_t* src, uint16_t* dst, int64_t wa, int64_t wb, int64_t sb, int64_t da) {
  tileSquares(src, dst, wa, wb, sb, da, [](const uint16_t* s, int64_t ssb, uint16_t* d, int64_t dda) { square8(s, ssb, d, dda); });
}

const bool kHaveAvx = __builtin_cpu_supports("avx");

// A whole kBlock x kBlock tile transposed into a buffer in the first-level cache, then
// written out in whole rows with non-temporal stores (no read of the destination's lines
// before they are written, no eviction of the source's). For transposes too large for the
// caches only (streamBytes): a 4096^2 f32 transpose went from 33-37 % to 55-62 % of the
// triad (2026-11-26, one thread, interleaved runs), where earlier stores straight from the
// register squares, half-lines each, measured slower than plain ones. The destination's
// rows must be 32-byte aligned (AVX stores) or 16-byte aligned (SSE stores: malloc's large
// blocks start 16 bytes into a page); the caller fences (sfence) when its range is done.
template <class T>
__attribute__((target("avx"))) void streamTileAvx(const T* src, T* dst, int64_t sb, int64_t da, bool aligned32) {
  alignas(64) T out[kBlock * kBlock];
  tileAvx(src, out, kBlock, kBlock, sb, kBlock);
  constexpr int64_t kWide = 32 / static_cast<int64_t>(sizeof(T)), kNarrow = kWide / 2;
  for (int64_t i = 0; i < kBlock; ++i) {
    T* row = dst + i * da;
    const T* from = out + i * kBlock;
    if (aligned32) {
      for (int64_t k = 0; k < kBlock; k += kWide) {
        if constexpr (sizeof(T) == 4) _mm256_stream_ps(row + k, _mm256_load_ps(from + k));
        else _mm256_stream_pd(row + k, _mm256_load_pd(from + k));
      }
    } else {
      for (int64_t k = 0; k < kBlock; k += kNarrow) {
        if constexpr (sizeof(T) == 4) _mm_stream_ps(row + k, _mm_load_ps(from + k));
        else _mm_stream_pd(row + k, _mm_load_pd(from + k));
      }
    }
  }
}
#endif

template <class T>
void transposeTile(const T* src, T* dst, int64_t wa, int64_t wb, int64_t sb, int64_t da, bool accumulate, bool stream) {
#if defined(__x86_64__)
  if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
    const auto aligned = [&](int64_t bytes) {
      return reinterpret_cast<uintptr_t>(dst) % static_cast<uintptr_t>(bytes) == 0 &&
             (da * static_cast<int64_t>(sizeof(T))) % bytes == 0;
    };
    if (stream && !accumulate && kHaveAvx && wa == kBlock && wb == kBlock && aligned(16)) {
      streamTileAvx(src, dst, sb, da, aligned(32));
      return;
    }
  }
#else
  (void)stream;
#endif
  if (accumulate) {
    for (int64_t i = 0; i < wa; ++i)
      for (int64_t j = 0; j < wb; ++j) addTo(dst[i * da + j], src[j * sb + i]);
    return;
  }
#if defined(__x86_64__)
  if constexpr (sizeof(T) == 2) {
    tileSse2(reinterpret_cast<const uint16_t*>(src), reinterpret_cast<uint16_t*>(dst), wa, wb, sb, da);
    return;
  } else {
    if (kHaveAvx) {
      tileAvx(src, dst, wa, wb, sb, da);
      return;
    }
  }
#endif
  tilePortable(src, dst, wa, wb, sb, da);
}

// dst[0, n) = src[0, n) for a contiguous run. Runs of 8 to 64 bytes (a permutation whose
// innermost dimension is a few elements, as tw's 4-element j) as two overlapping
// fixed-size copies, which the compiler makes into vector moves: a libc call per
// 16-byte run took a fifth of tw's time (perf, 2026-11-26).
template <class T>
inline void copyRun(const T* from, T* to, int64_t n) {
  const auto bytes = static_cast<std::size_t>(n) * sizeof(T);
  auto* d = reinterpret_cast<unsigned char*>(to);
  const auto* s = reinterpret_cast<const unsigned char*>(from);
  if (bytes > 64 || bytes < 8) {
    std::copy(from, from + n, to);
  } else if (bytes > 32) {
    std::memcpy(d, s, 32);
    std::memcpy(d + bytes - 32, s + bytes - 32, 32);
  } else if (bytes > 16) {
    std::memcpy(d, s, 16);
    std::memcpy(d + bytes - 16, s + bytes - 16, 16);
  } else {
    std::memcpy(d, s, 8);
    std::memcpy(d + bytes - 8, s + bytes - 8, 8);
  }
}

// The dimensions other than `skipA` and `skipB` walked as an odometer from a flat index
// (row-major over them): the source's and the destination's offsets of the current index.
struct OuterWalk {
  const Permutation& p;
  int skipA, skipB;
  int64_t idx[kMaxLoops] = {};
  int64_t s = 0, t = 0;

  OuterWalk(const Permutation& perm, int a, int b, int64_t flat) : p(perm), skipA(a), skipB(b) {
    for (int d = p.dims - 1; d >= 0; --d) {
      if (skipped(d)) continue;
      idx[d] = flat % p.extent[d];
      flat /= p.extent[d];
      s += idx[d] * p.srcStride[d];
      t += idx[d] * p.dstStride[d];
    }
  }
  bool skipped(int d) const { return d == skipA || d == skipB; }
  void next() {
    for (int d = p.dims - 1; d >= 0; --d) {
      if (skipped(d)) continue;
      s += p.srcStride[d];
      t += p.dstStride[d];
      if (++idx[d] < p.extent[d]) return;
      s -= idx[d] * p.srcStride[d];
      t -= idx[d] * p.dstStride[d];
      idx[d] = 0;
    }
  }
};

// Below this many bytes a permutation runs on one thread.
constexpr int64_t kParallelBytes = int64_t{256} << 10;

// The work of one permutation: `items` independent pieces (rows of a copy, or kBlock x
// kBlock blocks of a transpose), split among the threads in contiguous ranges.
template <class T>
struct PermuteWork {
  Permutation p;
  const T* src;
  T* dst;
  bool accumulate;
  int a = -1, b = -1, inner = -1;  // transposed dimensions, or the copy's run dimension
  int runB = -1;                    // the copy's next dimension: the least destination stride
  bool stream = false;              // a transpose above streamBytes(): whole tiles streamed
  int64_t blocksA = 1, blocksB = 1, items = 0;

  // Runs of the dimension `inner` (contiguous in both tensors, or the innermost). Short
  // runs are the common case of a permutation into GEMM layout: tw's last step reads
  // [a f c g d j] as [a c d][f g j], 576,000 runs of 4 floats; with a libc call and an
  // odometer step per run it took 7-8 ms, against 1.5-2.4 ms for plain loops in the
  // destination's order, which this now is (1.8-2.8 ms; 2026-11-26, interleaved).
  void copyRuns(int64_t first, int64_t last) const {
    const int64_t n = p.extent[inner], ss = p.srcStride[inner], ds = p.dstStride[inner];
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
    if (ss == 1 && ds == 1 && !accumulate) {
      switch (bytes) {  // runs of a few elements as one or two vector moves each
        case 4: return copyRunBlocks<4>(first, last);
        case 8: return copyRunBlocks<8>(first, last);
        case 12: return copyRunBlocks<12>(first, last);
        case 16: return copyRunBlocks<16>(first, last);
        case 24: return copyRunBlocks<24>(first, last);
        case 32: return copyRunBlocks<32>(first, last);
        case 48: return copyRunBlocks<48>(first, last);
        case 64: return copyRunBlocks<64>(first, last);
        default: return copyRunBlocks<0>(first, last);
      }
    }
    forEachRun(first, last, [&](const T* from, T* to) {
      if (ss == 1 && ds == 1) {  // accumulating (plain copies went above)
        for (int64_t i = 0; i < n; ++i) addTo(to[i], from[i]);
      } else if (accumulate) {
        for (int64_t i = 0; i < n; ++i) addTo(to[i * ds], from[i * ss]);
      } else {
        for (int64_t i = 0; i < n; ++i) to[i * ds] = from[i * ss];
      }
    });
  }

  // Unit-stride runs of kBytes (0: any length) copied without accumulating.
  template <std::size_t kBytes>
  void copyRunBlocks(int64_t first, int64_t last) const {
    const int64_t n = p.extent[inner];
    forEachRun(first, last, [n](const T* from, T* to) {
      if constexpr (kBytes == 0) copyRun(from, to, n);
      else std::memcpy(to, from, kBytes);
    });
  }

  // Calls run(from, to) for each run of items [first, last): an item is one index of the
  // dimensions other than `inner` and `runB`, walked in the destination's order, and its
  // runs go along runB, so that writes advance in order.
  template <class Run>
  inline __attribute__((always_inline)) void forEachRun(int64_t first, int64_t last, Run run) const {
    const int64_t nb = runB >= 0 ? p.extent[runB] : 1;
    const int64_t sb = runB >= 0 ? p.srcStride[runB] : 0, db = runB >= 0 ? p.dstStride[runB] : 0;
    OuterWalk walk(p, inner, runB, first);
    for (int64_t item = first; item < last; ++item, walk.next()) {
      const T* from = src + walk.s;
      T* to = dst + walk.t;
      for (int64_t jb = 0; jb < nb; ++jb) run(from + jb * sb, to + jb * db);
    }
  }

  // Blocks, then tiles, of (a, b): reads run along a, writes along b.
  void transposeBlocks(int64_t first, int64_t last) const {
    const int64_t na = p.extent[a], nb = p.extent[b], da = p.dstStride[a], sb = p.srcStride[b];
    const int64_t blocks = blocksA * blocksB;
    OuterWalk walk(p, a, b, first / blocks);
    for (int64_t item = first; item < last; ++item) {
      if (item != first && item % blocks == 0) walk.next();
      const int64_t ob = item / blocksA % blocksB * kBlock, oa = item % blocksA * kBlock;
      const int64_t s = walk.s, t = walk.t;
      transposeTile(src + s + ob * sb + oa, dst + t + oa * da + ob, std::min(kBlock, na - oa), std::min(kBlock, nb - ob), sb,
                    da, accumulate, stream);
    }
  }

  void run(int64_t first, int64_t last) const {
    if (inner >= 0) {
      copyRuns(first, last);
    } else {
      transposeBlocks(first, last);
#if defined(__x86_64__)
      if (stream) _mm_sfence();  // this thread's non-temporal stores, ordered before its caller reads on
#endif
    }
  }
};

template <class T>
void permute(const Permutation& original, const T* src, T* dst, bool accumulate, int threads, ParallelForFn parallelFor) {
  if (original.elements == 0) return;
  PermuteWork<T> w{simplifiedPermutation(original), src, dst, accumulate};
  const Permutation& p = w.p;
  if (p.dims == 0) {
    if (accumulate) addTo(dst[0], src[0]);
    else dst[0] = src[0];
    return;
  }
  for (int d = 0; d < p.dims; ++d) {  // the source's and the destination's contiguous dimensions
    if (p.srcStride[d] == 1) w.a = d;
    if (p.dstStride[d] == 1) w.b = d;
  }
  if (w.a < 0 || w.b < 0 || w.a == w.b) {
    // One run per row of the innermost (or the commonly contiguous) dimension; unit-stride
    // runs get loops without strides, which the compiler vectorizes.
    w.inner = w.a >= 0 && w.a == w.b ? w.a : p.dims - 1;
    w.runB = permutationRunDimension(p, w.inner);
    w.items = p.elements / (p.extent[w.inner] * (w.runB >= 0 ? p.extent[w.runB] : 1));
  } else {
    w.blocksA = (p.extent[w.a] + kBlock - 1) / kBlock;
    w.blocksB = (p.extent[w.b] + kBlock - 1) / kBlock;
    w.items = p.elements / (p.extent[w.a] * p.extent[w.b]) * w.blocksA * w.blocksB;
    w.stream = p.elements * static_cast<int64_t>(sizeof(T)) > streamBytes();
  }
  if (threads > 1 && parallelFor && w.items > 1 && p.elements * static_cast<int64_t>(sizeof(T)) >= kParallelBytes) {
    parallelFor(
        w.items, threads,
        [](void* context, int64_t begin, int64_t end, int) { static_cast<const PermuteWork<T>*>(context)->run(begin, end); },
        &w);
  } else {
    w.run(0, w.items);
  }
}

}  // namespace

void hostPermute(const Permutation& p, const float* src, float* dst, bool accumulate, int threads, ParallelForFn parallelFor) {
  permute(p, src, dst, accumulate, threads, parallelFor);
}
void hostPermute(const Permutation& p, const double* src, double* dst, bool accumulate, int threads, ParallelForFn parallelFor) {
  permute(p, src, dst, accumulate, threads, parallelFor);
}
void hostPermute(const Permutation& p, const bf16* src, bf16* dst, bool accumulate, int threads, ParallelForFn parallelFor) {
  permute(p, src, dst, accumulate, threads, parallelFor);
}
void hostPermute(const Permutation& p, const f16* src, f16* dst, bool accumulate, int threads, ParallelForFn parallelFor) {
  permute(p, src, dst, accumulate, threads, parallelFor);
}

}  // namespace einrt::program
