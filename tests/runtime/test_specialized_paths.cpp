// Each specialized transport on the layout pattern it is meant for: the automatic choice
// must pick it, and it must deliver the reference data and count the same bytes as both
// forced general paths (PointToPoint, Alltoallv) on the same layouts.
#include <doctest/doctest.h>

#include <functional>

#include "tests/runtime/test_support.h"

using namespace einrt_test;
using einrt::Holding;
using einrt::Layout;
using einrt::Transport;

namespace {

std::vector<std::vector<int>> eachBlockOn(const std::vector<int>& ranks) {
  std::vector<std::vector<int>> owners;
  for (int r : ranks) owners.push_back({r});
  return owners;
}
std::vector<int> allRanks(int p) {
  std::vector<int> r(p);
  for (int i = 0; i < p; ++i) r[i] = i;
  return r;
}

struct PatternCase {
  const char* name;
  int minRanks;  // the pattern needs at least this many ranks
  Transport expected;
  std::function<std::pair<Layout, Layout>(int p)> layouts;
};

const std::vector<int64_t> kShape{24, 18};

std::vector<PatternCase> patternCases() {
  return {
      {"same layout: local copies only", 1, Transport::Local,
       [](int p) {
         Layout a = Layout::grid(kShape, {p, 1}, eachBlockOn(allRanks(p)));
         return std::pair{a, a};
       }},
      {"rows -> columns: dense exchange (with 2 ranks it is an allgather)", 3, Transport::Alltoallv,
       [](int p) {
         return std::pair{Layout::grid(kShape, {p, 1}, eachBlockOn(allRanks(p))),
                          Layout::grid(kShape, {1, p}, eachBlockOn(allRanks(p)))};
       }},
      {"shift by one rank: sparse exchange", 3, Transport::PointToPoint,
       [](int p) {
         std::vector<int> shifted;
         for (int r = 0; r < p; ++r) shifted.push_back((r + 1) % p);
         return std::pair{Layout::grid(kShape, {p, 1}, eachBlockOn(allRanks(p))),
                          Layout::grid(kShape, {p, 1}, eachBlockOn(shifted))};
       }},
      {"rows -> replicated everywhere: allgather", 2, Transport::Allgatherv,
       [](int p) {
         return std::pair{Layout::grid(kShape, {p, 1}, eachBlockOn(allRanks(p))), Layout::replicated(kShape, p)};
       }},
      {"2-D grid -> replicated along the grid's second axis", 4, Transport::Allgatherv,
       [](int p) {
         const int cols = p / 2;  // ranks form a 2 x (p/2) grid; p/2 rows of ranks when p is odd are not used
         std::vector<std::vector<int>> srcOwners, dstOwners(2);
         for (int i = 0; i < 2; ++i)
           for (int j = 0; j < cols; ++j) {
             srcOwners.push_back({i * cols + j});
             dstOwners[i].push_back(i * cols + j);
           }
         return std::pair{Layout::grid(kShape, {2, cols}, srcOwners), Layout::grid(kShape, {2, 1}, dstOwners)};
       }},
      {"partial sums on all ranks -> rows: reduce_scatter", 2, Transport::ReduceScatter,
       [](int p) {
         Layout src = Layout::grid(kShape, {1, 1}, {allRanks(p)}, Holding::Partial, einrt::Reduce::Sum);
         return std::pair{src, Layout::grid(kShape, {p, 1}, eachBlockOn(allRanks(p)))};
       }},
      {"partial max on all ranks -> replicated: allreduce", 2, Transport::Allreduce,
       [](int p) {
         Layout src = Layout::grid(kShape, {1, 1}, {allRanks(p)}, Holding::Partial, einrt::Reduce::Max);
         return std::pair{src, Layout::replicated(kShape, p)};
       }},
      {"partial products in pairs of ranks -> within each pair", 4, Transport::ReduceScatter,
       [](int p) {
         // Columns split in p/2 parts, each a partial product on ranks {2k, 2k+1};
         // the destination splits every column part by rows between the same two ranks.
         const int half = p / 2;
         std::vector<std::vector<int>> srcOwners, dstOwners;
         for (int k = 0; k < half; ++k) srcOwners.push_back({2 * k, 2 * k + 1});
         for (int i = 0; i < 2; ++i)
           for (int k = 0; k < half; ++k) dstOwners.push_back({2 * k + i});
         return std::pair{Layout::grid(kShape, {1, half}, srcOwners, Holding::Partial, einrt::Reduce::Prod),
                          Layout::grid(kShape, {2, half}, dstOwners)};
       }},
      {"whole tensor on the last rank -> rows: scatter", 3, Transport::Scatterv,
       [](int p) {
         return std::pair{Layout::whole(kShape, p - 1), Layout::grid(kShape, {p, 1}, eachBlockOn(allRanks(p)))};
       }},
      {"columns -> whole tensor on rank 1: gather", 3, Transport::Gatherv,
       [](int p) {
         return std::pair{Layout::grid(kShape, {1, p}, eachBlockOn(allRanks(p))), Layout::whole(kShape, 1)};
       }},
  };
}

}  // namespace

