// Hundreds of random (source, destination) layout pairs per rank count: random shapes
// with factors 2 and 3, grid partitions that divide or do not divide the extents, general
// boxes, random placements, replication, partial sources with every aggregation, f32 and
// f64. Every rank's destination blocks are compared with the serial reference, and the
// counted bytes with the bytes the layouts imply - for the automatic choice and for both
// forced general paths.
#include <doctest/doctest.h>

#include <map>

#include "tests/runtime/test_support.h"

using namespace einrt_test;

TEST_CASE("random layout pairs match the serial reference and the implied bytes") {
  einrt::Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size(), me = comm.rank();
  std::mt19937_64 rng(baseSeed * 1000 + p);  // the same sequence on every rank
  const int cases = 150;
  std::map<std::string, int> chosen;
  for (int c = 0; c < cases; ++c) {
    const std::vector<int64_t> shape = randomShape(rng);
    const einrt::Layout src = randomLayout(rng, shape, p, true);
    const einrt::Layout dst = randomLayout(rng, shape, p, false);
    const einrt::DType dtype = rng() % 2 ? einrt::DType::F64 : einrt::DType::F32;
    const uint64_t key = rng();
    CAPTURE(c);
    CAPTURE(p);
    INFO("src: " << describe(src));
    INFO("dst: " << describe(dst));
    INFO("dtype: " << einrt::dtypeName(dtype));
    const std::vector<double> reference = referenceTensor(src, key);
    const ImpliedBytes implied = impliedBytes(src, dst, dtype, p);
    const einrt::TrafficPrediction predicted = einrt::predictTraffic(src, dst, dtype, p, "T");
    CHECK(predicted.totalBytes == implied.total);
    CHECK(predicted.bytesRecvByRank[me] == implied.recvByRank[me]);
    for (einrt::Transport transport :
         {einrt::Transport::Auto, einrt::Transport::PointToPoint, einrt::Transport::Alltoallv}) {
      CAPTURE(std::string(einrt::transportName(transport)));
      HostBlocks in = makeSourceBlocks(src, dtype, me, key);
      HostBlocks out = makeEmptyBlocks(dst, dtype, me, 12345.5);
      comm.resetCounters();
      einrt::RedistributePlan plan =
          einrt::planRedistribute(comm, "T" + std::to_string(c), src, dst, dtype, {transport});
      if (transport == einrt::Transport::Auto) ++chosen[einrt::transportName(plan.transport())];
      plan.execute(in.map, out.map);
      CHECK(countMismatches(dst, out, dtype, me, reference) == 0);
      CHECK(plan.bytesRecvPerExecution() == implied.recvByRank[me]);
      CHECK(comm.counters().bytesSent == predicted.bytesSentByRank[me]);
      CHECK(comm.totalBytesSentAllRanks() == implied.total);
      // Counted under the operation and the transport that ran.
      bool partial = false;
      for (const einrt::Block& b : src.blocks) partial |= src.holding == einrt::Holding::Partial && b.ranks.size() > 1;
      const std::string operation = partial ? "reduce-redistribute" : "redistribute";
      CHECK(plan.operation() == operation);
      CHECK(comm.counters().byOperation.at(operation) == comm.counters().bytesSent);
      CHECK(comm.counters().byTransport.at(einrt::transportName(plan.transport())) == comm.counters().bytesSent);
      // The source blocks are read, never written.
      const HostBlocks untouched = makeSourceBlocks(src, dtype, me, key);
      CHECK((in.f64 == untouched.f64 && in.f32 == untouched.f32));
    }
  }
  if (me == 0) {
    std::string summary = "transports chosen automatically:";
    for (const auto& [name, count] : chosen) summary += " " + name + "=" + std::to_string(count);
    MESSAGE(summary);
  }
}
