// The pack/unpack index arithmetic shared with the CUDA kernels (runtime/src/box_copy.h):
// for random boxes inside random containers, every element's offsets must equal the
// row-major offsets computed directly from its coordinates.
#include <doctest/doctest.h>

#include "runtime/src/box_copy_plan.h"
#include "tests/runtime/test_support.h"

using namespace einrt_test;

TEST_CASE("BoxCopy offsets equal direct row-major offsets for random boxes and containers") {
  std::mt19937_64 rng(baseSeed * 1000 + 999);
  for (int c = 0; c < 300; ++c) {
    const int ndims = static_cast<int>(rng() % 5);
    einrt::Box box, from, to;
    for (int d = 0; d < ndims; ++d) {
      const int64_t lo = static_cast<int64_t>(rng() % 4), extent = 1 + static_cast<int64_t>(rng() % 4);
      box.lo.push_back(lo);
      box.hi.push_back(lo + extent);
      // Containers either hug the box in this dimension or extend beyond it.
      from.lo.push_back(lo - static_cast<int64_t>(rng() % 2 ? 0 : rng() % 3));
      from.hi.push_back(lo + extent + static_cast<int64_t>(rng() % 2 ? 0 : rng() % 3));
      to.lo.push_back(lo - static_cast<int64_t>(rng() % 2 ? 0 : rng() % 3));
      to.hi.push_back(lo + extent + static_cast<int64_t>(rng() % 2 ? 0 : rng() % 3));
    }
    CAPTURE(c);
    INFO(einrt::toString(box) << " in " << einrt::toString(from) << " -> " << einrt::toString(to));
    const einrt::detail::BoxCopy copy = einrt::detail::makeBoxCopy(box, from, to);
    CHECK(copy.count == einrt::volume(box));
    auto direct = [](const einrt::Box& container, const std::vector<int64_t>& coord) {
      int64_t offset = 0;
      for (std::size_t d = 0; d < coord.size(); ++d)
        offset = offset * (container.hi[d] - container.lo[d]) + (coord[d] - container.lo[d]);
      return offset;
    };
    int64_t wrong = 0;
    forEachElement(box, [&](const std::vector<int64_t>& coord, int64_t i) {
      int64_t f = -1, t = -1;
      einrt::detail::elementOffsets(copy, i, f, t);
      if (f != direct(from, coord) || t != direct(to, coord)) ++wrong;
    });
    CHECK(wrong == 0);
  }
}
