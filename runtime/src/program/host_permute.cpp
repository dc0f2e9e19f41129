#include <algorithm>
#include <stdexcept>

#include "einrt/program/permute.h"

namespace einrt::program {

namespace {

// 16 x 16 tiles: 16 source rows of a large power-of-two stride share an L1 set, and 32
// of them no longer fit its 12 ways (a 4096^2 f32 transpose: 8.5 GB/s at 16, 5.9 at 32).
constexpr int64_t kTile = 16;

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

// Calls visit(srcOffset, dstOffset) for every index of the dimensions other than `skipA`
// and `skipB`, as an odometer.
template <class Visit>
void outerLoops(const Permutation& p, int skipA, int skipB, Visit visit) {
  int64_t idx[kMaxLoops] = {};
  int64_t s = 0, t = 0;
  for (;;) {
    visit(s, t);
    int d = p.dims - 1;
    for (; d >= 0; --d) {
      if (d == skipA || d == skipB) continue;
      s += p.srcStride[d];
      t += p.dstStride[d];
      if (++idx[d] < p.extent[d]) break;
      s -= idx[d] * p.srcStride[d];
      t -= idx[d] * p.dstStride[d];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

template <class T>
void permute(const Permutation& original, const T* src, T* dst, bool accumulate) {
  if (original.elements == 0) return;
  const Permutation p = simplified(original);
  if (p.dims == 0) {
    dst[0] = accumulate ? dst[0] + src[0] : src[0];
    return;
  }
  int a = -1, b = -1;  // the source's and the destination's contiguous dimensions
  for (int d = 0; d < p.dims; ++d) {
    if (p.srcStride[d] == 1) a = d;
    if (p.dstStride[d] == 1) b = d;
  }
  if (a < 0 || b < 0 || a == b) {
    // One run per row of the innermost (or the commonly contiguous) dimension.
    const int inner = a >= 0 && a == b ? a : p.dims - 1;
    const int64_t n = p.extent[inner], ss = p.srcStride[inner], ds = p.dstStride[inner];
    outerLoops(p, inner, inner, [&](int64_t s, int64_t t) {
      if (accumulate)
        for (int64_t i = 0; i < n; ++i) dst[t + i * ds] += src[s + i * ss];
      else
        for (int64_t i = 0; i < n; ++i) dst[t + i * ds] = src[s + i * ss];
    });
    return;
  }
  // Square tiles of (a, b): reads run along a, writes along b, each within a tile.
  const int64_t na = p.extent[a], nb = p.extent[b], da = p.dstStride[a], sb = p.srcStride[b];
  outerLoops(p, a, b, [&](int64_t s, int64_t t) {
    for (int64_t ib = 0; ib < nb; ib += kTile)
      for (int64_t ia = 0; ia < na; ia += kTile) {
        const int64_t eb = std::min(nb, ib + kTile), ea = std::min(na, ia + kTile);
        for (int64_t i = ia; i < ea; ++i) {
          const T* from = src + s + i + ib * sb;
          T* to = dst + t + i * da + ib;
          if (accumulate)
            for (int64_t j = 0; j < eb - ib; ++j) to[j] += from[j * sb];
          else
            for (int64_t j = 0; j < eb - ib; ++j) to[j] = from[j * sb];
        }
      }
  });
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

void hostPermute(const Permutation& p, const float* src, float* dst, bool accumulate) { permute(p, src, dst, accumulate); }
void hostPermute(const Permutation& p, const double* src, double* dst, bool accumulate) { permute(p, src, dst, accumulate); }

}  // namespace einrt::program
