#include "codegen/lower/block_geometry.h"

#include <algorithm>

namespace eindecomp::codegen {

int64_t BlockGrid::blockCount() const {
  int64_t n = 1;
  for (int64_t p : parts) n *= p;
  return n;
}

int64_t BlockGrid::blockElements() const {
  int64_t n = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) n *= blockExtent(d);
  return n;
}

std::vector<int64_t> BlockGrid::coords(int64_t block) const {
  std::vector<int64_t> c(parts.size());
  for (std::size_t d = parts.size(); d-- > 0;) {
    c[d] = block % parts[d];
    block /= parts[d];
  }
  return c;
}

int64_t BlockGrid::index(const std::vector<int64_t>& c) const {
  int64_t i = 0;
  for (std::size_t d = 0; d < parts.size(); ++d) i = i * parts[d] + c[d];
  return i;
}

void forEachOverlap(const BlockGrid& to, int64_t block, const BlockGrid& from,
                    const std::function<void(int64_t, int64_t)>& visit) {
  const std::size_t dims = to.shape.size();
  std::vector<int64_t> c = to.coords(block);
  std::vector<int64_t> lo(dims), hi(dims), cur(dims);
  for (std::size_t d = 0; d < dims; ++d) {
    int64_t begin = c[d] * to.blockExtent(d), end = begin + to.blockExtent(d);
    lo[d] = begin / from.blockExtent(d);
    hi[d] = (end - 1) / from.blockExtent(d);
    cur[d] = lo[d];
  }
  while (true) {
    int64_t elements = 1;
    for (std::size_t d = 0; d < dims; ++d) {
      int64_t begin = std::max(c[d] * to.blockExtent(d), cur[d] * from.blockExtent(d));
      int64_t end = std::min((c[d] + 1) * to.blockExtent(d), (cur[d] + 1) * from.blockExtent(d));
      elements *= end - begin;
    }
    visit(from.index(cur), elements);
    std::size_t d = dims;
    while (d > 0) {
      --d;
      if (++cur[d] <= hi[d]) break;
      cur[d] = lo[d];
      if (d == 0) return;
    }
    if (dims == 0) return;
  }
}

}  // namespace eindecomp::codegen
