// doctest main for MPI tests: every rank runs the same test cases (they are collective),
// rank 0 reports in full, the others report only failures, and the exit status is
// non-zero on every rank when any rank failed, so mpirun and ctest see the failure.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tests/runtime/test_support.h"

namespace einrt_test {
uint64_t baseSeed = 20261122;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // --seed=N (ours) is taken out before doctest sees the arguments.
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--seed=", 7) == 0)
      einrt_test::baseSeed = std::strtoull(argv[i] + 7, nullptr, 10);
    else
      args.push_back(argv[i]);
  }
  if (rank == 0) std::printf("einrt tests: seed %llu (rerun with --seed=N)\n", (unsigned long long)einrt_test::baseSeed);
  doctest::Context context(static_cast<int>(args.size()), args.data());
  if (rank != 0) context.setOption("minimal", true);
  const int failed = context.run() != 0 ? 1 : 0;
  int anyFailed = 0;
  MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (anyFailed && rank == 0) std::printf("einrt tests: FAILED on at least one rank\n");
  MPI_Finalize();
  return anyFailed;
}
