// The generic kernel of every node that is not a GEMM: elementwise joins, broadcasts and
// reductions, Z[out] = agg over the aggregated labels of join(X, Y), run over a LoopNest
// (loop_nest.h). Header-only: the emitted program instantiates it with each node's scalar
// functor `Ops` (static join(x, y), combine(a, b), identity()), so join and aggregation
// inline into the loops. The inner loop comes in a few shapes chosen once per call —
// operand strides 0 (broadcast), 1 (contiguous) or any; writing a run of Z, or reducing
// into one element with 32 independent accumulators — written so that the compiler
// vectorizes them (`#pragma omp simd`, and the functors avoid libm calls that would not
// vectorize, see math.h). Outer loops advance offsets by strides: no division or modulo
// per element. With `threads` > 1 (and OpenMP) the output loops are split between threads.
// Storage types bf16 and f16 (einrt/half.h) are read into f32 (`Compute<T>`), joined,
// aggregated in f32 and rounded once when the result is stored.
#pragma once

#include <algorithm>
#include <cstdint>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "einrt/half.h"
#include "einrt/program/loop_nest.h"
#include "einrt/program/streaming_stores.h"

namespace einrt::program {

namespace elementwise_detail {

// Calls below this many points run on one thread (thread start-up would dominate).
inline constexpr int64_t kParallelPoints = 1 << 15;

enum Kind { Zero = 0, Unit = 1, Any = 2 };

inline int kindOf(int64_t stride) { return stride == 0 ? Zero : stride == 1 ? Unit : Any; }

template <int K, class T>
inline Compute<T> at(const T* p, int64_t i, int64_t stride) {
  if constexpr (K == Zero) return loadElement(p, 0);
  else if constexpr (K == Unit) return loadElement(p, i);
  else return loadElement(p, i * stride);
}

#if defined(EINRT_STREAMING_STORES)
// z[i] = join(x, y) for i < n, with streaming stores (streaming_stores.h): results are
// computed a chunk of 128 bytes at a time into a buffer in the first-level cache and
// streamed out. Chunks of 64-256 bytes measured best for a 4096^2 f32 exp (80-89 % of the
// one-thread triad and 92-100 % of the two-thread one, where 1 KiB chunks and plain
// stores gave 60-77 %: bench/RESULTS.md "Streaming stores").
template <class T, class Ops, int KX, int KY>
inline void innerOutputStreamed(int64_t n, const T* __restrict x, int64_t sx, const T* __restrict y, int64_t sy,
                                T* __restrict z) {
  using C = Compute<T>;
  constexpr int64_t kChunk = 128 / static_cast<int64_t>(sizeof(T));
  alignas(64) T chunk[kChunk];
  int64_t i = 0;
  for (; i < n && reinterpret_cast<uintptr_t>(z + i) % kStreamAlign != 0; ++i)
    storeElement(z, i, Ops::template join<C>(at<KX>(x, i, sx), at<KY>(y, i, sy)));
  for (; i + kChunk <= n; i += kChunk) {
#pragma omp simd
    for (int64_t k = 0; k < kChunk; ++k)
      storeElement(chunk, k, Ops::template join<C>(at<KX>(x, i + k, sx), at<KY>(y, i + k, sy)));
    streamChunk(chunk, z + i, 128);
  }
  for (; i < n; ++i) storeElement(z, i, Ops::template join<C>(at<KX>(x, i, sx), at<KY>(y, i, sy)));
}
#endif

// z[i * sz] (+)= join(x, y) for i < n; `stream`: the call's output is larger than
// streamBytes(), contiguous runs are streamed (the caller fences).
template <class T, class Ops, int KX, int KY>
inline void innerOutput(int64_t n, const T* __restrict x, int64_t sx, const T* __restrict y, int64_t sy,
                        T* __restrict z, int64_t sz, bool combine, bool stream) {
  using C = Compute<T>;
#if defined(EINRT_STREAMING_STORES)
  if (stream && !combine && streamsRun(n, sz, static_cast<int64_t>(sizeof(T)))) {
    innerOutputStreamed<T, Ops, KX, KY>(n, x, sx, y, sy, z);
    return;
  }
#else
  (void)stream;
#endif
  if (sz == 1 && !combine) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) storeElement(z, i, Ops::template join<C>(at<KX>(x, i, sx), at<KY>(y, i, sy)));
  } else if (sz == 1) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i)
      storeElement(z, i, Ops::template combine<C>(loadElement(z, i), Ops::template join<C>(at<KX>(x, i, sx), at<KY>(y, i, sy))));
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const C v = Ops::template join<C>(at<KX>(x, i, sx), at<KY>(y, i, sy));
      storeElement(z, i * sz, combine ? Ops::template combine<C>(loadElement(z, i * sz), v) : v);
    }
  }
}

