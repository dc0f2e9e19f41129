// The one block-grid decoder. A tensor cut into a regular grid of equal blocks (parts per
// dimension, each dividing the extent), blocks numbered row-major over the grid; and a
// node's iteration space cut the same way, its kernel calls numbered row-major over the
// partition grid (labels in label order). A call's cell, projected onto the labels of one
// of the node's tensors, names the block of that tensor the call reads or writes.
//
// The planner's placement and traffic model, the code generator's lowering and the
// emitted program's executor all decode blocks and calls with these functions, so they
// agree by construction. Header-only and dependency-free (the planner includes it too).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace einrt {

struct BlockGrid {
  std::vector<int64_t> shape;  // extent per dimension
  std::vector<int64_t> parts;  // parts per dimension (each divides its extent)
  // A window (SPEC 8.1: an operand read at `label + origin`): the grid covers the tensor
  // coordinates origin[d] + [0, shape[d]) of a tensor whose extent is bound[d]; what lies
  // outside [0, bound) is the node's fill and is read from nowhere. Empty: the grid covers
  // the tensor itself (origin 0, bound = shape), as every producer's grid does.
  // `halo` (a window with a tap label, a convolution's input; empty: none): block c of
  // dimension d covers origin[d] + [c * extent, (c + 1) * extent + halo[d]), so
  // neighbouring blocks overlap by the halo, and its buffer is that span.
  // `step` (a window read at step * label, a strided convolution's or pool's; empty: 1):
  // label coordinate u lies at tensor coordinate origin + step * u, so block c covers
  // origin + step * c * extent + [0, step * (extent - 1) + 1 + halo), the rows between
  // its labels' included. `spread` (a window read at (label + origin) / spread where that
  // divides, the fill between: a strided read's gradient; empty: 1): the rows of tensor
  // coordinates ceil(origin / spread) onwards, one per spread labels; such a dimension is
  // never cut (einrt/model cuttableSizes), so its one block holds every row it reads.
  std::vector<int64_t> origin{}, bound{}, halo{}, step{}, spread{};

  bool windowed() const { return !origin.empty(); }

