// How einrt-calibrate times a measurement: every rank runs `body` at once (what a job's
// ranks do), and the figure is the median over repetitions of the slowest rank's time.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <functional>
#include <vector>

namespace einrt::calibrate {

// The median over `reps` runs of the slowest rank's time for `body` (collective), after
// `warmups` untimed runs.
inline double medianSeconds(int reps, const std::function<void()>& body, int warmups = 1) {
  for (int i = 0; i < warmups; ++i) body();
  std::vector<double> times;
  for (int i = 0; i < std::max(reps, 1); ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    body();
    double mine = MPI_Wtime() - start, slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    times.push_back(slowest);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace einrt::calibrate
