// Redistribution benchmark driver (run by run.sh under mpirun). For an n x n f64 matrix
// over all ranks it times, per scenario, einrt's automatic choice, einrt's forced general
// paths and - for the dense rows -> columns exchange - a hand-written MPI_Alltoallv of
// the same data (manual packing, receiving straight into the column block). It prints
// one table row per (scenario, path): bytes crossing ranks per iteration, median time
// (slowest rank), effective bandwidth and the ratio against the scenario's baseline.
#include <einrt/einrt.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

struct Options {
  int64_t n = 1536;
  int iters = 10;
  int warmup = 3;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const long long value = std::atoll(argv[i + 1]);
    if (key == "--n") o.n = value;
    else if (key == "--iters") o.iters = static_cast<int>(value);
    else if (key == "--warmup") o.warmup = static_cast<int>(value);
  }
  return o;
}

// Median over iterations of the slowest rank's time.
double timeIt(const Options& o, const std::function<void()>& body) {
  for (int i = 0; i < o.warmup; ++i) body();
  std::vector<double> times;
  for (int i = 0; i < o.iters; ++i) {
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

struct Row {
  std::string scenario, path;
  double bytes, seconds, baselineSeconds;
};

void print(const Row& r, int rank) {
  if (rank != 0) return;
  std::printf("| %-26s | %-30s | %12.0f | %10.3f | %8.2f | %6.2fx |\n", r.scenario.c_str(), r.path.c_str(), r.bytes,
              r.seconds * 1e3, r.bytes / r.seconds / 1e9, r.baselineSeconds / r.seconds);
}

std::vector<std::vector<int>> oneEach(int p) {
  std::vector<std::vector<int>> owners;
  for (int r = 0; r < p; ++r) owners.push_back({r});
  return owners;
}

// Buffers for one layout on this rank, filled with a constant.
struct Blocks {
  std::vector<std::vector<double>> data;
  einrt::BlockMap map;
  Blocks(const einrt::Layout& layout, int rank, double fill) : data(layout.blocks.size()) {
    for (std::size_t b : layout.blocksHeldBy(rank)) {
      data[b].assign(static_cast<std::size_t>(einrt::volume(layout.blocks[b].box)), fill);
      map[b] = data[b].data();
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    const Options o = parse(argc, argv);
    einrt::Communicator comm(MPI_COMM_WORLD);
    const int p = comm.size(), me = comm.rank();
    const int64_t n = o.n - o.n % p;  // rows and columns split evenly
    const std::vector<int64_t> shape{n, n};
    if (me == 0) {
      std::printf("einrt redistribute benchmark: %d ranks, %lld x %lld f64, median of %d iterations\n\n", p,
                  static_cast<long long>(n), static_cast<long long>(n), o.iters);
      std::printf("| %-26s | %-30s | %12s | %10s | %8s | %7s |\n", "scenario", "path", "bytes/iter", "time ms",
                  "GB/s", "ratio");
      std::printf("|%s|%s|%s|%s|%s|%s|\n", std::string(28, '-').c_str(), std::string(32, '-').c_str(),
                  std::string(14, '-').c_str(), std::string(12, '-').c_str(), std::string(10, '-').c_str(),
                  std::string(8, '-').c_str());
    }
    const einrt::Layout rows = einrt::Layout::grid(shape, {p, 1}, oneEach(p));
    const einrt::Layout cols = einrt::Layout::grid(shape, {1, p}, oneEach(p));

    // 1. Dense exchange, baseline: hand-written MPI_Alltoallv of the same pieces.
    {
      const int64_t b = n / p;
      std::vector<double> in(static_cast<std::size_t>(b * n), 1.0), out(static_cast<std::size_t>(n * b), 0.0),
          packed(static_cast<std::size_t>(b * n));
      std::vector<int> counts(p, static_cast<int>(b * b)), displs(p);
      for (int q = 0; q < p; ++q) displs[q] = static_cast<int>(q * b * b);
      auto handWritten = [&] {
        for (int q = 0; q < p; ++q)  // the q-th column block of my rows, row by row
          for (int64_t i = 0; i < b; ++i)
            std::memcpy(&packed[q * b * b + i * b], &in[i * n + q * b], b * sizeof(double));
        MPI_Alltoallv(packed.data(), counts.data(), displs.data(), MPI_DOUBLE, out.data(), counts.data(),
                      displs.data(), MPI_DOUBLE, MPI_COMM_WORLD);
      };
      const double bytes = static_cast<double>(einrt::predictTraffic(rows, cols, einrt::DType::F64, p).totalBytes);
      const double base = timeIt(o, handWritten);
      print({"rows -> columns (dense)", "hand-written Alltoallv", bytes, base, base}, me);
      for (einrt::Transport t : {einrt::Transport::Auto, einrt::Transport::PointToPoint}) {
        Blocks src(rows, me, 1.0), dst(cols, me, 0.0);
        auto plan = einrt::planRedistribute(comm, "A", rows, cols, einrt::DType::F64, {t});
        const double s = timeIt(o, [&] { plan.execute(src.map, dst.map); });
        print({"rows -> columns (dense)", std::string("einrt ") + einrt::transportName(plan.transport()), bytes, s, base},
              me);
      }
    }

    // 2. Specialized collectives against einrt's general paths on the same layouts.
    struct Scenario {
      const char* name;
      einrt::Layout src, dst;
    };
    std::vector<int> all(p);
    for (int r = 0; r < p; ++r) all[r] = r;
    const std::vector<Scenario> scenarios = {
        {"rows -> replicated", rows, einrt::Layout::replicated(shape, p)},
        {"partial sum -> rows", einrt::Layout::grid(shape, {1, 1}, {all}, einrt::Holding::Partial), rows},
        {"partial sum -> replicated", einrt::Layout::grid(shape, {1, 1}, {all}, einrt::Holding::Partial),
         einrt::Layout::replicated(shape, p)},
        {"whole on rank 0 -> rows", einrt::Layout::whole(shape, 0), rows},
        {"rows -> whole on rank 0", rows, einrt::Layout::whole(shape, 0)},
    };
    for (const Scenario& sc : scenarios) {
      const double bytes = static_cast<double>(einrt::predictTraffic(sc.src, sc.dst, einrt::DType::F64, p).totalBytes);
      double base = 0;
      for (einrt::Transport t : {einrt::Transport::PointToPoint, einrt::Transport::Alltoallv, einrt::Transport::Auto}) {
        Blocks src(sc.src, me, 1.0), dst(sc.dst, me, 0.0);
        auto plan = einrt::planRedistribute(comm, "B", sc.src, sc.dst, einrt::DType::F64, {t});
        const double s = timeIt(o, [&] { plan.execute(src.map, dst.map); });
        if (t == einrt::Transport::PointToPoint) base = s;
        print({sc.name, std::string("einrt ") + einrt::transportName(plan.transport()) +
                            (t == einrt::Transport::Auto ? " (auto)" : " (forced)"),
               bytes, s, base},
              me);
      }
    }
    if (me == 0)
      std::printf("\nratio: baseline time / this time (>1 is faster). Baselines: the hand-written Alltoallv for the "
                  "dense exchange, einrt's forced p2p path for the other scenarios.\n");
  }
  MPI_Finalize();
  return 0;
}
