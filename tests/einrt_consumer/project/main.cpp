// Consumer check: rows -> columns of a 12 x 6 f64 tensor over all ranks through the
// installed einrt; every rank checks its column block against the values it expects
// and that the bytes it counted equal einrt's prediction. Exit status 0 only if all pass.
#include <einrt/einrt.h>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int failures = 0;
  {
    einrt::Communicator comm(MPI_COMM_WORLD);
    const int p = comm.size(), me = comm.rank();
    const std::vector<int64_t> shape{12, 6 * static_cast<int64_t>(p)};
    std::vector<std::vector<int>> owners;
    for (int r = 0; r < p; ++r) owners.push_back({r});
    const auto rows = einrt::Layout::grid(shape, {p, 1}, owners);
    const auto cols = einrt::Layout::grid(shape, {1, p}, owners);
    const einrt::Box mineIn = rows.blocks[me].box, mineOut = cols.blocks[me].box;
    std::vector<double> in(einrt::volume(mineIn)), out(einrt::volume(mineOut), -1.0);
    for (int64_t i = mineIn.lo[0], k = 0; i < mineIn.hi[0]; ++i)
      for (int64_t j = mineIn.lo[1]; j < mineIn.hi[1]; ++j) in[k++] = static_cast<double>(i * shape[1] + j);
    auto plan = einrt::planRedistribute(comm, "M", rows, cols, einrt::DType::F64);
    plan.execute({{static_cast<std::size_t>(me), in.data()}}, {{static_cast<std::size_t>(me), out.data()}});
    for (int64_t i = mineOut.lo[0], k = 0; i < mineOut.hi[0]; ++i)
      for (int64_t j = mineOut.lo[1]; j < mineOut.hi[1]; ++j)
        if (out[k++] != static_cast<double>(i * shape[1] + j)) ++failures;
    const auto predicted = einrt::predictTraffic(rows, cols, einrt::DType::F64, p, "M");
    if (comm.counters().bytesSent != predicted.bytesSentByRank[me]) ++failures;
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    failures = all;
    if (me == 0)
      std::printf("einrt %s consumer: %d ranks, transport %s, %d failures\n", EINRT_VERSION, p,
                  einrt::transportName(plan.transport()), failures);
  }
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
