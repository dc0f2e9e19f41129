// The one rule of how a GEMM call runs on a rank's threads (gemm.h: scheduleGemm): read
// by HostGemm, which runs the items, and by the planner's kernel model, which prices
// them — kept apart from the BLAS so that the planner links it without one.
#include <algorithm>

#include "einrt/program/gemm.h"

namespace einrt::program {

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Calls below this many FLOPs run on one thread: waking a second one costs more.
constexpr double kParallelFlops = 1 << 20;

// Where the primitive beats the BLAS (bench/gemm_paths, bench/RESULTS.md: LIBXSMM's tiles
// against single-threaded OpenBLAS bands on the tensor networks', attention's and the
// LLaMA layer's shapes): few columns with a reduction of up to 192 (tw's 16000x40x144:
// 47 against 37 GFLOP/s; trn's 6400x50x200: 44 against 57), or a short reduction (up to
// 64) over any number of columns (fctn's 480x25600x64 on 2 threads: 117 against 107; on
// the BLAS a quarter of its rows, 240x25600x64, ran at half that in the program). Longer
// reductions over wide operands need the BLAS's packing and blocking for the caches
// (syn's 2048x2688x288: 59 against 83).
bool primitiveFits(const GemmCall& g) { return g.k <= (g.n <= kPrimitiveWideCols ? 192 : 64); }

}  // namespace

const char* gemmPlannedName(GemmPlanned p) {
  return p == GemmPlanned::Blas ? "blas" : p == GemmPlanned::Primitive ? "primitive" : "";
}

std::optional<GemmPlanned> gemmPlannedFromName(const std::string& name) {
  if (name == "blas") return GemmPlanned::Blas;
  if (name == "primitive") return GemmPlanned::Primitive;
  return std::nullopt;
}

GemmSchedule scheduleGemm(const GemmCall& g, DType t, int threads, bool primitive, GemmPlanned planned) {
  const bool real = t == DType::F32 || t == DType::F64;
  const double flops = 2.0 * static_cast<double>(g.batch) * static_cast<double>(g.m) * static_cast<double>(g.n) *
                       static_cast<double>(g.k);
  if (!real || flops < kParallelFlops) threads = 1;
  const bool onPrimitive = planned == GemmPlanned::Rule ? primitiveFits(g) : planned == GemmPlanned::Primitive;
  return splitGemm(g, primitive && real && onPrimitive ? GemmPath::Primitive : GemmPath::Blas, threads);
}

GemmSchedule splitGemm(const GemmCall& g, GemmPath path, int threads) {
  GemmSchedule s;
  s.path = path;
  threads = std::max(1, threads);
  if (s.path == GemmPath::Primitive) {
    s.rowTile = std::min(g.m, kPrimitiveRows);
    s.colTile = g.n <= kPrimitiveWideCols ? g.n : kPrimitiveCols;
    // LIBXSMM reads B's k rows of a tile where they are: a transposed B cannot be read, and
    // rows farther apart than the tile (a wide B, a strided view) cost the caches and TLB a
    // quarter to a third of the rate (bench/RESULTS.md): their panels are copied first.
    s.packB = g.transB || g.ldb != s.colTile;
    const int64_t lastCols = g.n - (ceilDiv(g.n, std::max<int64_t>(1, s.colTile)) - 1) * s.colTile;
    s.padCols = s.colTile % kPrimitiveColAlign != 0 || lastCols % kPrimitiveColAlign != 0;
    s.packB = s.packB || s.padCols;
  } else {
    // Whole batch entries where there are enough of them, else each split into as many
    // bands of its longer side as threads per entry.
    const int64_t pieces = g.batch >= threads ? 1 : ceilDiv(threads, g.batch);
    s.rowTile = g.m;
    s.colTile = g.n;
    if (g.m >= g.n) s.rowTile = ceilDiv(g.m, std::min(pieces, g.m));
    else s.colTile = ceilDiv(g.n, std::min(pieces, g.n));
  }
  s.rowTile = std::max<int64_t>(1, s.rowTile);
  s.colTile = std::max<int64_t>(1, s.colTile);
  s.rowTiles = ceilDiv(g.m, s.rowTile);
  s.colTiles = ceilDiv(g.n, s.colTile);
  s.items = g.batch * s.rowTiles * s.colTiles;
  s.packAll = s.packB && g.k * paddedCols(s, s.colTile) * s.colTiles <= kPackAllElements;
  s.threads = static_cast<int>(std::min<int64_t>(threads, std::max<int64_t>(1, s.items)));
  return s;
}

}  // namespace einrt::program
