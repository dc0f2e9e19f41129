// Bad layouts are refused at plan time with a LayoutError that names the tensor and the
// problem; MPI failures become CommError naming the collective, the peer and the tensor.
#include <doctest/doctest.h>

#include <string>

#include "tests/runtime/test_support.h"

using einrt::Block;
using einrt::Box;
using einrt::Layout;

namespace {
struct BadPair {
  const char* name;
  Layout src, dst;
  const char* expectedWords;  // must appear in the message
};
}  // namespace

TEST_CASE("layouts that do not describe the same tensor are rejected before any message") {
  einrt::Communicator comm(MPI_COMM_WORLD);
  const int p = comm.size();
  const std::vector<int64_t> shape{4, 6};
  const Layout good = Layout::whole(shape, 0);
  const std::vector<BadPair> cases = {
      {"shape mismatch", good, Layout::whole({4, 5}, 0), "differs from destination shape"},
      {"gap", Layout::boxes(shape, {Block{Box{{0, 0}, {2, 6}}, {0}}}), good, "must tile"},
      {"overlap",
       Layout::boxes(shape, {Block{Box{{0, 0}, {3, 6}}, {0}}, Block{Box{{2, 0}, {4, 6}}, {0}}}), good, "overlap"},
      {"outside the bound", Layout::boxes(shape, {Block{Box{{0, 0}, {4, 7}}, {0}}}), good, "outside the bound"},
      {"wrong rank of a box", Layout::boxes(shape, {Block{Box{{0}, {4}}, {0}}}), good, "has rank 1"},
      {"holder out of range", good, Layout::whole(shape, p), "communicator has"},
      {"negative holder", Layout::whole(shape, -1), good, "held by rank -1"},
      {"no holder", Layout::boxes(shape, {Block{Box{{0, 0}, {4, 6}}, {}}}), good, "no holder"},
      {"holder twice", good, Layout::boxes(shape, {Block{Box{{0, 0}, {4, 6}}, {0, 0}}}), "twice"},
      {"partial destination", good,
       Layout::boxes(shape, {Block{Box{{0, 0}, {4, 6}}, {0, p > 1 ? 1 : 0}}}, einrt::Holding::Partial), "complete"},
  };
  for (const BadPair& bad : cases) {
    if (std::string(bad.name) == "partial destination" && p < 2) continue;
    CAPTURE(std::string(bad.name));
    std::string message;
    try {
      einrt::planRedistribute(comm, "Weights", bad.src, bad.dst, einrt::DType::F32);
    } catch (const einrt::LayoutError& e) {
      message = e.what();
      CHECK(e.tensor() == "Weights");
    }
    CHECK(message.find("tensor 'Weights'") != std::string::npos);
    CHECK(message.find(bad.expectedWords) != std::string::npos);
    CHECK_THROWS_AS(einrt::predictTraffic(bad.src, bad.dst, einrt::DType::F32, p, "Weights"), einrt::LayoutError);
  }
  CHECK(comm.counters().bytesSent == 0);
  CHECK_THROWS_AS(Layout::grid(shape, {5, 1}, std::vector<std::vector<int>>(5, {0})), einrt::LayoutError);
  CHECK_THROWS_AS(Layout::grid(shape, {2, 2}, std::vector<std::vector<int>>(3, {0})), einrt::LayoutError);
}

TEST_CASE("a missing block buffer is reported with the tensor and the block") {
  einrt::Communicator comm(MPI_COMM_WORLD);
  const Layout everywhere = Layout::replicated({3, 3}, comm.size());
  auto plan = einrt::planRedistribute(comm, "Bias", everywhere, everywhere, einrt::DType::F64);
  std::string message;
  try {
    plan.execute({}, {});
  } catch (const std::invalid_argument& e) {
    message = e.what();
  }
  CHECK(message.find("tensor 'Bias'") != std::string::npos);
  CHECK(message.find("source block 0") != std::string::npos);
}

TEST_CASE("the communicator returns MPI errors, and they read as collective, peer and tensor") {
  einrt::Communicator comm(MPI_COMM_WORLD);
  int value = 0;
  const int code = MPI_Send(&value, 1, MPI_INT, comm.size() + 3, 0, comm.get());
  CHECK(code != MPI_SUCCESS);
  std::string message;
  try {
    einrt::checkMpi(code, "MPI_Isend", comm.size() + 3, "Activations");
  } catch (const einrt::CommError& e) {
    message = e.what();
    CHECK(e.peer() == comm.size() + 3);
    CHECK(e.collective() == "MPI_Isend");
  }
  CHECK(message.find("MPI_Isend") != std::string::npos);
  CHECK(message.find("peer rank " + std::to_string(comm.size() + 3)) != std::string::npos);
  CHECK(message.find("tensor 'Activations'") != std::string::npos);
}
