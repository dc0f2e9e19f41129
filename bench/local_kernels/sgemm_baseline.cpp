// Baseline of bench/local_kernels: one OpenBLAS cblas_sgemm call of the size the emitted
// program runs (C = A B, n x n x n, row-major), median of `iters` timed calls after one
// warm-up, printed as "seconds gflops".
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: sgemm_baseline N ITERS\n");
    return 2;
  }
  const int n = std::atoi(argv[1]), iters = std::atoi(argv[2]);
  std::vector<float> a(size_t(n) * n), b(size_t(n) * n), c(size_t(n) * n);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = float((i * 7919) % 1000) / 1000.0f - 0.5f;
    b[i] = float((i * 104729) % 1000) / 1000.0f - 0.5f;
  }
  std::vector<double> times;
  for (int it = 0; it <= iters; ++it) {
    const auto t0 = std::chrono::steady_clock::now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (it > 0) times.push_back(s);
  }
  std::sort(times.begin(), times.end());
  const double median = times[times.size() / 2];
  std::printf("%.6g %.6g\n", median, 2.0 * n * double(n) * n / median / 1e9);
  return 0;
}
