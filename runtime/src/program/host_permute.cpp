#include <algorithm>
#include <cstdint>
#include <stdexcept>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "einrt/program/permute.h"

namespace einrt::program {

namespace {

// The 2-D transpose at the heart of every permutation runs in three levels, each for a
// reason measured on a 4096^2 f32 transpose (6.2 GB/s with 16 x 16 tiles alone, 14-17 now):
// - kBlock x kBlock blocks keep both the source rows and the destination rows being
//   visited few enough that each is read or written in runs of kBlock elements, which
//   the prefetchers and DRAM pages serve well (tiles alone left 64-128 B runs);
// - kTile x kTile tiles go through a small buffer, so that every source line is read
//   whole and every destination line written whole, one after the other (straight copies
//   touch kTile lines of a large power-of-two stride per column, which share an L1 set);
// - 4 x 4 (f32) or 2 x 2 (f64) sub-blocks are transposed in vector registers.
// Destinations of at least kStreamBytes are written with non-temporal stores: they do not
// fit the caches anyway, and skipping the read-for-ownership of each line saves a third
// of the memory traffic.
constexpr int64_t kTile = 32;
constexpr int64_t kBlock = 256;
constexpr int64_t kStreamBytes = int64_t{16} << 20;

// Drops unit extents and merges neighbouring dimensions contiguous in both tensors.
Permutation simplified(const Permutation& in) {
  Permutation p;
  p.elements = in.elements;
  for (int d = 0; d < in.dims; ++d) {
    if (in.extent[d] == 1) continue;
    if (p.dims > 0) {
      const int last = p.dims - 1;
      if (p.srcStride[last] == in.srcStride[d] * in.extent[d] && p.dstStride[last] == in.dstStride[d] * in.extent[d]) {
        p.extent[last] *= in.extent[d];
        p.srcStride[last] = in.srcStride[d];
        p.dstStride[last] = in.dstStride[d];
        continue;
      }
    }
    p.extent[p.dims] = in.extent[d];
    p.srcStride[p.dims] = in.srcStride[d];
    p.dstStride[p.dims] = in.dstStride[d];
    ++p.dims;
  }
  return p;
}

// Any element type (bf16 and f16 move as 2-byte values; SSE overloads below for f32, f64).
template <class T>
void block4(const T* src, T* dst, int64_t sb, int64_t da) {
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) dst[i * da + j] = src[j * sb + i];
}
template <class T>
void streamRow(const T* row, T* to) {
  for (int64_t j = 0; j < kTile; ++j) to[j] = row[j];
}

// Accumulating into 2-byte storage adds in f32 and rounds once.
template <class T>
inline void addTo(T& to, T from) {
  to = T(static_cast<Compute<T>>(to) + static_cast<Compute<T>>(from));
}

#if defined(__SSE2__)
// 4 x 4 elements: four source rows (along a) become four destination rows (along b).
inline void block4(const float* src, float* dst, int64_t sb, int64_t da) {
  __m128 r0 = _mm_loadu_ps(src), r1 = _mm_loadu_ps(src + sb), r2 = _mm_loadu_ps(src + 2 * sb),
         r3 = _mm_loadu_ps(src + 3 * sb);
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  _mm_storeu_ps(dst, r0);
  _mm_storeu_ps(dst + da, r1);
  _mm_storeu_ps(dst + 2 * da, r2);
  _mm_storeu_ps(dst + 3 * da, r3);
}

inline void block4(const double* src, double* dst, int64_t sb, int64_t da) {
  for (int h = 0; h < 4; h += 2)
    for (int v = 0; v < 4; v += 2) {
      const double* s = src + v * sb + h;
      double* t = dst + h * da + v;
      const __m128d r0 = _mm_loadu_pd(s), r1 = _mm_loadu_pd(s + sb);
      _mm_storeu_pd(t, _mm_unpacklo_pd(r0, r1));
      _mm_storeu_pd(t + da, _mm_unpackhi_pd(r0, r1));
    }
}

// One buffered tile row written with non-temporal stores (`to` 16-byte aligned).
inline void streamRow(const float* row, float* to) {
  for (int64_t j = 0; j < kTile; j += 4) _mm_stream_ps(to + j, _mm_load_ps(row + j));
}
inline void streamRow(const double* row, double* to) {
  for (int64_t j = 0; j < kTile; j += 2) _mm_stream_pd(to + j, _mm_load_pd(row + j));
}
inline void streamFence() { _mm_sfence(); }
#else
inline void streamFence() {}
#endif

// One tile: dst[i * da + j] (+)= src[j * sb + i] for i in [0, wa), j in [0, wb), through
// buf[i * kTile + j], with edges narrower than 4 copied element by element.
template <class T>
void transposeTile(const T* src, T* dst, int64_t wa, int64_t wb, int64_t sb, int64_t da, bool accumulate,
                   bool stream) {
  alignas(64) T buf[kTile * kTile];
  const int64_t fa = wa / 4 * 4, fb = wb / 4 * 4;
  for (int64_t j = 0; j < fb; j += 4) {
    for (int64_t i = 0; i < fa; i += 4) block4(src + j * sb + i, buf + i * kTile + j, sb, kTile);
    for (int64_t i = fa; i < wa; ++i)
      for (int64_t v = j; v < j + 4; ++v) buf[i * kTile + v] = src[v * sb + i];
  }
  for (int64_t j = fb; j < wb; ++j)
    for (int64_t i = 0; i < wa; ++i) buf[i * kTile + j] = src[j * sb + i];
  for (int64_t i = 0; i < wa; ++i) {
    T* to = dst + i * da;
    const T* row = buf + i * kTile;
    if (accumulate)
      for (int64_t j = 0; j < wb; ++j) addTo(to[j], row[j]);
    else if (stream && wb == kTile && reinterpret_cast<std::uintptr_t>(to) % 16 == 0)
      streamRow(row, to);
    else
      for (int64_t j = 0; j < wb; ++j) to[j] = row[j];
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
      if (d == skipA || d == skipB) continue;
      idx[d] = flat % p.extent[d];
      flat /= p.extent[d];
      s += idx[d] * p.srcStride[d];
      t += idx[d] * p.dstStride[d];
    }
  }
  void next() {
    for (int d = p.dims - 1; d >= 0; --d) {
      if (d == skipA || d == skipB) continue;
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
  bool accumulate, stream;
  int a = -1, b = -1, inner = -1;  // transposed dimensions, or the copy's run dimension
  int64_t blocksA = 1, blocksB = 1, items = 0;

  void copyRows(int64_t first, int64_t last) const {
    const int64_t n = p.extent[inner], ss = p.srcStride[inner], ds = p.dstStride[inner];
    OuterWalk walk(p, inner, inner, first);
    for (int64_t row = first; row < last; ++row, walk.next()) {
      const T* from = src + walk.s;
      T* to = dst + walk.t;
      if (ss == 1 && ds == 1) {
        if (accumulate)
          for (int64_t i = 0; i < n; ++i) addTo(to[i], from[i]);
        else
          std::copy(from, from + n, to);
      } else if (accumulate) {
        for (int64_t i = 0; i < n; ++i) addTo(to[i * ds], from[i * ss]);
      } else {
        for (int64_t i = 0; i < n; ++i) to[i * ds] = from[i * ss];
      }
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
      for (int64_t ib = ob; ib < std::min(nb, ob + kBlock); ib += kTile)
        for (int64_t ia = oa; ia < std::min(na, oa + kBlock); ia += kTile)
          transposeTile(src + s + ib * sb + ia, dst + t + ia * da + ib, std::min(kTile, na - ia), std::min(kTile, nb - ib),
                        sb, da, accumulate, stream);
    }
    // Non-temporal stores are weakly ordered: each thread makes its own visible before the
    // permutation is done and anyone reads dst.
    if (stream) streamFence();
  }

  void run(int64_t first, int64_t last) const {
    if (inner >= 0) copyRows(first, last);
    else transposeBlocks(first, last);
  }
};

template <class T>
void permute(const Permutation& original, const T* src, T* dst, bool accumulate, int threads, ParallelForFn parallelFor) {
  if (original.elements == 0) return;
  PermuteWork<T> w{simplified(original), src, dst, accumulate, false};
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
    w.items = p.elements / p.extent[w.inner];
  } else {
    w.blocksA = (p.extent[w.a] + kBlock - 1) / kBlock;
    w.blocksB = (p.extent[w.b] + kBlock - 1) / kBlock;
    w.items = p.elements / (p.extent[w.a] * p.extent[w.b]) * w.blocksA * w.blocksB;
    w.stream = !accumulate && p.elements * static_cast<int64_t>(sizeof(T)) >= kStreamBytes;
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

Permutation reorder(const std::vector<int64_t>& storedExtent, const std::vector<int>& order, bool scatter) {
  if (storedExtent.size() > static_cast<std::size_t>(kMaxLoops) || order.size() != storedExtent.size())
    throw std::invalid_argument("einrt: bad permutation");
  std::vector<int64_t> storedStride(storedExtent.size(), 1);
  for (std::size_t d = storedExtent.size(); d-- > 1;) storedStride[d - 1] = storedStride[d] * storedExtent[d];
  Permutation p;
  p.dims = static_cast<int>(order.size());
  int64_t newStride = 1;
  for (int i = p.dims - 1; i >= 0; --i) {
    const auto stored = static_cast<std::size_t>(order[static_cast<std::size_t>(i)]);
    p.extent[i] = storedExtent[stored];
    // Gather: read the stored order, write the new one; scatter: the reverse.
    p.srcStride[i] = scatter ? newStride : storedStride[stored];
    p.dstStride[i] = scatter ? storedStride[stored] : newStride;
    newStride *= p.extent[i];
  }
  p.elements = newStride;
  return p;
}

PermutationWork permutationWork(const Permutation& original) {
  PermutationWork w;
  if (original.elements == 0) return w;
  const Permutation p = simplified(original);
  if (p.dims == 0) return {false, 1, 0};
  int a = -1, b = -1;  // as permute() finds them
  for (int d = 0; d < p.dims; ++d) {
    if (p.srcStride[d] == 1) a = d;
    if (p.dstStride[d] == 1) b = d;
  }
  if (a < 0 || b < 0 || a == b) {
    const int inner = a >= 0 && a == b ? a : p.dims - 1;
    w.runs = p.elements / p.extent[inner];
    return w;
  }
  w.transposes = true;
  const int64_t tilesAB = (p.extent[a] + kTile - 1) / kTile * ((p.extent[b] + kTile - 1) / kTile);
  w.tiles = p.elements / (p.extent[a] * p.extent[b]) * tilesAB;
  return w;
}

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
