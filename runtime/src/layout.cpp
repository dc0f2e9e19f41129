// Layout factories and validation: everything a layout must satisfy before a plan may
// send a single message.
#include "einrt/layout.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "box_copy.h"
#include "einrt/errors.h"

namespace einrt {

std::size_t gridBlockIndex(const std::vector<int64_t>& parts, const std::vector<int64_t>& coord) {
  std::size_t index = 0;
  for (std::size_t d = 0; d < parts.size(); ++d) index = index * parts[d] + coord[d];
  return index;
}

Box gridBox(const std::vector<int64_t>& shape, const std::vector<int64_t>& parts,
            const std::vector<int64_t>& coord) {
  Box box{std::vector<int64_t>(shape.size()), std::vector<int64_t>(shape.size())};
  for (std::size_t d = 0; d < shape.size(); ++d) {
    // Parts differ by at most one element; the longer ones come first.
    int64_t base = shape[d] / parts[d], extra = shape[d] % parts[d];
    box.lo[d] = coord[d] * base + std::min(coord[d], extra);
    box.hi[d] = box.lo[d] + base + (coord[d] < extra ? 1 : 0);
  }
  return box;
}

Layout Layout::grid(const std::vector<int64_t>& shape, const std::vector<int64_t>& parts,
                    const std::vector<std::vector<int>>& owners, Holding holding, Reduce reduce) {
  if (parts.size() != shape.size())
    throw LayoutError("(grid)", "grid has " + std::to_string(parts.size()) + " part counts for a tensor of rank " +
                                    std::to_string(shape.size()));
  std::size_t count = 1;
  for (std::size_t d = 0; d < parts.size(); ++d) {
    if (parts[d] < 1 || parts[d] > std::max<int64_t>(shape[d], 1))
      throw LayoutError("(grid)", "dimension " + std::to_string(d) + " of extent " + std::to_string(shape[d]) +
                                      " cannot be cut into " + std::to_string(parts[d]) + " parts");
    count *= parts[d];
  }
  if (owners.size() != count)
    throw LayoutError("(grid)", "grid has " + std::to_string(count) + " blocks but " +
                                    std::to_string(owners.size()) + " owner lists");
  Layout layout{shape, {}, holding, reduce};
  std::vector<int64_t> coord(shape.size(), 0);
  for (std::size_t b = 0; b < count; ++b) {
    layout.blocks.push_back(Block{gridBox(shape, parts, coord), owners[b]});
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      if (++coord[d] < parts[d]) break;
      coord[d] = 0;
    }
  }
  return layout;
}

