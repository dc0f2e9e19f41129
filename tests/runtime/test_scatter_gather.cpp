// Scatter from and gather to one rank (what --inputs, --outputs and --check use): random
// destination layouts and roots, the whole tensor compared element by element with the
// values the root started from; gathering partial sources combines them on the way.
#include <doctest/doctest.h>

#include "tests/runtime/test_support.h"

using namespace einrt_test;

TEST_CASE("scatter then gather returns the root's tensor; gather combines partial blocks") {
  einrt::Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size(), me = comm.rank();
  std::mt19937_64 rng(baseSeed * 1000 + 500 + p);
  for (int c = 0; c < 40; ++c) {
    const std::vector<int64_t> shape = randomShape(rng);
    const einrt::Layout middle = randomLayout(rng, shape, p, false);
    const einrt::Layout partialSource = randomLayout(rng, shape, p, true);
    const int root = static_cast<int>(rng() % p);
    const einrt::DType dtype = rng() % 2 ? einrt::DType::F64 : einrt::DType::F32;
    const uint64_t key = rng();
    CAPTURE(c);
    CAPTURE(root);
    INFO("layout: " << describe(middle));
    INFO("partial source: " << describe(partialSource));
    const einrt::Layout whole = einrt::Layout::whole(shape, root);
    const std::vector<double> reference = referenceTensor(whole, key);

    HostBlocks rootData = makeSourceBlocks(whole, dtype, me, key);
    HostBlocks spread = makeEmptyBlocks(middle, dtype, me, 12345.5);
    einrt::RedistributePlan scatter = einrt::planScatter(comm, "X", root, middle, dtype);
    scatter.execute(rootData.map, spread.map);
    CHECK(countMismatches(middle, spread, dtype, me, reference) == 0);
    CHECK(scatter.operation() == "scatter");

    HostBlocks back = makeEmptyBlocks(whole, dtype, me, 12345.5);
    einrt::RedistributePlan gather = einrt::planGather(comm, "X", middle, root, dtype);
    gather.execute(spread.map, back.map);
    CHECK(countMismatches(whole, back, dtype, me, reference) == 0);

    const std::vector<double> combined = referenceTensor(partialSource, key);
    HostBlocks partials = makeSourceBlocks(partialSource, dtype, me, key);
    HostBlocks result = makeEmptyBlocks(whole, dtype, me, 12345.5);
    einrt::planGather(comm, "Y", partialSource, root, dtype).execute(partials.map, result.map);
    CHECK(countMismatches(whole, result, dtype, me, combined) == 0);
  }
  CHECK(comm.counters().byOperation.size() <= 2);  // only "scatter" and "gather" were run
}