TEST_CASE("specialized transports are chosen for their patterns and move the same data as the general path") {
  einrt::Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size(), me = comm.rank();
  for (const PatternCase& pc : patternCases()) {
    if (p < pc.minRanks) continue;
    CAPTURE(std::string(pc.name));
    CAPTURE(p);
    const auto [src, dst] = pc.layouts(p);
    for (einrt::DType dtype : {einrt::DType::F32, einrt::DType::F64}) {
      const uint64_t key = 77;
      const std::vector<double> reference = referenceTensor(src, key);
      const ImpliedBytes implied = impliedBytes(src, dst, dtype, p);
      for (Transport transport : {Transport::Auto, Transport::PointToPoint, Transport::Alltoallv}) {
        CAPTURE(std::string(einrt::transportName(transport)));
        HostBlocks in = makeSourceBlocks(src, dtype, me, key);
        HostBlocks out = makeEmptyBlocks(dst, dtype, me, 12345.5);
        comm.resetCounters();
        einrt::RedistributePlan plan = einrt::planRedistribute(comm, "pattern", src, dst, dtype, {transport});
        if (transport == Transport::Auto) CHECK(plan.transport() == pc.expected);
        plan.execute(in.map, out.map);
        plan.execute(in.map, out.map);  // plans are reusable; a second run gives the same result
        CHECK(countMismatches(dst, out, dtype, me, reference) == 0);
        CHECK(comm.totalBytesSentAllRanks() == 2 * implied.total);
        CHECK(comm.counters().byTensor.at("pattern") == comm.counters().bytesSent);
      }
    }
  }
}

TEST_CASE("forcing a specialized transport on a pattern it does not fit is refused at plan time") {
  einrt::Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size();
  if (p < 3) return;
  std::vector<int> shifted;
  for (int r = 0; r < p; ++r) shifted.push_back((r + 1) % p);
  const Layout src = Layout::grid(kShape, {p, 1}, eachBlockOn(allRanks(p)));
  const Layout dst = Layout::grid(kShape, {p, 1}, eachBlockOn(shifted));
  for (Transport t : {Transport::Allgatherv, Transport::ReduceScatter, Transport::Allreduce, Transport::Scatterv,
                      Transport::Gatherv}) {
    CAPTURE(std::string(einrt::transportName(t)));
    std::string message;
    try {
      einrt::planRedistribute(comm, "Shifted", src, dst, einrt::DType::F32, {t});
    } catch (const std::invalid_argument& e) {
      message = e.what();
    }
    CHECK(message.find("does not fit") != std::string::npos);
    CHECK(message.find("tensor 'Shifted'") != std::string::npos);
  }
}