Layout Layout::window(const BlockGrid& grid, const std::vector<std::vector<int>>& owners, std::vector<int64_t>& layoutBlock) {
  const std::size_t dims = grid.dims();
  Layout layout{grid.bound, {}, Holding::Replicas, Reduce::Sum};
  layout.overlapping = std::any_of(grid.halo.begin(), grid.halo.end(), [](int64_t h) { return h > 0; });
  layoutBlock.assign(static_cast<std::size_t>(grid.blockCount()), -1);
  for (int64_t b = 0; b < grid.blockCount(); ++b) {
    const std::vector<int64_t> c = grid.coords(b);
    Block block{Box{std::vector<int64_t>(dims), std::vector<int64_t>(dims)}, owners.at(static_cast<std::size_t>(b)),
                Box{std::vector<int64_t>(dims), std::vector<int64_t>(dims)}};
    bool reads = true;
    for (std::size_t d = 0; d < dims; ++d) {
      block.box.lo[d] = grid.readLo(d, c[d]);
      block.box.hi[d] = grid.readHi(d, c[d]);
      block.storage.lo[d] = grid.storageLo(d, c[d]);
      block.storage.hi[d] = block.storage.lo[d] + grid.span(d);
      reads = reads && block.box.hi[d] > block.box.lo[d];
    }
    if (!reads) continue;
    layoutBlock[static_cast<std::size_t>(b)] = static_cast<int64_t>(layout.blocks.size());
    layout.blocks.push_back(std::move(block));
  }
  // What the window reads is, per dimension, a union of intervals C_d (one interval, or
  // with a step, intervals with gaps between them); the rest of the tensor is, dimension by
  // dimension, the gaps G_d of C_d crossed with C_j in earlier dimensions (each interval of
  // them) and the whole extent in later ones: the holderless blocks that complete the tiling.
  std::vector<std::vector<std::pair<int64_t, int64_t>>> covered(dims), gaps(dims);
  for (std::size_t d = 0; d < dims; ++d) {
    std::vector<std::pair<int64_t, int64_t>> reads;
    for (int64_t c = 0; c < grid.parts[d]; ++c)
      if (grid.readHi(d, c) > grid.readLo(d, c)) reads.emplace_back(grid.readLo(d, c), grid.readHi(d, c));
    std::sort(reads.begin(), reads.end());
    for (const auto& [lo, hi] : reads) {
      if (!covered[d].empty() && lo < covered[d].back().second) layout.overlapping = true;  // a step's blocks may overlap
      if (!covered[d].empty() && lo <= covered[d].back().second) covered[d].back().second = std::max(covered[d].back().second, hi);
      else covered[d].emplace_back(lo, hi);
    }
    int64_t at = 0;
    for (const auto& [lo, hi] : covered[d]) {
      if (lo > at) gaps[d].emplace_back(at, lo);
      at = hi;
    }
    if (at < grid.bound[d]) gaps[d].emplace_back(at, grid.bound[d]);
  }
  for (std::size_t d = 0; d < dims; ++d) {
    std::vector<std::size_t> pick(d, 0);  // one covered interval per earlier dimension
    bool empty = false;
    for (std::size_t j = 0; j < d; ++j) empty = empty || covered[j].empty();
    if (empty) break;
    for (;;) {
      for (const auto& [lo, hi] : gaps[d]) {
        Box rest = wholeBox(grid.bound);
        for (std::size_t j = 0; j < d; ++j) std::tie(rest.lo[j], rest.hi[j]) = covered[j][pick[j]];
        rest.lo[d] = lo;
        rest.hi[d] = hi;
        if (volume(rest) > 0) layout.blocks.push_back(Block{rest, {}});
      }
      std::size_t j = d;
      while (j > 0 && ++pick[j - 1] == covered[j - 1].size()) pick[--j] = 0;
      if (j == 0) break;
    }
  }
  return layout;
}

Layout Layout::boxes(const std::vector<int64_t>& shape, std::vector<Block> blocks, Holding holding,
                     Reduce reduce) {
  return Layout{shape, std::move(blocks), holding, reduce};
}

Layout Layout::whole(const std::vector<int64_t>& shape, int root) {
  return Layout{shape, {Block{wholeBox(shape), {root}}}, Holding::Replicas, Reduce::Sum};
}

Layout Layout::replicated(const std::vector<int64_t>& shape, int nranks) {
  std::vector<int> all(nranks);
  for (int r = 0; r < nranks; ++r) all[r] = r;
  return Layout{shape, {Block{wholeBox(shape), all}}, Holding::Replicas, Reduce::Sum};
}

int64_t Layout::elements() const { return volume(wholeBox(shape)); }

std::vector<std::size_t> Layout::blocksHeldBy(int rank) const {
  std::vector<std::size_t> held;
  for (std::size_t b = 0; b < blocks.size(); ++b)
    if (std::find(blocks[b].ranks.begin(), blocks[b].ranks.end(), rank) != blocks[b].ranks.end())
      held.push_back(b);
  return held;
}

