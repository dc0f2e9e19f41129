// einrt-calibrate (SPEC 5): measures, on the ranks mpirun gives it, what the planner's time
// estimate needs (planner/cost/time_model.h) and writes a machine file for --machine:
//   latency, bandwidth   fitted to einrt's own dense repartition (every rank exchanging
//                        with every other, the collective plans run) at two message sizes:
//                        time = latency * messages of the busiest rank + its bytes / bandwidth;
//   flops, flops_f64     GEMM FLOP/s per rank (cblas_sgemm / cblas_dgemm, every rank at once,
//                        with the BLAS threads the environment gives a rank);
//   flops_bf16, flops_f16  the same for 2-byte GEMMs, through the path emitted programs
//                        take (einrt's hostGemm: oneDNN where this tool was built with it,
//                        else f32 conversions and the BLAS);
//   memory_bandwidth     bytes/s per rank of a STREAM-like triad, every rank at once;
// and, for the record, point-to-point latency and bandwidth (ping-pong between ranks 0
// and 1) and einrt's reduce-redistribute rate. Every figure is the median over
// repetitions of the slowest rank. Run it once per job layout:
//   mpirun -np P einrt-calibrate -o machine.yaml [--quick] [--ranks-per-node K]
// With --ranks-per-node K (a cluster, SPEC 9: ranks k*K .. k*K+K-1 on node k) the two
// links are measured apart where the ranks really span machines (MPI_COMM_TYPE_SHARED):
// latency/bandwidth by the same exchange within each node's K ranks at once, and
// inter_node_latency/inter_node_bandwidth within groups of one rank per node (every rank
// exchanging only with other nodes, all groups at once); the file then carries
// ranks_per_node. Where every rank shares one machine there is no network to measure: the
// intra-node link is measured and `links_measured` says so. `links_measured` always
// records which links the figures come from.
#include <cblas.h>
#include <mpi.h>

#include <einrt/file_output.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <einrt/einrt.h>
#include <einrt/program/gemm.h>
#include <einrt/program/streaming_stores.h>

#include "calibrate_kernels.h"
#include "calibrate_step.h"
#include "calibrate_timing.h"
#if defined(EINRT_WITH_ONEDNN)
#include <einrt/program/dnnl_gemm.h>
#endif
#if defined(EINRT_WITH_LIBXSMM)
#include <einrt/program/xsmm_gemm.h>
#endif

