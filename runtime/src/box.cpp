// Box arithmetic: the geometry every message of einrt is made of.
#include "einrt/box.h"

#include <algorithm>

namespace einrt {

Box wholeBox(const std::vector<int64_t>& shape) {
  return Box{std::vector<int64_t>(shape.size(), 0), shape};
}

int64_t volume(const Box& box) {
  int64_t v = 1;
  for (std::size_t d = 0; d < box.rank(); ++d) {
    if (box.extent(d) <= 0) return 0;
    v *= box.extent(d);
  }
  return v;
}

std::optional<Box> intersect(const Box& a, const Box& b) {
  Box r{std::vector<int64_t>(a.rank()), std::vector<int64_t>(a.rank())};
  for (std::size_t d = 0; d < a.rank(); ++d) {
    r.lo[d] = std::max(a.lo[d], b.lo[d]);
    r.hi[d] = std::min(a.hi[d], b.hi[d]);
    if (r.lo[d] >= r.hi[d]) return std::nullopt;
  }
  return r;
}

bool contains(const Box& outer, const Box& inner) {
  if (outer.rank() != inner.rank()) return false;
  for (std::size_t d = 0; d < outer.rank(); ++d)
    if (inner.lo[d] < outer.lo[d] || inner.hi[d] > outer.hi[d]) return false;
  return true;
}

std::string toString(const Box& box) {
  std::string s = "[";
  for (std::size_t d = 0; d < box.rank(); ++d) {
    if (d) s += ", ";
    s += std::to_string(box.lo[d]) + ":" + std::to_string(box.hi[d]);
  }
  return s + "]";
}

}  // namespace einrt
