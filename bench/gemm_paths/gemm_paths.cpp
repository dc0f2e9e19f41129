// bench/gemm_paths: einrt's two GEMM paths on the shapes the programs meet — the tensor
// networks' steps, attention's heads, the LLaMA layer's projections — each call run
// through HostGemm on each path whatever scheduleGemm would choose (splitGemm's items: the
// BLAS on bands, LIBXSMM's tiles), on 1 and 2 threads (the program's OpenMP pool); plus
// the path scheduleGemm chooses. Prints a
// markdown table of GFLOP/s, best of 5 after a warm-up. Why the schedule draws its line
// where it does (issue 29, bench/RESULTS.md).
//
// usage: OPENBLAS_NUM_THREADS=1 einrt_bench_gemm_paths [--cold[=MIB]] [BATCHxMxNxK[a][t] ...]   (on 2 free cores)
//        shapes given on the command line replace the built-in list (a: A transposed, t: B);
//        --cold[=MIB] times every call after a write of MIB (default 256) MiB elsewhere: its
//        operands and result evicted from the caches that small.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <einrt/program/gemm.h>
#include <einrt/program/parallel_for.h>
#include <einrt/program/xsmm_gemm.h>

namespace {

using namespace einrt::program;

struct Shape {
  const char* what;
  int64_t batch, m, n, k;
  bool transB;
  bool transA = false;
};

double seconds() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

GemmCall callOf(const Shape& s) {
  GemmCall g;
  g.batch = s.batch, g.m = s.m, g.n = s.n, g.k = s.k, g.transA = s.transA, g.transB = s.transB;
  g.lda = s.transA ? s.m : s.k, g.ldb = s.transB ? s.k : s.n, g.ldc = s.n;
  g.strideA = s.m * s.k, g.strideB = s.k * s.n, g.strideC = s.m * s.n;
  return g;
}

// The call on one path, whatever scheduleGemm would choose (splitGemm: the same items).
// With cold, every timed call follows a write of that many bytes elsewhere: its operands and its
// result come from memory, as in a program whose iteration touches more than the cache.
double rate(const Shape& s, int threads, GemmPath path, std::vector<float>& a, std::vector<float>& b, std::vector<float>& c,
            std::size_t cold) {
  const GemmCall g = callOf(s);
  const HostGemm<float> gemm(g, 1.0, &parallelFor, splitGemm(g, path, threads));
  gemm.run(a.data(), b.data(), c.data(), false);
  static std::vector<char> evict;
  if (cold && evict.size() != cold) evict.assign(cold, 0);
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    if (cold) std::fill(evict.begin(), evict.end(), static_cast<char>(r + 1));
    const double t0 = seconds();
    gemm.run(a.data(), b.data(), c.data(), false);
    best = std::min(best, seconds() - t0);
  }
  return 2.0 * static_cast<double>(s.batch * s.m * s.n * s.k) / best / 1e9;
}

// "BATCHxMxNxK" optionally followed by "a" (A transposed) and "t" (B transposed); false
// on anything else.
bool parseShape(const char* text, Shape& s) {
  long long batch = 0, m = 0, n = 0, k = 0;
  int used = 0;
  if (std::sscanf(text, "%lldx%lldx%lldx%lld%n", &batch, &m, &n, &k, &used) != 4 || batch < 1 || m < 1 || n < 1 || k < 1)
    return false;
  const std::string rest = text + used;
  if (rest != "" && rest != "a" && rest != "t" && rest != "at") return false;
  s = Shape{text, batch, m, n, k, rest.find('t') != std::string::npos, rest.find('a') != std::string::npos};
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Shape> shapes = {
      {"tt, last step", 1, 921600, 384, 32, false},   {"tt.1", 1, 5112, 4096, 305, false},
      {"tt.2", 1, 100, 294912, 71, false},             {"syn.2", 1, 2048, 2688, 288, false},
      {"syn.3", 1, 114688, 64, 48, false},             {"syn, last step", 1, 131072, 84, 56, false},
      {"fctn.2", 1, 480, 25600, 64, false},            {"fctn, last step", 1, 24000, 60, 512, true},
      {"tw.2", 1, 14400, 16, 16, true},                {"tw, last step", 1, 16000, 40, 144, true},
      {"getd.2", 1, 25000, 1000, 40, true},            {"trn.4", 1, 6400, 50, 200, false},
      {"trn.3", 1, 512, 2500, 196, false},             {"trn, last step", 1, 128, 300, 2500, false},
      {"fctn / 2, last step (30 columns)", 1, 3000, 30, 64, true},
      {"trn / 2, trn.2 (350 columns)", 1, 1400, 350, 50, false},
      {"attention scores (x32 heads)", 32, 256, 256, 64, true},
      {"attention values (x32 heads)", 32, 256, 64, 256, false},
      {"LLaMA projection", 1, 1024, 1024, 1024, false}, {"2048^3", 1, 2048, 2048, 2048, false},
  };
  std::size_t cold = 0;
  if (argc > 1 && std::string(argv[1]).rfind("--cold", 0) == 0) {
    const std::string arg = argv[1];
    cold = (arg.size() > 7 ? std::stoul(arg.substr(7)) : 256) << 20;
    --argc, ++argv;
  }
  if (argc > 1) shapes.clear();
  for (int i = 1; i < argc; ++i) {
    Shape s;
    if (!parseShape(argv[i], s)) {
      std::fprintf(stderr, "einrt_bench_gemm_paths: %s: expected BATCHxMxNxK, optionally followed by a (A transposed) and t (B transposed)\n", argv[i]);
      return 2;
    }
    shapes.push_back(s);
  }
  std::size_t most = 0;
  for (const Shape& s : shapes)
    most = std::max({most, static_cast<std::size_t>(s.batch * s.m * s.k), static_cast<std::size_t>(s.batch * s.k * s.n),
                     static_cast<std::size_t>(s.batch * s.m * s.n)});
  std::vector<float> a(most, 0.5f), b(most, 0.25f), c(most);
  useLibxsmmGemm();
  std::printf("| call | batch x m x n x k | BLAS, 1 thread | LIBXSMM tiles, 1 thread | BLAS, 2 threads | LIBXSMM tiles, 2 threads "
              "| scheduleGemm's path |\n|---|---|---:|---:|---:|---:|---|\n");
  for (const Shape& s : shapes) {
    const GemmPath chosen = scheduleGemm(callOf(s), einrt::DType::F32, 2, true).path;
    double r[4];
    for (int threads = 1, i = 0; threads <= 2; ++threads)
      for (GemmPath path : {GemmPath::Blas, GemmPath::Primitive}) r[i++] = rate(s, threads, path, a, b, c, cold);
    std::printf("| %s%s%s | %lldx%lldx%lldx%lld | %.1f | %.1f | %.1f | %.1f | %s |\n", s.what, s.transA ? " (A^T)" : "",
                s.transB ? " (B^T)" : "",
                static_cast<long long>(s.batch), static_cast<long long>(s.m), static_cast<long long>(s.n),
                static_cast<long long>(s.k), r[0], r[1], r[2], r[3], chosen == GemmPath::Primitive ? "LIBXSMM" : "BLAS");
  }
  return 0;
}
