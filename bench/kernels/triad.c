/* A STREAM-like triad, a[i] = b[i] + s * c[i] over float arrays far larger than the
 * caches, on T OpenMP threads (each thread first touches its own part). Prints the best
 * of R repetitions in bytes per second, counting 3 * N * 4 bytes per pass as STREAM does
 * (reads of b and c, the write of a; no write-allocate traffic).
 * usage: triad N R   (threads from OMP_NUM_THREADS) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 1L << 25;
  const int reps = argc > 2 ? atoi(argv[2]) : 10;
  float* a = malloc(n * sizeof *a);
  float* b = malloc(n * sizeof *b);
  float* c = malloc(n * sizeof *c);
  if (!a || !b || !c) return 1;
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) a[i] = 0, b[i] = 1, c[i] = 2;
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) a[i] = b[i] + 3.0f * c[i];
    const double t = omp_get_wtime() - t0;
    if (t < best) best = t;
  }
  printf("%.6g %g\n", 3.0 * n * sizeof(float) / best, a[n / 2]);
  return 0;
}
