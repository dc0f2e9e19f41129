// Partial sums of non-integer values (where the order of additions shows in the last
// bits): on the general paths every destination element must equal, bit for bit, the
// serial left fold over the source block's holders in their listed order, computed here
// in the tensor's own precision - so replicas agree and reruns reproduce.
#include <doctest/doctest.h>

#include <cmath>

#include "tests/runtime/test_support.h"

using namespace einrt_test;

namespace {
// A value with many significant bits, different per holder.
double fractional(int64_t flat, int holder) {
  return std::sin(0.37 * static_cast<double>(flat) + 1.91 * holder) * (1.0 + holder) * 1e3 / 7.0;
}

template <class T>
void checkFolds(einrt::Communicator& comm, einrt::Transport transport) {
  const int p = comm.size(), me = comm.rank();
  const einrt::DType dtype = sizeof(T) == 8 ? einrt::DType::F64 : einrt::DType::F32;
  const std::vector<int64_t> shape{12, 10};
  // Two column halves, each a partial sum on all ranks in a rotated holder order; the
  // destination: row blocks, each replicated on two ranks.
  std::vector<int> orderA, orderB;
  for (int r = 0; r < p; ++r) {
    orderA.push_back(r);
    orderB.push_back((r + 1) % p);
  }
  const einrt::Layout src = einrt::Layout::grid(shape, {1, 2}, {orderA, orderB}, einrt::Holding::Partial);
  std::vector<std::vector<int>> dstOwners;
  for (int b = 0; b < 3; ++b) dstOwners.push_back(p > 1 ? std::vector<int>{b % p, (b + 1) % p} : std::vector<int>{0});
  const einrt::Layout dst = einrt::Layout::grid(shape, {3, 1}, dstOwners);

  std::vector<std::vector<T>> in(2);
  einrt::BlockMap inMap;
  for (std::size_t b = 0; b < 2; ++b) {
    in[b].resize(static_cast<std::size_t>(einrt::volume(src.blocks[b].box)));
    forEachElement(src.blocks[b].box, [&](const std::vector<int64_t>& c, int64_t i) {
      in[b][i] = static_cast<T>(fractional(flatIndex(shape, c), me));
    });
    inMap[b] = in[b].data();
  }
  std::vector<std::vector<T>> out(3);
  einrt::BlockMap outMap;
  for (std::size_t b : dst.blocksHeldBy(me)) {
    out[b].assign(static_cast<std::size_t>(einrt::volume(dst.blocks[b].box)), T(0));
    outMap[b] = out[b].data();
  }
  einrt::planRedistribute(comm, "P", src, dst, dtype, {transport}).execute(inMap, outMap);

  int64_t differing = 0;
  for (std::size_t b : dst.blocksHeldBy(me))
    forEachElement(dst.blocks[b].box, [&](const std::vector<int64_t>& c, int64_t i) {
      const int64_t flat = flatIndex(shape, c);
      const std::vector<int>& holders = c[1] < 5 ? orderA : orderB;
      T fold = static_cast<T>(fractional(flat, holders[0]));
      for (std::size_t k = 1; k < holders.size(); ++k) fold = fold + static_cast<T>(fractional(flat, holders[k]));
      if (out[b][i] != fold) ++differing;
    });
  CHECK(differing == 0);
}
}  // namespace

TEST_CASE("general paths combine partial sums in holder order, bit for bit") {
  einrt::Communicator comm(MPI_COMM_WORLD);
  for (einrt::Transport t : {einrt::Transport::PointToPoint, einrt::Transport::Alltoallv}) {
    CAPTURE(std::string(einrt::transportName(t)));
    checkFolds<float>(comm, t);
    checkFolds<double>(comm, t);
  }
}
