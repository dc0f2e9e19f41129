// External baseline of bench/matrix_chain: the chain Z = A B + C (D E) of EinDecomp's
// experiment 1 with ScaLAPACK's pdgemm on a 2-D process grid (block-cyclic, 64 x 64
// blocks), f64. Shapes: A m x k, B k x n, C m x q, D q x r, E r x n. Prints the median
// seconds of `iters` timed runs after one warm-up (rank 0).
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" {
void Cblacs_pinfo(int* rank, int* nprocs);
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int rows, int cols);
void Cblacs_gridinfo(int context, int* rows, int* cols, int* row, int* col);
void Cblacs_gridexit(int context);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc, const int* icsrc,
               const int* ictxt, const int* lld, int* info);
void pdgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const double* alpha,
             const double* a, const int* ia, const int* ja, const int* desca, const double* b, const int* ib, const int* jb,
             const int* descb, const double* beta, double* c, const int* ic, const int* jc, const int* descc);
}

namespace {

struct Matrix {
  int rows = 0, cols = 0;
  int desc[9] = {};
  std::vector<double> local;
};

Matrix distributed(int ctx, int rows, int cols, int nb, int myRow, int myCol, int gridRows, int gridCols) {
  Matrix m;
  m.rows = rows;
  m.cols = cols;
  const int zero = 0;
  const int localRows = std::max(1, numroc_(&rows, &nb, &myRow, &zero, &gridRows));
  const int localCols = std::max(1, numroc_(&cols, &nb, &myCol, &zero, &gridCols));
  int info = 0;
  descinit_(m.desc, &rows, &cols, &nb, &nb, &zero, &zero, &ctx, &localRows, &info);
  m.local.resize(static_cast<size_t>(localRows) * localCols);
  for (size_t i = 0; i < m.local.size(); ++i) m.local[i] = std::sin(double(i) * 0.001);
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 8) {
    std::fprintf(stderr, "usage: pdgemm_chain m k n q r ITERS NB\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int m = std::atoi(argv[1]), k = std::atoi(argv[2]), n = std::atoi(argv[3]), q = std::atoi(argv[4]),
            r = std::atoi(argv[5]), iters = std::atoi(argv[6]), nb = std::atoi(argv[7]);
  int rank = 0, procs = 1;
  Cblacs_pinfo(&rank, &procs);
  int gridRows = static_cast<int>(std::sqrt(double(procs)));
  while (procs % gridRows) --gridRows;
  const int gridCols = procs / gridRows;
  int ctx = 0;
  Cblacs_get(-1, 0, &ctx);
  Cblacs_gridinit(&ctx, "Row", gridRows, gridCols);
  int gr, gc, myRow, myCol;
  Cblacs_gridinfo(ctx, &gr, &gc, &myRow, &myCol);

  Matrix A = distributed(ctx, m, k, nb, myRow, myCol, gridRows, gridCols);
  Matrix B = distributed(ctx, k, n, nb, myRow, myCol, gridRows, gridCols);
  Matrix C = distributed(ctx, m, q, nb, myRow, myCol, gridRows, gridCols);
  Matrix D = distributed(ctx, q, r, nb, myRow, myCol, gridRows, gridCols);
  Matrix E = distributed(ctx, r, n, nb, myRow, myCol, gridRows, gridCols);
  Matrix DE = distributed(ctx, q, n, nb, myRow, myCol, gridRows, gridCols);
  Matrix Z = distributed(ctx, m, n, nb, myRow, myCol, gridRows, gridCols);

  const int one = 1;
  const double alpha = 1.0, zeroBeta = 0.0, oneBeta = 1.0;
  std::vector<double> times;
  for (int it = 0; it <= iters; ++it) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    pdgemm_("N", "N", &m, &n, &k, &alpha, A.local.data(), &one, &one, A.desc, B.local.data(), &one, &one, B.desc,
            &zeroBeta, Z.local.data(), &one, &one, Z.desc);
    pdgemm_("N", "N", &q, &n, &r, &alpha, D.local.data(), &one, &one, D.desc, E.local.data(), &one, &one, E.desc,
            &zeroBeta, DE.local.data(), &one, &one, DE.desc);
    pdgemm_("N", "N", &m, &n, &q, &alpha, C.local.data(), &one, &one, C.desc, DE.local.data(), &one, &one, DE.desc,
            &oneBeta, Z.local.data(), &one, &one, Z.desc);
    MPI_Barrier(MPI_COMM_WORLD);
    if (it > 0) times.push_back(MPI_Wtime() - t0);
  }
  std::sort(times.begin(), times.end());
  if (rank == 0) std::printf("%.6g\n", times[times.size() / 2]);
  Cblacs_gridexit(ctx);
  MPI_Finalize();
  return 0;
}
