// How einrt walks a permutation (einrt/program/permute.h): the rules the kernels in
// runtime/src/program/host_permute.cpp follow and the planner's kernel model prices, in
// einrt's model library so that the planner reads them through a public library.
#include <stdexcept>

#include "einrt/program/permute.h"

namespace einrt::program {

// Drops unit extents and merges neighbouring dimensions contiguous in both tensors.
Permutation simplifiedPermutation(const Permutation& in) {
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

// A copy's next dimension after its runs along `inner`: the least destination stride (-1:
// none), so that the runs of one item advance through the destination in order.
int permutationRunDimension(const Permutation& p, int inner) {
  int runB = -1;
  for (int d = 0; d < p.dims; ++d)
    if (d != inner && (runB < 0 || p.dstStride[d] < p.dstStride[runB])) runB = d;
  return runB;
}

namespace {

// The cache line, and the most bytes of lines a copy's walk may touch between two visits
// of one line for the second to find it cached (a fraction of a core's L2).
constexpr int64_t kLineBytes = 64, kRevisitBytes = int64_t{256} << 10;

// PermutationWork::wastedBytes of a copy of unit-stride runs along `inner`, walked as
// PermuteWork::forEachRun walks them: along runB, then the other dimensions, the last
// fastest. The first loop of that walk whose source stride stays within a line comes back
// to the lines the loops inside it touched; if those fit kRevisitBytes, nothing is wasted.
int64_t wastedLineBytes(const Permutation& p, int inner, int64_t elementBytes, int64_t runs) {
  const int64_t runBytes = p.extent[inner] * elementBytes;
  if (p.srcStride[inner] != 1 || runBytes >= kLineBytes) return 0;
  const int runB = permutationRunDimension(p, inner);
  int walk[kMaxLoops], loops = 0;  // no heap: the planner prices every candidate through this
  if (runB >= 0) walk[loops++] = runB;
  for (int d = p.dims - 1; d >= 0; --d)
    if (d != inner && d != runB) walk[loops++] = d;
  int64_t lines = 1;
  for (int i = 0; i < loops; ++i) {
    const int d = walk[i];
    if (p.srcStride[d] * elementBytes < kLineBytes) return lines * kLineBytes <= kRevisitBytes ? 0 : runs * (kLineBytes - runBytes);
    lines *= p.extent[d];
    if (lines * kLineBytes > kRevisitBytes) break;
  }
  return runs * (kLineBytes - runBytes);
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

PermutationWork permutationWork(const Permutation& original, int64_t elementBytes) {
  PermutationWork w;
  if (original.elements == 0) return w;
  const Permutation p = simplifiedPermutation(original);
  if (p.dims == 0) return {false, 1, 0, 0};
  int a = -1, b = -1;  // as permute() finds them
  for (int d = 0; d < p.dims; ++d) {
    if (p.srcStride[d] == 1) a = d;
    if (p.dstStride[d] == 1) b = d;
  }
  if (a < 0 || b < 0 || a == b) {
    const int inner = a >= 0 && a == b ? a : p.dims - 1;
    w.runs = p.elements / p.extent[inner];
    w.wastedBytes = wastedLineBytes(p, inner, elementBytes, w.runs);
    return w;
  }
  w.transposes = true;
  const int64_t tilesAB = (p.extent[a] + kPermuteBlock - 1) / kPermuteBlock * ((p.extent[b] + kPermuteBlock - 1) / kPermuteBlock);
  w.tiles = p.elements / (p.extent[a] * p.extent[b]) * tilesAB;
  return w;
}

}  // namespace einrt::program
