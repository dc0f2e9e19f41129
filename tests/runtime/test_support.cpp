// Oracles and generators for the einrt tests (see test_support.h).
#include "tests/runtime/test_support.h"

#include <algorithm>
#include <numeric>

namespace einrt_test {

namespace {
uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

bool isPartialBlock(const einrt::Layout& layout, const einrt::Block& block) {
  return layout.holding == einrt::Holding::Partial && block.ranks.size() > 1;
}

double combineReference(einrt::Reduce op, double a, double b) {
  switch (op) {
    case einrt::Reduce::Sum: return a + b;
    case einrt::Reduce::Max: return std::max(a, b);
    case einrt::Reduce::Min: return std::min(a, b);
    case einrt::Reduce::Prod: return a * b;
  }
  return a;
}

int64_t randomInt(std::mt19937_64& rng, int64_t lo, int64_t hi) {  // inclusive
  return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
}
}  // namespace

double elementValue(uint64_t tensorKey, int64_t flat, int holder) {
  const uint64_t h = mix(tensorKey * 1000003ULL + static_cast<uint64_t>(flat) * 7919ULL + static_cast<uint64_t>(holder + 1));
  if (holder < 0) return static_cast<double>(static_cast<int64_t>(h % 101) - 50);
  return static_cast<double>(static_cast<int64_t>(h % 7) - 3);
}

int64_t flatIndex(const std::vector<int64_t>& shape, const std::vector<int64_t>& coord) {
  int64_t flat = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + coord[d];
  return flat;
}

HostBlocks makeEmptyBlocks(const einrt::Layout& dst, einrt::DType dtype, int rank, double fill) {
  HostBlocks hb;
  hb.f64.resize(dst.blocks.size());
  hb.f32.resize(dst.blocks.size());
  for (std::size_t b = 0; b < dst.blocks.size(); ++b) {
    const auto& ranks = dst.blocks[b].ranks;
    if (std::find(ranks.begin(), ranks.end(), rank) == ranks.end()) continue;
    const auto n = static_cast<std::size_t>(einrt::volume(dst.blocks[b].box));
    if (dtype == einrt::DType::F64) {
      hb.f64[b].assign(std::max<std::size_t>(n, 1), fill);
      hb.map[b] = hb.f64[b].data();
    } else {
      hb.f32[b].assign(std::max<std::size_t>(n, 1), static_cast<float>(fill));
      hb.map[b] = hb.f32[b].data();
    }
  }
  return hb;
}

HostBlocks makeSourceBlocks(const einrt::Layout& src, einrt::DType dtype, int rank, uint64_t key) {
  HostBlocks hb = makeEmptyBlocks(src, dtype, rank, 0.0);
  for (const auto& [b, ptr] : hb.map) {
    const einrt::Block& block = src.blocks[b];
    const int holder = isPartialBlock(src, block) ? rank : -1;
    forEachElement(block.box, [&](const std::vector<int64_t>& coord, int64_t i) {
      const double v = elementValue(key, flatIndex(src.shape, coord), holder);
      if (dtype == einrt::DType::F64)
        hb.f64[b][i] = v;
      else
        hb.f32[b][i] = static_cast<float>(v);
    });
  }
  return hb;
}

std::vector<double> referenceTensor(const einrt::Layout& src, uint64_t key) {
  std::vector<double> ref(static_cast<std::size_t>(src.elements()), 0.0);
  for (const einrt::Block& block : src.blocks)
    forEachElement(block.box, [&](const std::vector<int64_t>& coord, int64_t) {
      const int64_t flat = flatIndex(src.shape, coord);
      if (!isPartialBlock(src, block)) {
        ref[flat] = elementValue(key, flat, -1);
        return;
      }
      double acc = elementValue(key, flat, block.ranks[0]);
      for (std::size_t k = 1; k < block.ranks.size(); ++k)
        acc = combineReference(src.reduce, acc, elementValue(key, flat, block.ranks[k]));
      ref[flat] = acc;
    });
  return ref;
}

int64_t countMismatches(const einrt::Layout& dst, const HostBlocks& blocks, einrt::DType dtype, int rank,
                        const std::vector<double>& reference) {
  int64_t bad = 0;
  for (std::size_t b = 0; b < dst.blocks.size(); ++b) {
    const auto& ranks = dst.blocks[b].ranks;
    if (std::find(ranks.begin(), ranks.end(), rank) == ranks.end()) continue;
    forEachElement(dst.blocks[b].box, [&](const std::vector<int64_t>& coord, int64_t i) {
      const double want = reference[flatIndex(dst.shape, coord)];
      const double got = dtype == einrt::DType::F64 ? blocks.f64[b][i] : static_cast<double>(blocks.f32[b][i]);
      if (got != want) ++bad;
    });
  }
  return bad;
}

ImpliedBytes impliedBytes(const einrt::Layout& src, const einrt::Layout& dst, einrt::DType dtype, int nranks) {
  ImpliedBytes out;
  out.recvByRank.assign(nranks, 0);
  const uint64_t es = dtype == einrt::DType::F64 ? 8 : 4;
  for (const einrt::Block& d : dst.blocks)
    for (const einrt::Block& s : src.blocks) {
      // Intersection volume, computed here rather than with einrt::intersect.
      int64_t common = 1;
      for (std::size_t k = 0; k < d.box.rank(); ++k)
        common *= std::max<int64_t>(0, std::min(d.box.hi[k], s.box.hi[k]) - std::max(d.box.lo[k], s.box.lo[k]));
      if (common == 0) continue;
      for (int r : d.ranks) {
        const bool holds = std::find(s.ranks.begin(), s.ranks.end(), r) != s.ranks.end();
        uint64_t senders = 0;
        if (isPartialBlock(src, s))
          senders = s.ranks.size() - (holds ? 1 : 0);
        else
          senders = holds ? 0 : 1;
        out.recvByRank[r] += senders * common * es;
        out.total += senders * common * es;
      }
    }
  return out;
}

std::vector<int64_t> randomShape(std::mt19937_64& rng) {
  const int ndims = static_cast<int>(rng() % 10 == 0 ? randomInt(rng, 0, 1) : randomInt(rng, 1, 4));
  std::vector<int64_t> shape;
  int64_t total = 1;
  for (int d = 0; d < ndims; ++d) {
    int64_t extent = 1;
    for (int64_t k = randomInt(rng, 0, 4); k > 0; --k) extent *= 2;
    for (int64_t k = randomInt(rng, 0, 2); k > 0; --k) extent *= 3;
    while (total * extent > 4096 && extent > 1) extent /= (extent % 2 == 0 ? 2 : 3);
    total *= extent;
    shape.push_back(extent);
  }
  return shape;
}

namespace {
std::vector<einrt::Box> randomBoxes(std::mt19937_64& rng, const std::vector<int64_t>& shape) {
  std::vector<einrt::Box> boxes{einrt::wholeBox(shape)};
  const int splits = static_cast<int>(randomInt(rng, 0, 7));
  for (int s = 0; s < splits; ++s) {
    const std::size_t which = rng() % boxes.size();
    einrt::Box box = boxes[which];
    std::vector<std::size_t> splittable;
    for (std::size_t d = 0; d < box.rank(); ++d)
      if (box.extent(d) > 1) splittable.push_back(d);
    if (splittable.empty()) continue;
    const std::size_t d = splittable[rng() % splittable.size()];
    const int64_t cut = randomInt(rng, box.lo[d] + 1, box.hi[d] - 1);
    einrt::Box upper = box;
    box.hi[d] = cut;
    upper.lo[d] = cut;
    boxes[which] = box;
    boxes.push_back(upper);
  }
  return boxes;
}

std::vector<int> randomHolders(std::mt19937_64& rng, int nranks, int most) {
  std::vector<int> all(nranks);
  std::iota(all.begin(), all.end(), 0);
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(static_cast<std::size_t>(randomInt(rng, 1, std::min(most, nranks))));
  return all;
}
}  // namespace

einrt::Layout randomLayout(std::mt19937_64& rng, const std::vector<int64_t>& shape, int nranks, bool allowPartial) {
  einrt::Layout layout;
  layout.shape = shape;
  const int kind = static_cast<int>(randomInt(rng, 0, 3));
  std::vector<einrt::Box> boxes;
  if (kind <= 1) {
    std::vector<int64_t> parts;
    for (int64_t extent : shape) {
      int64_t p = randomInt(rng, 1, std::min<int64_t>(std::max<int64_t>(extent, 1), 4));
      if (kind == 0)
        while (extent % p != 0) --p;  // parts that divide the extent
      parts.push_back(p);
    }
    std::vector<std::vector<int>> owners(1);
    for (int64_t p : parts) owners.resize(owners.size() * p);
    layout = einrt::Layout::grid(shape, parts, owners);
    for (const einrt::Block& b : layout.blocks) boxes.push_back(b.box);
    layout.blocks.clear();
  } else if (kind == 2) {
    boxes = randomBoxes(rng, shape);
  } else {
    boxes = {einrt::wholeBox(shape)};
  }
  const bool partial = allowPartial && rng() % 2 == 0;
  layout.holding = partial ? einrt::Holding::Partial : einrt::Holding::Replicas;
  layout.reduce = static_cast<einrt::Reduce>(rng() % 4);
  const bool roundRobin = rng() % 3 == 0;
  const int offset = static_cast<int>(rng() % nranks);
  for (std::size_t b = 0; b < boxes.size(); ++b) {
    std::vector<int> holders = roundRobin ? std::vector<int>{static_cast<int>((b + offset) % nranks)}
                                          : randomHolders(rng, nranks, partial ? 4 : 3);
    layout.blocks.push_back(einrt::Block{boxes[b], holders});
  }
  return layout;
}

std::string describe(const einrt::Layout& layout) {
  std::string s = "shape (";
  for (std::size_t d = 0; d < layout.shape.size(); ++d) s += (d ? "," : "") + std::to_string(layout.shape[d]);
  s += ") ";
  s += layout.holding == einrt::Holding::Partial ? "partial " + std::string(einrt::reduceName(layout.reduce)) : "replicas";
  for (const einrt::Block& b : layout.blocks) {
    s += " " + einrt::toString(b.box) + "@{";
    for (std::size_t k = 0; k < b.ranks.size(); ++k) s += (k ? "," : "") + std::to_string(b.ranks[k]);
    s += "}";
  }
  return s;
}

}  // namespace einrt_test
