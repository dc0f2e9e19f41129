// Redistribution into a window (SPEC 8.1, einrt::Layout::window): random source layouts and
// random windows (an origin per dimension, before, inside or past the tensor; parts that
// divide the window's extents; half of them with a halo, blocks overlapping; a third with
// a step, blocks apart or overlapping; one or two holders per block). Every element of every
// destination buffer is checked against the serial reference: the tensor's value where
// the window reads it, the untouched fill elsewhere; the bytes sent equal those the box
// intersections imply, and equal what einrt's BlockGrid rule says a window reads.
#include <mpi.h>

#include <algorithm>
#include <map>

#include <doctest/doctest.h>

#include "tests/runtime/test_support.h"

using namespace einrt_test;

namespace {

int64_t pick(std::mt19937_64& rng, int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1)); }

}  // namespace

TEST_CASE("a redistribution into a window receives what it reads and leaves the fill") {
  einrt::Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size(), me = comm.rank();
  std::mt19937_64 rng(baseSeed * 1000 + 700 + p);
  constexpr double kFill = -7.5;
  for (int c = 0; c < 40; ++c) {
    std::vector<int64_t> shape = randomShape(rng);
    if (shape.empty()) shape = {5};
    const einrt::Layout src = randomLayout(rng, shape, p, false);
    einrt::BlockGrid grid;
    for (int64_t n : shape) {
      const int64_t parts = pick(rng, 1, 3), extent = parts * pick(rng, 1, std::max<int64_t>(1, (n + 2) / parts));
      grid.shape.push_back(extent);
      grid.parts.push_back(parts);
      grid.origin.push_back(pick(rng, -extent, n));  // from wholly before the tensor to wholly past it
      grid.bound.push_back(n);
    }
    // Half the windows read a halo past each block (a convolution's: neighbouring blocks
    // overlap by it, each receiving the shared rows).
    if (c % 2 == 1)
      for (std::size_t d = 0; d < shape.size(); ++d) grid.halo.push_back(pick(rng, 0, 3));
    // A third read with a step (a strided convolution's or pool's): a block spans the rows
    // from its first read to its last, and neighbouring blocks leave gaps or overlap.
    if (c % 3 == 2)
      for (std::size_t d = 0; d < shape.size(); ++d) grid.step.push_back(pick(rng, 1, 3));
    std::vector<std::vector<int>> owners(static_cast<std::size_t>(grid.blockCount()));
    for (auto& o : owners) {
      o.push_back(static_cast<int>(rng() % p));
      if (p > 1 && rng() % 3 == 0) o.push_back((o[0] + 1) % p);
    }
    std::vector<int64_t> layoutBlock;
    const einrt::Layout dst = einrt::Layout::window(grid, owners, layoutBlock);
    CAPTURE(c);
    INFO("source: " << describe(src));
    INFO("window: " << describe(dst));
    const uint64_t key = rng();
    const std::vector<double> reference = referenceTensor(src, key);
    HostBlocks from = makeSourceBlocks(src, einrt::DType::F64, me, key);
    // This rank's window blocks, whole (the fill written first, as the executor does).
    std::map<int64_t, std::vector<double>> held;
    einrt::BlockMap to;
    for (int64_t b = 0; b < grid.blockCount(); ++b) {
      const auto& o = owners[static_cast<std::size_t>(b)];
      if (std::find(o.begin(), o.end(), me) == o.end()) continue;
      std::vector<double>& buffer = held[b] = std::vector<double>(static_cast<std::size_t>(grid.blockElements()), kFill);
      if (layoutBlock[static_cast<std::size_t>(b)] >= 0) to[static_cast<std::size_t>(layoutBlock[static_cast<std::size_t>(b)])] = buffer.data();
    }
    const uint64_t before = comm.counters().bytesSent;
    einrt::planRedistribute(comm, "W", src, dst, einrt::DType::F64).execute(from.map, to);
    const uint64_t sent = comm.counters().bytesSent - before;
    int64_t wrong = 0;
    for (const auto& [b, buffer] : held) {
      const std::vector<int64_t> cell = grid.coords(b);
      einrt::Box box{std::vector<int64_t>(shape.size()), std::vector<int64_t>(shape.size())};
      for (std::size_t d = 0; d < shape.size(); ++d) {
        const int64_t step = grid.step.empty() ? 1 : grid.step[d];
        box.lo[d] = grid.origin[d] + cell[d] * grid.extent(d) * step;
        box.hi[d] = box.lo[d] + step * (grid.extent(d) - 1) + 1 + (grid.halo.empty() ? 0 : grid.halo[d]);
      }
      forEachElement(box, [&](const std::vector<int64_t>& at, int64_t i) {
        bool inside = true;
        for (std::size_t d = 0; d < shape.size(); ++d) inside = inside && at[d] >= 0 && at[d] < shape[d];
        const double want = inside ? reference[static_cast<std::size_t>(flatIndex(shape, at))] : kFill;
        wrong += buffer[static_cast<std::size_t>(i)] != want;
      });
    }
    CHECK(wrong == 0);
    // The bytes: box intersections of the two layouts, and the grid rule (each holder of a
    // block receives what the block reads less what it holds itself).
    uint64_t total = 0;
    MPI_Allreduce(&sent, &total, 1, MPI_UINT64_T, MPI_SUM, comm.get());
    CHECK(total == impliedBytes(src, dst, einrt::DType::F64, p).total);
    int64_t byGrid = 0;
    for (int64_t b = 0; b < grid.blockCount(); ++b)
      for (int r : owners[static_cast<std::size_t>(b)]) {
        int64_t own = 0;
        for (const einrt::Block& s : src.blocks)
          if (std::find(s.ranks.begin(), s.ranks.end(), r) != s.ranks.end())
            if (layoutBlock[static_cast<std::size_t>(b)] >= 0)
              if (auto common = einrt::intersect(s.box, dst.blocks[static_cast<std::size_t>(layoutBlock[static_cast<std::size_t>(b)])].box))
                own += einrt::volume(*common);
        byGrid += grid.readElements(b) - own;
      }
    CHECK(static_cast<uint64_t>(byGrid) * 8 == total);
  }
}