  std::size_t dims() const { return shape.size(); }
  int64_t extent(std::size_t d) const { return shape[d] / parts[d]; }  // block step along d (label coordinates)
  // A block's extent along d (tensor coordinates): its labels' rows and, through a tap
  // label's window, the halo.
  int64_t span(std::size_t d) const {
    const int64_t halo_ = halo.empty() ? 0 : halo[d];
    if (!spread.empty() && spread[d] > 1) return ceilDiv(extent(d) + origin[d], spread[d]) - ceilDiv(origin[d], spread[d]);
    if (!step.empty() && step[d] > 1) return step[d] * (extent(d) - 1) + 1 + halo_;
    return extent(d) + halo_;
  }
  // The tensor coordinate where coordinate c's block (its buffer) starts along d.
  int64_t storageLo(std::size_t d, int64_t c) const {
    if (origin.empty()) return c * extent(d);
    if (!spread.empty() && spread[d] > 1) return ceilDiv(c * extent(d) + origin[d], spread[d]);
    return c * extent(d) * (step.empty() ? 1 : step[d]) + origin[d];
  }
  // a / b rounded up (b > 0, any sign of a).
  static int64_t ceilDiv(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
  int64_t blockCount() const {
    int64_t n = 1;
    for (int64_t p : parts) n *= p;
    return n;
  }
  int64_t blockElements() const {
    int64_t n = 1;
    for (std::size_t d = 0; d < shape.size(); ++d) n *= span(d);
    return n;
  }
  std::vector<int64_t> blockShape() const {
    std::vector<int64_t> s(shape.size());
    for (std::size_t d = 0; d < shape.size(); ++d) s[d] = span(d);
    return s;
  }
  // Grid coordinates of a block (row-major decomposition of its number).
  std::vector<int64_t> coords(int64_t block) const {
    std::vector<int64_t> c(parts.size());
    for (std::size_t d = parts.size(); d-- > 0;) {
      c[d] = block % parts[d];
      block /= parts[d];
    }
    return c;
  }
  int64_t index(const std::vector<int64_t>& c) const {
    int64_t i = 0;
    for (std::size_t d = 0; d < parts.size(); ++d) i = i * parts[d] + c[d];
    return i;
  }
  // Element offset of a block's first element along every dimension (grid coordinates).
  std::vector<int64_t> offset(int64_t block) const {
    std::vector<int64_t> o = coords(block);
    for (std::size_t d = 0; d < o.size(); ++d) o[d] *= extent(d);
    return o;
  }
  // The tensor interval [lo, hi) that coordinate c along d covers and reads (clipped to
  // the tensor; hi <= lo: it reads nothing).
  int64_t readLo(std::size_t d, int64_t c) const {
    const int64_t lo = storageLo(d, c);
    return lo < 0 ? 0 : lo;
  }
  int64_t readHi(std::size_t d, int64_t c) const {
    if (origin.empty()) return (c + 1) * extent(d);
    const int64_t hi = storageLo(d, c) + span(d);
    return hi > bound[d] ? bound[d] : hi;
  }
  // Elements of block `block` that lie in the tensor: what a call reading it receives or
  // finds (blockElements() less the fill of a window).
  int64_t readElements(int64_t block) const {
    if (origin.empty()) return blockElements();
    int64_t n = 1;
    for (std::size_t d = shape.size(); d-- > 0;) {
      const int64_t c = block % parts[d];
      block /= parts[d];
      const int64_t lo = readLo(d, c), hi = readHi(d, c);
      if (hi <= lo) return 0;
      n *= hi - lo;
    }
    return n;
  }
};

// The cell of kernel call `call` in a partition grid (parts per iteration label).
inline std::vector<int64_t> callCell(const std::vector<int64_t>& parts, int64_t call) {
  std::vector<int64_t> cell(parts.size());
  for (std::size_t l = parts.size(); l-- > 0;) {
    cell[l] = call % parts[l];
    call /= parts[l];
  }
  return cell;
}

// The block of a tensor whose dimension k is iteration label labelOfDim[k] that the call
// at `cell` touches: the cell projected onto those labels, numbered row-major.
inline int64_t blockOfCell(const std::vector<int64_t>& parts, const std::vector<int>& labelOfDim,
                           const std::vector<int64_t>& cell) {
  int64_t b = 0;
  for (int l : labelOfDim) b = b * parts[l] + cell[l];
  return b;
}

// The grid a node's partition cuts one of its tensors into; `origin`, `bound`, `halo`,
// `step` and `spread` (empty, or one per dimension): the window the node reads the tensor
// through (BlockGrid::origin, BlockGrid::halo, BlockGrid::step, BlockGrid::spread).
inline BlockGrid tensorGrid(const std::vector<int64_t>& labelSizes, const std::vector<int64_t>& parts,
                            const std::vector<int>& labelOfDim, const std::vector<int64_t>& origin = {},
                            const std::vector<int64_t>& bound = {}, const std::vector<int64_t>& halo = {},
                            const std::vector<int64_t>& step = {}, const std::vector<int64_t>& spread = {}) {
  BlockGrid g;
  for (int l : labelOfDim) {
    g.shape.push_back(labelSizes[l]);
    g.parts.push_back(parts[l]);
  }
  g.origin = origin;
  g.bound = bound;
  g.halo = halo;
  g.step = step;
  g.spread = spread;
  return g;
}

// Elements shared by block number `a` of grid `ga` and block number `b` of grid `gb` (two
// grids over the same tensor, either through a window; no allocation: the planner
// evaluates this many times).
inline int64_t overlapElements(const BlockGrid& ga, int64_t a, const BlockGrid& gb, int64_t b) {
  if (ga.windowed() || gb.windowed()) {
    int64_t n = 1;
    for (std::size_t d = ga.dims(); d-- > 0;) {
      const int64_t ca = a % ga.parts[d], cb = b % gb.parts[d];
      a /= ga.parts[d];
      b /= gb.parts[d];
      const int64_t lo = std::max(ga.readLo(d, ca), gb.readLo(d, cb)), hi = std::min(ga.readHi(d, ca), gb.readHi(d, cb));
      if (hi <= lo) return 0;
      n *= hi - lo;
    }
    return n;
  }
  int64_t n = 1;
  for (std::size_t d = ga.dims(); d-- > 0;) {
    const int64_t ca = a % ga.parts[d], cb = b % gb.parts[d];
    a /= ga.parts[d];
    b /= gb.parts[d];
    const int64_t ea = ga.extent(d), eb = gb.extent(d);
    const int64_t lo = ca * ea > cb * eb ? ca * ea : cb * eb;
    const int64_t hi = (ca + 1) * ea < (cb + 1) * eb ? (ca + 1) * ea : (cb + 1) * eb;
    if (hi <= lo) return 0;
    n *= hi - lo;
  }
  return n;
}

// Calls visit(block, elements) for every block of `from` that overlaps block number
// `block` of `to`; both grids over the same tensor, `to` perhaps through a window (a block
// wholly in its fill visits nothing). Allocation-free up to 8 dimensions (the planner runs
// it for every rank and operand of every node of a plan it prices).
template <class Visit>
void forEachOverlap(const BlockGrid& to, int64_t block, const BlockGrid& from, Visit visit) {
  constexpr std::size_t kOnStack = 8;
  const std::size_t dims = to.dims();
  int64_t onStack[6 * kOnStack];
  std::vector<int64_t> onHeap;
  int64_t* lo = onStack;
  if (dims > kOnStack) {
    onHeap.resize(6 * dims);
    lo = onHeap.data();
  }
  // Per dimension: the range [lo, hi] of `from` coordinates met, the current one, the
  // tensor interval [first, end) the block of `to` reads, and the extent of a block of
  // `from` (divided once here, not for every piece: planners price millions of them).
  int64_t* hi = lo + dims;
  int64_t* cur = hi + dims;
  int64_t* first = cur + dims;
  int64_t* end = first + dims;
  int64_t* fromExtent = end + dims;
  for (std::size_t d = dims; d-- > 0;) {
    const int64_t coordinate = block % to.parts[d];
    block /= to.parts[d];
    first[d] = to.readLo(d, coordinate);
    end[d] = to.readHi(d, coordinate);
    if (end[d] <= first[d]) return;
    fromExtent[d] = from.extent(d);
    lo[d] = first[d] / fromExtent[d];
    hi[d] = (end[d] - 1) / fromExtent[d];
    cur[d] = lo[d];
  }
  for (;;) {
    int64_t index = 0, elements = 1;
    for (std::size_t d = 0; d < dims; ++d) {
      index = index * from.parts[d] + cur[d];
      const int64_t ef = fromExtent[d];
      const int64_t a = std::max(first[d], cur[d] * ef), b = std::min(end[d], (cur[d] + 1) * ef);
      elements *= b - a;
    }
    visit(index, elements);
    std::size_t d = dims;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++cur[d] <= hi[d]) break;
      cur[d] = lo[d];
    }
  }
}

// The same for a block given by its grid coordinates.
template <class Visit>
void forEachOverlap(const BlockGrid& to, const std::vector<int64_t>& block, const BlockGrid& from, Visit visit) {
  forEachOverlap(to, to.index(block), from, visit);
}

}  // namespace einrt