// agg over i < n of join(x, y), in 32 independent lanes: vectorizable for any agg, and four
// AVX2 (two AVX-512) accumulators hide the latency of a combine such as max (3x faster
// than one vector of eight).
template <class T, class Ops, int KX, int KY>
inline Compute<T> innerReduce(int64_t n, const T* __restrict x, int64_t sx, const T* __restrict y, int64_t sy) {
  using C = Compute<T>;
  constexpr int kLanes = 32;
  C lane[kLanes];
  for (int k = 0; k < kLanes; ++k) lane[k] = Ops::template identity<C>();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
#pragma omp simd
    for (int k = 0; k < kLanes; ++k)
      lane[k] = Ops::template combine<C>(lane[k], Ops::template join<C>(at<KX>(x, i + k, sx), at<KY>(y, i + k, sy)));
  for (; i < n; ++i) lane[0] = Ops::template combine<C>(lane[0], Ops::template join<C>(at<KX>(x, i, sx), at<KY>(y, i, sy)));
  C result = lane[0];
  for (int k = 1; k < kLanes; ++k) result = Ops::template combine<C>(result, lane[k]);
  return result;
}

template <class T>
using InnerOutputFn = void (*)(int64_t, const T*, int64_t, const T*, int64_t, T*, int64_t, bool, bool);
template <class T>
using InnerReduceFn = Compute<T> (*)(int64_t, const T*, int64_t, const T*, int64_t);

// The inner loop's shape for this nest, chosen once per call (the outer loops are shared
// by every shape, so only these small loops are compiled per shape).
template <class T, class Ops, bool Reduces>
struct InnerLoops {
  InnerOutputFn<T> output = nullptr;
  InnerReduceFn<T> reduce = nullptr;
};

template <class T, class Ops, bool Reduces, int KX>
InnerLoops<T, Ops, Reduces> pickY(int ky) {
  InnerLoops<T, Ops, Reduces> f;
  switch (ky) {
    case Zero: f.output = &innerOutput<T, Ops, KX, Zero>; break;
    case Unit: f.output = &innerOutput<T, Ops, KX, Unit>; break;
    default: f.output = &innerOutput<T, Ops, KX, Any>; break;
  }
  if constexpr (Reduces) {
    switch (ky) {
      case Zero: f.reduce = &innerReduce<T, Ops, KX, Zero>; break;
      case Unit: f.reduce = &innerReduce<T, Ops, KX, Unit>; break;
      default: f.reduce = &innerReduce<T, Ops, KX, Any>; break;
    }
  }
  return f;
}

template <class T, class Ops, bool Reduces>
InnerLoops<T, Ops, Reduces> pickInner(const LoopNest& n) {
  const int ky = kindOf(n.strideY[n.depth - 1]);
  switch (kindOf(n.strideX[n.depth - 1])) {
    case Zero: return pickY<T, Ops, Reduces, Zero>(ky);
    case Unit: return pickY<T, Ops, Reduces, Unit>(ky);
    default: return pickY<T, Ops, Reduces, Any>(ky);
  }
}

