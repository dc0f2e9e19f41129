#include "einrt/program/executor.h"

#include "einrt/program/convolution.h"

#include <mpi.h>
#if defined(__linux__)
#include <sched.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <einrt/communicator.h>
#include <einrt/file_output.h>
#include <einrt/input_generator.h>
#include <einrt/npy.h>

#include "check.h"
#include "distributed.h"
#include "mixed_types.h"
#include "einrt/program/gemm.h"
#include "einrt/program/options.h"
#include "einrt/program/report.h"
#include "heap_policy.h"

namespace einrt::program {

namespace {

// --timeout: a rank still running after the limit (a peer died inside a collective, or the
// job hangs) says so and ends; mpirun then stops the other ranks. std::_Exit on purpose:
// MPI_Abort is not safe from a second thread under MPI_THREAD_SINGLE.
class Watchdog {
 public:
  Watchdog(int seconds, int rank) {
    if (seconds <= 0) return;
    thread_ = std::thread([this, seconds, rank] {
      std::unique_lock<std::mutex> lock(mutex_);
      if (finished_.wait_for(lock, std::chrono::seconds(seconds), [this] { return done_; })) return;
      std::fprintf(stderr, "error (rank %d): still running after --timeout %d s (a rank died or the job hangs); ending the job\n",
                   rank, seconds);
      std::fflush(stderr);
      std::_Exit(124);
    });
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    finished_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable finished_;
  bool done_ = false;
  std::thread thread_;
};

// The cores this rank may run on (its CPU affinity: mpirun binds each rank to one core by
// default where ranks <= cores); 0 where the system does not say.
int coresOfThisRank() {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
#endif
  return 0;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

// Runs `body` on rank 0 and tells every rank whether it failed (printing the reason), so
// a problem found on rank 0 is one clear error everywhere instead of a hang.
template <class Body>
bool onRootOk(int rank, const char* what, Body body) {
  std::string problem;
  if (rank == 0) {
    try {
      body();
    } catch (const std::exception& e) {
      problem = e.what();
      if (problem.empty()) problem = "failed";
    }
  }
  int failed = problem.empty() ? 0 : 1;
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (failed && rank == 0) std::fprintf(stderr, "error: %s: %s\n", what, problem.c_str());
  return !failed;
}

// An f32 tensor of a bf16 or f16 program (mixed_types.h).
template <class T>
bool isWide(const TensorSpec& t) {
  return t.otherFloatType(dtypeOf<T>());
}

int64_t elementsOf(const TensorSpec& t) {
  int64_t n = 1;
  for (int64_t e : t.shape) n *= e;
  return n;
}

// NaNs in an input (infinities are values: a min-plus graph's "no edge").
template <class T>
std::string nanSummary(const std::vector<T>& values) {
  std::size_t count = 0;
  for (const T v : values) count += std::isnan(static_cast<double>(static_cast<Compute<T>>(v)));
  return count ? std::to_string(count) + " NaN value" + (count == 1 ? "" : "s") : "";
}

// --inputs: rank 0 reads every graph input before any collective (false: refused, said).
template <class T>
bool readRootInputs(const ProgramSpec<T>& spec, const ProgramOptions& opt, int me, std::map<int, std::vector<T>>& rootInputs) {
  return onRootOk(me, "--inputs", [&] {
    for (std::size_t t = 0; t < spec.tensors.size(); ++t) {
      const TensorSpec& ts = spec.tensors[t];
      if (!ts.isInput) continue;
      const std::string path = (std::filesystem::path(opt.inputs) / (ts.name + ".npy")).string();
      // The whole step's values (a split input's every micro-batch). Ids keep their type,
      // packed into the program's host tensors (index_kernel.h), and so do an f32 tensor's
      // values in a bf16 program (mixed_types.h).
      const std::vector<int64_t> shape = ts.stepNpyShape(spec.microBatches);
      if (ts.indexType) rootInputs[static_cast<int>(t)] = detail::packIds<T>(readNpyIndices(path, shape), *ts.indexType);
      else if (isWide<T>(ts)) rootInputs[static_cast<int>(t)] = detail::packFloats<T>(readNpy<float>(path, shape));
      else rootInputs[static_cast<int>(t)] = readNpy<T>(path, shape);
    }
    for (const auto& [t, values] : rootInputs) {
      if (spec.tensors[static_cast<std::size_t>(t)].indexType || isWide<T>(spec.tensors[static_cast<std::size_t>(t)])) continue;
      const std::string bad = nanSummary(values);
      if (!bad.empty())
        std::fprintf(stderr, "warning: --inputs: %s.npy holds %s; where it reaches an output, --check compares NaN with NaN\n",
                     spec.tensors[static_cast<std::size_t>(t)].name.c_str(), bad.c_str());
    }
  });
}

// The cores each rank may use (the least over ranks), with a warning where --threads
// asks for more.
int checkCores(int me, int threads) {
  int cores = coresOfThisRank();
  MPI_Allreduce(MPI_IN_PLACE, &cores, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (me == 0 && cores > 0 && threads > cores)
    std::fprintf(stderr,
                 "warning: --threads %d, but a rank may run on only %d core(s) (its CPU affinity: mpirun binds each rank to "
                 "one core by default), so its threads share them; give every rank %d cores: mpirun --map-by slot:PE=%d "
                 "(or --bind-to none)\n",
                 threads, cores, threads, threads);
  return cores;
}

// What the timed iterations measured: per node its times (the last rank to finish it less
// the last to finish the node before) and the bytes all ranks sent for it, the whole
// iterations' times, and every rank's memory high-water mark (on rank 0).
struct Measurement {
  std::vector<std::vector<double>> nodeTimes;
  std::vector<double> totalTimes;
  std::vector<long long> nodeBytes, nodeInterBytes, peaks;
};

// The order the nodes run in one iteration: the body (the nodes run per micro-batch,
// einrt/model/program_model.h) once per micro-batch, then the rest; `microBatchOf[r]`:
// the micro-batch run r belongs to.
std::vector<std::size_t> runOrder(const model::ProgramTables& t, std::vector<int64_t>& microBatchOf) {
  const std::size_t body = model::bodyEnd(t);
  std::vector<std::size_t> order;
  microBatchOf.clear();
  for (int64_t m = 0; m < std::max<int64_t>(1, t.microBatches); ++m)
    for (std::size_t i = 0; i < body; ++i) {
      order.push_back(i);
      microBatchOf.push_back(m);
    }
  for (std::size_t i = body; i < t.nodes.size(); ++i) {
    order.push_back(i);
    microBatchOf.push_back(0);
  }
  return order;
}

template <class T>
Measurement measureIterations(detail::DistributedProgram<T>& program, Communicator& comm, const ProgramOptions& opt,
                              const ProgramSpec<T>& spec) {
  const std::size_t nodes = spec.nodes.size();
  std::vector<int64_t> microBatchOf;
  const std::vector<std::size_t> order = runOrder(spec, microBatchOf);
  Measurement m;
  m.nodeTimes.resize(nodes);
  m.nodeBytes.assign(nodes, 0);
  m.nodeInterBytes.assign(nodes, 0);
  for (int it = 0; it < opt.warmup + opt.iters; ++it) {
    const bool timed = it >= opt.warmup;
    MPI_Barrier(MPI_COMM_WORLD);
    program.startIteration();
    const double start = MPI_Wtime();
    // Each rank notes when it finished every run of a node, counted from its own start
    // (the barrier): clocks of different machines need not agree, their starts do within a
    // message's latency.
    std::vector<double> finished(order.size());
    for (std::size_t r = 0; r < order.size(); ++r) {
      program.setMicroBatch(microBatchOf[r]);
      program.runNode(order[r]);
      finished[r] = MPI_Wtime() - start;
    }
    // Per node, all its runs, fused members included (their group ran at its first member).
    if (timed)
      for (std::size_t i = 0; i < nodes; ++i) {
        m.nodeBytes[i] += static_cast<long long>(program.lastBytesSent(i));
        m.nodeInterBytes[i] += static_cast<long long>(program.lastInterNodeBytesSent(i));
      }
    double elapsed = MPI_Wtime() - start;
    if (!timed) continue;
    // A run's time is what it adds to the iteration: the last rank to finish it less the
    // last to finish the run before; a node's, its runs' together. Timing each rank's own
    // run of the node instead counted a rank's wait for a slower partner in the node where
    // it waits, on top of the partner's time in the node before (trn / 2 at p = 2: its
    // last step, 576 bytes, 5.5 us of which about 3 were rank 0 waiting out rank 1's
    // trn.7), and the nodes' times added up to more than the iteration's.
    std::vector<double> lastFinish(order.size());
    MPI_Allreduce(finished.data(), lastFinish.data(), static_cast<int>(order.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    std::vector<double> nodeTime(nodes, 0.0);
    for (std::size_t r = 0; r < order.size(); ++r) nodeTime[order[r]] += lastFinish[r] - (r > 0 ? lastFinish[r - 1] : 0.0);
    for (std::size_t i = 0; i < nodes; ++i) m.nodeTimes[i].push_back(nodeTime[i]);
    m.totalTimes.push_back(elapsed);
  }
  MPI_Allreduce(MPI_IN_PLACE, m.nodeBytes.data(), static_cast<int>(nodes), MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, m.nodeInterBytes.data(), static_cast<int>(nodes), MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  long long myPeak = static_cast<long long>(comm.memory().peak());
  m.peaks.resize(static_cast<std::size_t>(comm.size()));
  MPI_Gather(&myPeak, 1, MPI_LONG_LONG, m.peaks.data(), 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  return m;
}

// Rank 0's report of the measured run (the --check result is added after).
template <class T>
Report reportOf(const ProgramSpec<T>& spec, const ProgramOptions& opt, const detail::DistributedProgram<T>& program,
                const Measurement& m, int ranks, int cores, int64_t ranksPerNode, const DeviceOps* device) {
  Report r;
  r.program = spec.name;
  r.toolVersion = spec.toolVersion;
  r.graphSha256 = spec.graphSha256;
  r.planSha256 = spec.planSha256;
  r.ranks = ranks;
  r.backend = spec.memory == MemorySpace::Cuda ? "cuda" : "cpu";
  r.dtype = dtypeName(dtypeOf<T>());
  // What ran the GEMMs of the measured run (the --check reference runs more).
  if (device) r.gemmPath = "cublas";
  else if constexpr (kIsTwoByte<T>) r.gemmPath = lowPrecisionGemmPath();
  else r.gemmPath = hostGemmPath();
  r.convolutionPath = convolutionPath();
  r.iters = opt.iters;
  r.threads = opt.threads;
  r.coresPerRank = cores;
  r.timeS = median(m.totalTimes);
  r.gflops = r.timeS > 0 ? static_cast<double>(spec.flops) / r.timeS / 1e9 : 0;
  r.bytesPredicted = spec.bytesPredicted;
  r.ranksPerNode = ranksPerNode;
  r.interNodeBytesPredicted = spec.interNodeBytesPredicted;
  r.peakBytesPerRank.assign(m.peaks.begin(), m.peaks.end());
  // The plan predicts one thread; every further thread adds its fused-tile workspace.
  for (std::size_t k = 0; k < spec.peakBytesPredicted.size(); ++k)
    r.peakBytesPredictedPerRank.push_back(spec.peakBytesPredicted[k] +
                                          static_cast<int64_t>(std::max(1, opt.threads) - 1) * spec.tileWorkspaceBytes.at(k));
  for (std::size_t i = 0; i < spec.nodes.size(); ++i) {
    // A fused group runs as one step, timed on its first member.
    std::string kernel = spec.nodes[i].kernel;
    const int lead = program.fusedWith(i);
    if (spec.nodes[i].fusion.group >= 0 && lead < 0) kernel = "elementwise (fused on CPUs only)";
    else if (lead >= 0 && lead != static_cast<int>(i)) kernel += " (timed with " + spec.nodes[static_cast<std::size_t>(lead)].name + ")";
    NodeReport nr{spec.nodes[i].name, kernel, median(m.nodeTimes[i]), m.nodeBytes[i] / opt.iters, spec.nodes[i].bytesPredicted,
                  m.nodeInterBytes[i] / opt.iters, spec.nodes[i].interNodeBytesPredicted};
    r.bytesSent += nr.bytesSent;
    r.interNodeBytesSent += nr.interNodeBytesSent;
    r.nodes.push_back(nr);
  }
  return r;
}

// The graph inputs whole, for --check: as read from --inputs, or generated from --seed.
template <class T>
std::map<int, std::vector<T>> wholeInputs(const ProgramSpec<T>& spec, const ProgramOptions& opt,
                                          const std::map<int, std::vector<T>>* rootInputs) {
  std::map<int, std::vector<T>> whole;
  for (std::size_t t = 0; t < spec.tensors.size(); ++t) {
    const TensorSpec& ts = spec.tensors[t];
    if (!ts.isInput) continue;
    if (rootInputs) {
      whole[static_cast<int>(t)] = rootInputs->at(static_cast<int>(t));
      continue;
    }
    // The whole step's (a split input's every micro-batch: micro_batches.h).
    const std::vector<int64_t> shape = ts.stepShape(spec.microBatches);
    int64_t elements = 1;
    for (int64_t e : shape) elements *= e;
    if (ts.indexType) {
      std::vector<int64_t> ids(static_cast<std::size_t>(elements));
      fillIndexBlock(opt.seed, ts.name, shape, std::vector<int64_t>(shape.size(), 0), shape, ts.indexRange, ids.data());
      whole[static_cast<int>(t)] = detail::packIds<T>(ids, *ts.indexType);
      continue;
    }
    if (isWide<T>(ts)) {
      std::vector<float> v(static_cast<std::size_t>(elements));
      fillInput<float>(opt.seed, ts.name, v.size(), v.data());
      whole[static_cast<int>(t)] = detail::packFloats<T>(v);
      continue;
    }
    std::vector<T> v(static_cast<std::size_t>(elements));
    fillInput<T>(opt.seed, ts.name, v.size(), v.data());
    whole[static_cast<int>(t)] = std::move(v);
  }
  return whole;
}

// --outputs as one set: staged and published under the folder's lock (einrt/file_output.h),
// so two runs into one folder never mix their files.
template <class T>
void writeOutputs(const ProgramSpec<T>& spec, const std::string& folder, const std::map<int, std::vector<T>>& outputs) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& [t, values] : outputs) {
    const TensorSpec& ts = spec.tensors[static_cast<std::size_t>(t)];
    if (isWide<T>(ts))
      files.emplace_back(ts.name + ".npy",
                         encodeNpy<float>(ts.npyShape(), detail::unpackFloats(values, static_cast<std::size_t>(elementsOf(ts))).data()));
    else files.emplace_back(ts.name + ".npy", encodeNpy<T>(ts.npyShape(), values.data()));
  }
  const FolderLock lock(folder);
  publishFiles(lock, files);
}

template <class T>
int runOnRanks(const ProgramSpec<T>& spec, const ProgramOptions& opt, const DeviceOps* device) {
  Communicator comm(MPI_COMM_WORLD);
  const int me = comm.rank();
  if (comm.size() != spec.devices) {
    if (me == 0)
      std::fprintf(stderr, "error: %s was planned for %d ranks but runs on %d; use mpirun -np %d\n", spec.name.c_str(),
                   spec.devices, comm.size(), spec.devices);
    return 2;
  }
  if (spec.memory == MemorySpace::Cuda && !device)
    throw std::runtime_error("a CUDA program must pass einrt::cudaDevice() to runProgram");
  if (device && std::any_of(spec.tensors.begin(), spec.tensors.end(), [](const TensorSpec& t) { return isWide<T>(t); })) {
    if (me == 0)
      std::fprintf(stderr, "error: %s computes in two float types (f32 tensors in a %s graph: mixed precision), which einrt "
                   "runs on CPUs only; run the CPU program\n", spec.name.c_str(), dtypeName(dtypeOf<T>()));
    return 2;
  }
  if (device && spec.microBatches > 1) {
    if (me == 0)
      std::fprintf(stderr, "error: %s runs a step of %lld micro-batches, which einrt runs on CPUs only; run the CPU program\n",
                   spec.name.c_str(), static_cast<long long>(spec.microBatches));
    return 2;
  }
  // Output folders are made and checked before anything is computed.
  if (!onRootOk(me, "--outputs/--report", [&] {
        if (!opt.outputs.empty()) prepareFolder(opt.outputs);
        if (!opt.report.empty()) prepareFileFolder(opt.report);
      }))
    return 2;
  std::map<int, std::vector<T>> rootInputs;
  if (!opt.inputs.empty() && !readRootInputs(spec, opt, me, rootInputs)) return 2;
  const std::map<int, std::vector<T>>* inputs = opt.inputs.empty() ? nullptr : &rootInputs;

  setGemmThreads(opt.threads);
  const int cores = checkCores(me, opt.threads);
  // Bytes are split by link as the plan's machine places ranks on nodes, or as asked.
  const int64_t ranksPerNode = opt.ranksPerNode > 0 ? opt.ranksPerNode : spec.ranksPerNode;
  if (me == 0 && opt.ranksPerNode > 0 && spec.ranksPerNode != opt.ranksPerNode)
    std::fprintf(stderr, "note: --ranks-per-node %d: the plan's split between nodes (*_predicted) assumes %s\n", opt.ranksPerNode,
                 spec.ranksPerNode > 0 ? (std::to_string(spec.ranksPerNode) + " ranks per node").c_str() : "one node");
  comm.setRankNodes(RankNodes{ranksPerNode});
  detail::DistributedProgram<T> program(spec, comm, device, opt.threads);
  program.setUp(opt.seed, inputs);
  // The measured run starts here: the --inputs scatter's staging goes, the plan's staging
  // budget is reserved and held (SPEC 3.2), and the high-water mark starts from what stays.
  comm.releaseStaging();
  if (!spec.stagingSendBytes.empty()) {
    comm.reserveStaging(static_cast<std::size_t>(spec.stagingSendBytes.at(static_cast<std::size_t>(me))),
                        static_cast<std::size_t>(spec.stagingRecvBytes.at(static_cast<std::size_t>(me))),
                        spec.memory == MemorySpace::Cuda ? device : nullptr);
    comm.fixStaging(true);
  }
  comm.memory().resetPeak();
  const Measurement measured = measureIterations(program, comm, opt, spec);
  comm.fixStaging(false);  // the output gather below stages whole tensors

  std::map<int, std::vector<T>> outputs;
  if (opt.check || !opt.outputs.empty())
    for (int t : spec.outputs) outputs[t] = program.gather(t);
  if (me != 0) return 0;
  Report r = reportOf(spec, opt, program, measured, comm.size(), cores, ranksPerNode, device);
  int status = 0;
  if (opt.check) {
    r.check = detail::checkOutputs(spec, wholeInputs(spec, opt, inputs), outputs, device, opt.threads);
    if (!r.check.passed) status = 1;
  }
  if (!opt.outputs.empty()) writeOutputs(spec, opt.outputs, outputs);
  printReport(r);
  if (!opt.report.empty()) writeFileWhole(opt.report, reportJson(r));
  return status;
}

template <class T>
int run(const ProgramSpec<T>& spec, int argc, char** argv, const DeviceOps* device) {
  MPI_Init(&argc, &argv);
  detail::keepFreedHostMemory();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int status = 0;
  try {
    const ProgramOptions opt = parseProgramOptions(argc, argv);
    if (opt.help) {
      if (rank == 0) std::printf("%s", programUsage());
    } else if (opt.version) {
      if (rank == 0)
        std::printf("%s: eincodegen %s, graph sha256 %s, plan sha256 %s\n", spec.name.c_str(), spec.toolVersion.c_str(),
                    spec.graphSha256.c_str(), spec.planSha256.c_str());
    } else {
      Watchdog watchdog(opt.timeoutSeconds, rank);
      status = runOnRanks(spec, opt, device);
    }
  } catch (const UsageError& e) {
    if (rank == 0) std::fprintf(stderr, "error: %s\n%s", e.what(), programUsage());
    status = 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error (rank %d): %s\n", rank, e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return status;
}

}  // namespace

int runProgram(const ProgramSpec<float>& spec, int argc, char** argv, const DeviceOps* device) {
  return run(spec, argc, argv, device);
}

int runProgram(const ProgramSpec<double>& spec, int argc, char** argv, const DeviceOps* device) {
  return run(spec, argc, argv, device);
}

int runProgram(const ProgramSpec<bf16>& spec, int argc, char** argv, const DeviceOps* device) {
  return run(spec, argc, argv, device);
}

int runProgram(const ProgramSpec<f16>& spec, int argc, char** argv, const DeviceOps* device) {
  return run(spec, argc, argv, device);
}

}  // namespace einrt::program