namespace {

using einrt::calibrate::medianSeconds;

struct Options {
  std::string output = "-";
  bool quick = false;
  int ranksPerNode = 0;  // 0: one node
  bool asCluster = false;  // measure the layout's two links even on one machine (tests)
};

const char* kUsage =
    "usage: mpirun -np P einrt-calibrate [-o FILE] [--quick]\n"
    "  -o FILE   the machine file to write (YAML; default: standard output)\n"
    "  --quick   fewer and smaller repetitions (seconds instead of a minute; for tests)\n"
    "  --ranks-per-node K  ranks k*K .. k*K+K-1 share node k: measure the intra-node and the\n"
    "            inter-node link apart (where the ranks span machines) and write a cluster file\n"
    "  --as-cluster  with --ranks-per-node: measure both links even where all ranks share one\n"
    "            machine (both are then shared memory; for testing the cluster path)\n"
    "  --version print the version\n";

// Half the round trip of `bytes` between ranks 0 and 1.
double pingPong(int rank, std::size_t bytes, int reps) {
  std::vector<char> buffer(std::max<std::size_t>(bytes, 1));
  const int count = static_cast<int>(bytes);
  return medianSeconds(reps, [&] {
           for (int i = 0; i < 10; ++i) {
             if (rank == 0) {
               MPI_Send(buffer.data(), count, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
               MPI_Recv(buffer.data(), count, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
             } else if (rank == 1) {
               MPI_Recv(buffer.data(), count, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
               MPI_Send(buffer.data(), count, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
             }
           }
         }) /
         20.0;
}

struct Exchange {
  double seconds = 0;
  double busiestBytes = 0;
  double busiestMessages = 0;
};

// einrt's repartition of an n x n f32 matrix from row blocks to column blocks (every rank
// exchanges with every other), or, with `partial`, the reduction of partial sums held by
// every rank into row blocks (what a node's aggregation runs).
Exchange repartition(einrt::Communicator& comm, int64_t n, bool partial, int reps) {
  const int P = comm.size(), me = comm.rank();
  std::vector<std::vector<int>> all(static_cast<std::size_t>(P)), single;
  for (int r = 0; r < P; ++r) single.push_back({r});
  for (auto& holders : all)
    for (int r = 0; r < P; ++r) holders.push_back(r);
  const einrt::Layout rows = einrt::Layout::grid({n, n}, {P, 1}, single);
  const einrt::Layout src = partial ? einrt::Layout::grid({n, n}, {P, 1}, all, einrt::Holding::Partial)
                                    : rows;
  const einrt::Layout dst = partial ? rows : einrt::Layout::grid({n, n}, {1, P}, single);
  einrt::RedistributePlan plan = einrt::planRedistribute(comm, "calibrate", src, dst, einrt::DType::F32);
  std::vector<std::vector<float>> srcBuffers, dstBuffers;
  einrt::BlockMap srcMap, dstMap;
  for (std::size_t b : src.blocksHeldBy(me)) {
    srcBuffers.emplace_back(static_cast<std::size_t>(einrt::blockElements(src, b)), 1.0f);
    srcMap[b] = srcBuffers.back().data();
  }
  for (std::size_t b : dst.blocksHeldBy(me)) {
    dstBuffers.emplace_back(static_cast<std::size_t>(einrt::blockElements(dst, b)), 0.0f);
    dstMap[b] = dstBuffers.back().data();
  }
  Exchange e;
  e.seconds = medianSeconds(reps, [&] { plan.execute(srcMap, dstMap); });
  const einrt::TrafficPrediction t = einrt::predictTraffic(src, dst, einrt::DType::F32, P);
  for (int r = 0; r < P; ++r)
    e.busiestBytes = std::max({e.busiestBytes, static_cast<double>(t.bytesSentByRank[static_cast<std::size_t>(r)]),
                               static_cast<double>(t.bytesRecvByRank[static_cast<std::size_t>(r)])});
  e.busiestMessages = 2.0 * (P - 1);  // every rank sends to and receives from every other
  return e;
}

// One link's latency and bandwidth, fitted from two sizes of the dense exchange among the
// ranks of `comm` (every rank of the job runs its own group's exchange at once): time =
// latency * messages of the busiest rank + its bytes / bandwidth. Also einrt's
// reduce-redistribute rate on that link.
struct Link {
  double latency = 0, bandwidth = 0, reduceBandwidth = 0;
};

Link measureLink(einrt::Communicator& comm, bool quick, int reps) {
  const int ranks = comm.size();
  const int64_t small = 16 * ranks, big = (quick ? 1024 : 4096) / ranks * ranks;
  const Exchange s = repartition(comm, small, false, reps), b = repartition(comm, big, false, reps);
  Link l;
  // On a loaded machine the small exchange can take as long as the big one: the fit then
  // has no slope (it gave 1e15 B/s once, which einplan rightly refused), and the big
  // exchange's whole rate — latency included, so a lower bound — stands in.
  const double slope = b.seconds - s.seconds;
  l.bandwidth = slope > 0.05 * b.seconds ? (b.busiestBytes - s.busiestBytes) / slope
                                         : b.busiestBytes / std::max(b.seconds, 1e-9);
  l.latency = std::max(0.0, (s.seconds - s.busiestBytes / l.bandwidth) / s.busiestMessages);
  const Exchange r = repartition(comm, big, true, reps);
  l.reduceBandwidth = r.busiestBytes / std::max(r.seconds - l.latency * r.busiestMessages, 1e-9);
  return l;
}

// Ranks of `world` whose `color` is equal, as an einrt communicator.
einrt::Communicator groupOf(int color, int rank) {
  MPI_Comm group = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &group);
  einrt::Communicator c(group);
  MPI_Comm_free(&group);
  return c;
}

// The ranks on this rank's machine (sharing memory: MPI_COMM_TYPE_SHARED) and how many
// machines the job's ranks run on.
struct MachineShare {
  int ranksHere = 1, machines = 1;
};
MachineShare machineShare() {
  MPI_Comm shared = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
  MachineShare share;
  int sharedRank = 0;
  MPI_Comm_rank(shared, &sharedRank);
  MPI_Comm_size(shared, &share.ranksHere);
  MPI_Comm_free(&shared);
  int leader = sharedRank == 0 ? 1 : 0;
  MPI_Allreduce(&leader, &share.machines, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return share;
}

// The last-level cache one rank may count on: the largest data or unified cache of cpu0
// (sysfs; 0 where the kernel does not say), shared by the `ranksHere` ranks on this machine. The kernel
// model charges a GEMM on the primitive's tiles the memory traffic of its working set
// beyond it (syn.3's 114688x64x48, 51 MB with a 32 MB cache here, ran at its tiles' rate).
double cachePerRank(int ranksHere) {
  double largest = 0;
  for (int i = 0; i < 16; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::ifstream typeFile(dir + "type"), sizeFile(dir + "size");
    std::string type, size;
    if (!(typeFile >> type) || !(sizeFile >> size)) break;
    if (type == "Instruction" || size.empty()) continue;
    const char unit = size.back();
    double bytes = std::atof(size.c_str());
    if (unit == 'K') bytes *= 1024;
    else if (unit == 'M') bytes *= 1024 * 1024;
    else if (unit == 'G') bytes *= 1024.0 * 1024 * 1024;
    largest = std::max(largest, bytes);
  }
  return largest / std::max(1, ranksHere);
}

// GEMM FLOP/s per rank, every rank at once.
template <class T>
double gemmRate(int64_t n, int reps) {
  std::vector<T> a(static_cast<std::size_t>(n * n), T(0.5)), b(a), c(a);
  const int m = static_cast<int>(n);
  einrt::program::GemmCall g;
  g.m = g.n = g.k = g.lda = g.ldb = g.ldc = n;
  const double seconds = medianSeconds(reps, [&] {
    if constexpr (einrt::kIsTwoByte<T>)
      einrt::program::hostGemm(g, a.data(), b.data(), c.data(), 1.0f, 0.0f);
    else if constexpr (sizeof(T) == 4)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0f, a.data(), m, b.data(), m, 0.0f, c.data(), m);
    else
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0, a.data(), m, b.data(), m, 0.0, c.data(), m);
  });
  return 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) / seconds;
}

// Bytes/s per rank of a = b + s * c over doubles (two reads and a write), every rank at once.
double triadRate(std::size_t elements, int reps) {
  std::vector<double> a(elements, 0.0), b(elements, 1.0), c(elements, 2.0);
  const double seconds = medianSeconds(reps, [&] {
    double* __restrict pa = a.data();
    const double* __restrict pb = b.data();
    const double* __restrict pc = c.data();
    for (std::size_t i = 0; i < elements; ++i) pa[i] = pb[i] + 3.0 * pc[i];
  });
  return 3.0 * sizeof(double) * static_cast<double>(elements) / seconds;
}

bool parse(int argc, char** argv, Options& o, std::string& error) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-o" || a == "--output") {
      if (i + 1 >= argc) return error = a + " needs a file name", false;
      o.output = argv[++i];
    } else if (a == "--quick") {
      o.quick = true;
    } else if (a == "--as-cluster") {
      o.asCluster = true;
    } else if (a == "--ranks-per-node") {
      if (i + 1 >= argc) return error = a + " needs a value", false;
      const std::string v = argv[++i];
      const bool digits = !v.empty() && v.size() <= 9 && v.find_first_not_of("0123456789") == std::string::npos;
      o.ranksPerNode = digits ? std::stoi(v) : 0;
      if (o.ranksPerNode <= 0) return error = a + " expects a positive whole number, got '" + v + "'", false;
    } else {
      error = "unknown option '" + a + "'";
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::printf("%s", kUsage);
      return 0;
    }
    if (std::strcmp(argv[i], "--version") == 0) {
      std::printf("einrt-calibrate %s\n", EINRT_VERSION);
      return 0;
    }
  }
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  Options o;
  std::string error;
  if (parse(argc, argv, o, error) && o.asCluster && o.ranksPerNode == 0) error = "--as-cluster needs --ranks-per-node K";
  if (!error.empty()) {
    if (rank == 0) std::fprintf(stderr, "einrt-calibrate: error: %s\n%s", error.c_str(), kUsage);
    MPI_Finalize();
    return 2;
  }
  // The output is checked before a minute of measuring (rank 0 writes it; all ranks agree).
  int unwritable = 0;
  if (rank == 0 && o.output != "-") {
    try {
      const std::string warning = einrt::checkWritable(o.output);
      if (!warning.empty()) std::fprintf(stderr, "einrt-calibrate: warning: %s: %s\n", o.output.c_str(), warning.c_str());
    } catch (const einrt::FileError& e) {
      std::fprintf(stderr, "einrt-calibrate: error: -o %s: %s\n", e.path().c_str(), e.reason().c_str());
      unwritable = 1;
    }
  }
  MPI_Bcast(&unwritable, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (unwritable) {
    MPI_Finalize();
    return 2;
  }
  const int reps = o.quick ? 3 : 9;
#if defined(EINRT_WITH_LIBXSMM)
  // As the programs built with it: small and skinny GEMM tiles through LIBXSMM.
  einrt::program::useLibxsmmGemm();
#endif
  einrt::Communicator comm(MPI_COMM_WORLD);

  double p2pLatency = 0, p2pBandwidth = 0;
  Link intra, inter;
  const double triad = triadRate(o.quick ? (1u << 21) : (1u << 23), reps);
  const MachineShare share = machineShare();
  const int machines = share.machines;
  // The cluster layout asked for, and whether there is a network under it to measure.
  const int perNode = o.ranksPerNode > 0 && o.ranksPerNode < ranks ? o.ranksPerNode : ranks;
  const bool cluster = perNode < ranks && (machines > 1 || o.asCluster);
  std::string links;
  if (ranks >= 2) {
    p2pLatency = pingPong(rank, 8, reps);
    const std::size_t large = o.quick ? (1u << 20) : (1u << 23);
    p2pBandwidth = static_cast<double>(large) / pingPong(rank, large, reps);
    if (perNode >= 2) {
      einrt::Communicator node = groupOf(rank / perNode, rank);
      intra = measureLink(node, o.quick, reps);
    } else {
      intra.bandwidth = triad / 3.0;  // one rank per node never talks inside it; a copy's rate stands in
    }
    if (cluster) {
      einrt::Communicator acrossNodes = groupOf(rank % perNode, rank);
      inter = measureLink(acrossNodes, o.quick, reps);
      links = "intra-node and inter-node: " + std::to_string(perNode) + " ranks per node on " + std::to_string(machines) +
              (machines > 1 ? " machines" : " machine (--as-cluster: both links are shared memory here)");
    } else if (perNode < ranks) {
      links = "intra-node only: --ranks-per-node " + std::to_string(perNode) + " asked for a cluster, but all " +
              std::to_string(ranks) + " ranks share one machine, so there is no network to measure; for a cluster file add "
              "ranks_per_node, inter_node_latency and inter_node_bandwidth (docs/cost-model.md)";
    } else {
      links = "intra-node: " + std::to_string(ranks) + " ranks" + (machines > 1 ? " on " + std::to_string(machines) + " machines, measured as one link" : " on one machine");
    }
  } else {
    intra.bandwidth = triad / 3.0;  // one rank never communicates; a copy's rate stands in
    links = "none: one rank (bandwidth is a copy's rate)";
  }
  const double flops = gemmRate<float>(o.quick ? 512 : 1536, reps);
  const double flopsF64 = gemmRate<double>(o.quick ? 512 : 1024, reps);
#if defined(EINRT_WITH_ONEDNN)
  einrt::program::useOneDnnGemm();
#endif
  const double flopsBf16 = gemmRate<einrt::bf16>(o.quick ? 512 : 1536, reps);
  const std::string lowPath = einrt::program::lowPrecisionGemmPath();
  const double flopsF16 = gemmRate<einrt::f16>(o.quick ? 512 : 1536, reps);
  // The paths are counted process-wide: f16 fell back where f32-blas appeared only now.
  const std::string f16Path = einrt::program::lowPrecisionGemmPath() != lowPath ? "f32-blas" : lowPath;
  const std::string kernelModel = einrt::calibrate::measureKernelModel(o.quick);
  const double step = einrt::calibrate::measureStepSeconds(comm, reps);
  const double cache = cachePerRank(share.ranksHere);

  int status = 0;
  if (rank == 0) {
    char host[256] = "unknown";
    gethostname(host, sizeof host - 1);
    const std::time_t now = std::time(nullptr);
    char when[64];
    std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    char text[8192];
    std::snprintf(text, sizeof text,
                  "# Machine file written by einrt-calibrate (read by einplan --machine; docs/cost-model.md).\n"
                  "tool: \"einrt-calibrate %s\"\n"
                  "host: \"%s\"\n"
                  "measured: \"%s\"\n"
                  "ranks: %d\n"
                  "latency: %.6g          # s per message in einrt's repartition (fitted)\n"
                  "bandwidth: %.6g        # bytes/s per rank while every rank exchanges (fitted)\n"
                  "flops: %.6g            # sgemm FLOP/s per rank, all ranks at once\n"
                  "flops_f64: %.6g        # dgemm FLOP/s per rank\n"
                  "flops_bf16: %.6g       # bf16 GEMM FLOP/s per rank (%s)\n"
                  "flops_f16: %.6g        # f16 GEMM FLOP/s per rank (%s)\n"
                  "memory_bandwidth: %.6g # bytes/s per rank, triad, all ranks at once\n"
                  "p2p_latency: %.6g      # s, ping-pong ranks 0-1 (for the record)\n"
                  "p2p_bandwidth: %.6g    # bytes/s, ping-pong ranks 0-1 (for the record)\n"
                  "allreduce_bandwidth: %.6g  # bytes/s per rank, einrt reduce-redistribute (for the record)\n"
                  "links_measured: \"%s\"\n",
                  EINRT_VERSION, host, when, ranks, intra.latency, intra.bandwidth, flops, flopsF64, flopsBf16, lowPath.c_str(), flopsF16, f16Path.c_str(), triad, p2pLatency,
                  p2pBandwidth, intra.reduceBandwidth, links.c_str());
    std::string file = text;
    char stepLine[128];
    std::snprintf(stepLine, sizeof stepLine, "  step: %.4g   # s per node per rank: the executor's own work around the kernels\n", step);
    file += "kernel_model:         # per kernel class, for the planner's kernel model (docs/cost-model.md)\n" + kernelModel +
            stepLine;
    char streamLine[160];
    std::snprintf(streamLine, sizeof streamLine,
                  "  stream_bytes: %lld   # elementwise outputs over this many bytes are streamed (EINRT_STREAM_BYTES)\n",
                  static_cast<long long>(einrt::program::streamBytes()));
    file += streamLine;
    if (cache > 0) {
      char cacheLine[128];
      std::snprintf(cacheLine, sizeof cacheLine, "  cache_bytes: %.0f   # last-level cache per rank (sysfs, shared by the machine's ranks)\n", cache);
      file += cacheLine;
    }
    if (cluster) {
      std::snprintf(text, sizeof text,
                    "ranks_per_node: %d\n"
                    "inter_node_latency: %.6g    # s per message, exchanges between nodes only (fitted)\n"
                    "inter_node_bandwidth: %.6g  # bytes/s per rank, exchanges between nodes only (fitted)\n",
                    perNode, inter.latency, inter.bandwidth);
      file += text;
    }
    if (o.output == "-") {
      std::fputs(file.c_str(), stdout);
    } else {
      try {
        einrt::writeFile(o.output, file);
        std::fprintf(stderr, "einrt-calibrate: wrote %s (%d ranks)\n", o.output.c_str(), ranks);
      } catch (const einrt::FileError& e) {
        std::fprintf(stderr, "einrt-calibrate: error: %s\n", e.what());
        status = 2;
      }
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