void validate(const Layout& layout, int nranks, const std::string& tensor, bool everyBlockHeld) {
  if (layout.shape.size() > static_cast<std::size_t>(detail::kMaxDims))
    throw LayoutError(tensor, "rank " + std::to_string(layout.shape.size()) + " exceeds einrt's limit of " +
                                  std::to_string(detail::kMaxDims) + " dimensions");
  for (std::size_t d = 0; d < layout.shape.size(); ++d)
    if (layout.shape[d] < 0)
      throw LayoutError(tensor, "negative extent " + std::to_string(layout.shape[d]) + " in dimension " +
                                    std::to_string(d));
  if (layout.blocks.empty()) throw LayoutError(tensor, "layout has no blocks");
  const Box bound = wholeBox(layout.shape);
  int64_t covered = 0;
  for (std::size_t b = 0; b < layout.blocks.size(); ++b) {
    const Block& block = layout.blocks[b];
    const std::string name = "block " + std::to_string(b) + " " +
                             (block.box.lo.size() == block.box.hi.size() ? toString(block.box) : "");
    if (block.box.lo.size() != layout.shape.size() || block.box.hi.size() != layout.shape.size())
      throw LayoutError(tensor, name + " has rank " + std::to_string(block.box.lo.size()) + " but the tensor has rank " +
                                    std::to_string(layout.shape.size()));
    for (std::size_t d = 0; d < block.box.rank(); ++d)
      if (block.box.hi[d] <= block.box.lo[d] && layout.shape[d] > 0)
        throw LayoutError(tensor, name + " is empty in dimension " + std::to_string(d));
    if (!contains(bound, block.box))
      throw LayoutError(tensor, name + " lies outside the bound " + toString(bound));
    if (!block.storage.lo.empty() && (block.storage.rank() != block.box.rank() || !contains(block.storage, block.box)))
      throw LayoutError(tensor, name + "'s buffer box does not contain it");
    if (block.ranks.empty() && everyBlockHeld) throw LayoutError(tensor, name + " has no holder");
    std::set<int> seen;
    for (int r : block.ranks) {
      if (r < 0 || r >= nranks)
        throw LayoutError(tensor, name + " is held by rank " + std::to_string(r) + " but the communicator has " +
                                      std::to_string(nranks) + " ranks");
      if (!seen.insert(r).second) throw LayoutError(tensor, name + " lists holder rank " + std::to_string(r) + " twice");
    }
    covered += volume(block.box);
  }
  if (layout.overlapping) {
    if (covered < volume(bound))
      throw LayoutError(tensor, "blocks cover less than the bound " + toString(bound) + " (they must cover it)");
    return;
  }
  for (std::size_t a = 0; a < layout.blocks.size(); ++a)
    for (std::size_t b = a + 1; b < layout.blocks.size(); ++b)
      if (volume(layout.blocks[a].box) > 0 && intersect(layout.blocks[a].box, layout.blocks[b].box))
        throw LayoutError(tensor, "blocks " + std::to_string(a) + " " + toString(layout.blocks[a].box) + " and " +
                                      std::to_string(b) + " " + toString(layout.blocks[b].box) + " overlap");
  if (covered != volume(bound))
    throw LayoutError(tensor, "blocks cover " + std::to_string(covered) + " of the " + std::to_string(volume(bound)) +
                                  " elements of the bound " + toString(bound) + " (they must tile it)");
}

void validatePair(const Layout& src, const Layout& dst, int nranks, const std::string& tensor) {
  if (src.shape != dst.shape) {
    auto shape = [](const std::vector<int64_t>& s) {
      std::string t = "(";
      for (std::size_t d = 0; d < s.size(); ++d) t += (d ? ", " : "") + std::to_string(s[d]);
      return t + ")";
    };
    throw LayoutError(tensor, "source shape " + shape(src.shape) + " differs from destination shape " + shape(dst.shape));
  }
  validate(src, nranks, tensor);
  validate(dst, nranks, tensor, false);
  if (dst.holding == Holding::Partial)
    for (const Block& block : dst.blocks)
      if (block.ranks.size() > 1)
        throw LayoutError(tensor, "destination holds partial results; einrt combines partials on the way, so the "
                                  "destination must hold complete values (Holding::Replicas)");
}

}  // namespace einrt