// The outer loops [0, inner) over outer index range [first, last) of the flattened
// parallel loops, and the inner loop over [begin, end).
template <class T, class Ops, bool Reduces>
void runRange(const LoopNest& n, const InnerLoops<T, Ops, Reduces>& f, const T* X, const T* Y, T* Z, bool combine,
              bool stream, int64_t first, int64_t last, int64_t begin, int64_t end) {
  const int inner = n.depth - 1, parallel = n.parallelLoops;
  int64_t idx[kMaxLoops] = {};
  int64_t rest = first;
  int64_t ox = 0, oy = 0, oz = 0;
  for (int d = parallel - 1; d >= 0; --d) {
    idx[d] = rest % n.extent[d];
    rest /= n.extent[d];
    ox += idx[d] * n.strideX[d];
    oy += idx[d] * n.strideY[d];
    oz += idx[d] * n.strideZ[d];
  }
  const int64_t count = end - begin;
  const int64_t sx = n.strideX[inner], sy = n.strideY[inner], sz = n.strideZ[inner];
  for (int64_t f0 = first; f0 < last; ++f0) {
    // The aggregated (non-parallel) outer loops, as an odometer.
    int64_t sub[kMaxLoops] = {};
    int64_t px = ox, py = oy, pz = oz;
    for (;;) {
      const T* x = X + px + begin * sx;
      const T* y = Y + py + begin * sy;
      T* z = Z + pz + begin * sz;
      if constexpr (Reduces) {
        if (sz == 0) {
          using C = Compute<T>;
          const C v = f.reduce(count, x, sx, y, sy);
          *z = T(combine ? Ops::template combine<C>(C(*z), v) : v);
        } else {
          f.output(count, x, sx, y, sy, z, sz, combine, stream);
        }
      } else {
        f.output(count, x, sx, y, sy, z, sz, combine, stream);
      }
      int d = inner - 1;
      for (; d >= parallel; --d) {
        px += n.strideX[d];
        py += n.strideY[d];
        pz += n.strideZ[d];
        if (++sub[d] < n.extent[d]) break;
        px -= sub[d] * n.strideX[d];
        py -= sub[d] * n.strideY[d];
        pz -= sub[d] * n.strideZ[d];
        sub[d] = 0;
      }
      if (d < parallel) break;
    }
    for (int d = parallel - 1; d >= 0; --d) {
      ox += n.strideX[d];
      oy += n.strideY[d];
      oz += n.strideZ[d];
      if (++idx[d] < n.extent[d]) break;
      ox -= idx[d] * n.strideX[d];
      oy -= idx[d] * n.strideY[d];
      oz -= idx[d] * n.strideZ[d];
      idx[d] = 0;
    }
  }
#if defined(EINRT_STREAMING_STORES)
  if (stream) streamFence();
#endif
}

template <class T, class Ops, bool Reduces>
void runNest(const LoopNest& n, const T* X, const T* Y, T* Z, bool combine, bool stream, int threads) {
  const InnerLoops<T, Ops, Reduces> f = pickInner<T, Ops, Reduces>(n);
  int64_t outer = 1;
  for (int d = 0; d < n.parallelLoops; ++d) outer *= n.extent[d];
  const int64_t innerExtent = n.extent[n.depth - 1];
  const bool innerIsOutput = n.strideZ[n.depth - 1] != 0;
#if defined(_OPENMP)
  if (threads > 1 && n.points >= kParallelPoints && (outer >= threads || innerIsOutput)) {
#pragma omp parallel num_threads(threads)
    {
      const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
      if (outer >= nt) {
        runRange<T, Ops, Reduces>(n, f, X, Y, Z, combine, stream, outer * t / nt, outer * (t + 1) / nt, 0, innerExtent);
      } else {
        // Few outer iterations: split the inner (output) loop instead.
        runRange<T, Ops, Reduces>(n, f, X, Y, Z, combine, stream, 0, outer, innerExtent * t / nt, innerExtent * (t + 1) / nt);
      }
    }
    return;
  }
#endif
  (void)threads;
  (void)innerIsOutput;
  runRange<T, Ops, Reduces>(n, f, X, Y, Z, combine, stream, 0, outer, 0, innerExtent);
}

}  // namespace elementwise_detail

// One kernel call: Z = einsum(X, Y) over the nest, or Z = combine(Z, einsum) with
// `accumulate` (a rank running several calls that share an output block). Y is null for
// unary nodes. `threads`: threads to split the work between (OpenMP builds). `Reduces`:
// the node aggregates some label (only then are the reducing inner loops compiled).
template <class T, class Ops, bool Reduces = true>
void elementwise(const LoopNest& n, const T* X, const T* Y, T* Z, bool accumulate, int threads = 1) {
  using namespace elementwise_detail;
  using C = Compute<T>;
  static const T zero = T(0);
  if (!Y) Y = &zero;
  if (n.depth == 0) {
    const C v = Ops::template join<C>(C(X[0]), C(Y[0]));
    Z[0] = T(accumulate ? Ops::template combine<C>(C(Z[0]), v) : v);
    return;
  }
  if (n.aggregates && !accumulate) std::fill(Z, Z + n.outputElements, T(Ops::template identity<C>()));
  // Outputs too large for the caches are streamed (written once, not combined into).
  const bool stream = streamsCall(n, static_cast<int64_t>(sizeof(T)), streamBytes(), accumulate);
  runNest<T, Ops, Reduces>(n, X, Y, Z, accumulate || n.aggregates, stream, threads);
}

}  // namespace einrt::program
