// A row-major (strided-batched) GEMM as a contraction's kernel call runs it:
//   C_b = alpha * op(A_b) * op(B_b) + beta * C_b   for b < batch,
// with element strides between batches.
//
// How a call runs on a rank's threads (issue 29): einrt splits it into work items itself —
// tiles of C's rows and columns of one batch entry — and hands contiguous ranges of items
// to the program's threads (its one pool: the emitted program's OpenMP, spec.h
// parallelFor); every item runs single-threaded, so the BLAS's own threads are set to one
// and never compete with the program's. Small and skinny calls (the tensor networks'
// contractions, attention's heads) run their tiles through a GEMM primitive where the
// program registered one (einrt::xsmm: LIBXSMM's JIT kernels, xsmm_gemm.h); large ones go
// to the BLAS on a share of rows (or columns) per thread, where its packing pays.
// scheduleGemm() is the one rule that decides, read by the executor and by the planner's
// kernel model alike. Device memory goes through the device backend (device.h: cuBLAS);
// 2-byte types through the low-precision GEMM (oneDNN, which sizes its own parallel
// regions by gemmThreads()) or, without one, converted to f32 for the BLAS.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "einrt/half.h"
#include "einrt/program/parallel_for.h"

namespace einrt::program {

struct GemmCall {
  bool transA = false, transB = false;
  int64_t m = 1, n = 1, k = 1, lda = 1, ldb = 1, ldc = 1;
  int64_t batch = 1, strideA = 0, strideB = 0, strideC = 0;
};

// One whole call on the calling thread, through the BLAS (the f32 fallback of 2-byte types
// included). The building block of HostGemm's BLAS items, and of tests.
void hostGemm(const GemmCall& g, const float* A, const float* B, float* C, float alpha, float beta);
void hostGemm(const GemmCall& g, const double* A, const double* B, double* C, double alpha, double beta);
// 2-byte storage, f32 accumulation, the result rounded once: through the program's
// low-precision GEMM (lowPrecisionGemm(), oneDNN where the program was built with it),
// else converted to f32 and multiplied by the BLAS.
void hostGemm(const GemmCall& g, const bf16* A, const bf16* B, bf16* C, float alpha, float beta);
void hostGemm(const GemmCall& g, const f16* A, const f16* B, f16* C, float alpha, float beta);
// A widening contraction's call (SPEC 8: `cast: f32` on a contraction): 2-byte operands,
// f32 accumulation, the f32 result never rounded to the operands' type; the same two ways.
void hostGemm(const GemmCall& g, const bf16* A, const bf16* B, float* C, float alpha, float beta);
void hostGemm(const GemmCall& g, const f16* A, const f16* B, float* C, float alpha, float beta);

// ---- the split among threads --------------------------------------------------------------

enum class GemmPath {
  Blas,       // items of rows (or columns) of whole batch entries, each one BLAS call
  Primitive,  // tiles of up to kPrimitiveRows x kPrimitiveCols of C, each one primitive call
};

// Tiles of the primitive path: rows of C (the kernel's columns) and columns of C (its
// vectorized dimension), the block sizes the Einsum Trees paper's primitives use (its M
// up to 128, N up to 64), measured on this project's grid (bench/RESULTS.md, issue 29).
inline constexpr int64_t kPrimitiveRows = 64;
inline constexpr int64_t kPrimitiveCols = 64;
// Up to this many columns a call keeps them in one tile (one kernel per row band).
inline constexpr int64_t kPrimitiveWideCols = 128;
// Tiles whose columns are not a multiple of this many elements (a vector of 8 floats) run
// as the next multiple into a scratch tile: LIBXSMM's kernels for the remainder run at
// 0.3-0.6 of the rate of the rounded-up width (3000x30x64: 30 GFLOP/s, 3000x32x64: 77;
// bench/RESULTS.md, "Ragged columns").
inline constexpr int64_t kPrimitiveColAlign = 8;
// B's packed panels, all columns, up to this many elements (256 KiB of f32) are packed at
// once (GemmSchedule::packAll).
inline constexpr int64_t kPackAllElements = 64 * 1024;

struct GemmSchedule {
  GemmPath path = GemmPath::Blas;
  // Primitive path with a transposed B (LIBXSMM cannot read one), or one whose rows are not
  // contiguous within a tile: each thread copies (transposes) the k x colTile panel of B a
  // column of tiles needs into a buffer once and runs the column's row tiles on it; items
  // then go column of tiles by column of tiles.
  bool packB = false;
  // packB where B's panels, all of them, fit in a core's cache (k x the padded columns up to
  // kPackAllElements): each thread packs them all once and runs the items row of tiles by
  // row of tiles, reading each A tile once and writing C's rows whole. Column by column,
  // tt's last step (921600x384x32: six columns of tiles) streamed its 118 MB A six times
  // and wrote C in 256-byte pieces a row apart: 35 GFLOP/s against the BLAS's 66.
  bool packAll = false;
  // Primitive path whose tiles' columns (colTile or the last tile's) are not multiples of
  // kPrimitiveColAlign: B is packed (packB) with its panels' columns zero-padded to the
  // multiple, and such a tile is computed that wide into a scratch tile whose first
  // columns are then stored (or added) into C.
  bool padCols = false;
  int64_t rowTile = 1, colTile = 1;    // C rows and columns per item (edges smaller)
  int64_t rowTiles = 1, colTiles = 1;  // per batch entry
  int64_t items = 1;                   // batch * rowTiles * colTiles, in that order (packB
                                       // without packAll: batch * colTiles * rowTiles)
  int threads = 1;                     // threads the items are split among (<= items)
};

// The path a plan chose for a node's calls (SPEC's plan key `gemm_path`): the planner's
// kernel model prices every call on both paths from the grids einrt-calibrate measured on
// the machine, and the plan records the faster, which the program then runs. Which path
// wins depends on the machine: with AVX-512 LIBXSMM's tiles beat OpenBLAS on calls the
// AVX2 machine the rule below was drawn on ran faster on the BLAS, and the other way round
// (tt's last step 921600x384x32: BLAS 66 against 35 GFLOP/s; fctn's last step
// 24000x60x512: LIBXSMM 149 against 96; bench/RESULTS.md). Rule: no plan's choice (a plan
// made without a calibrated machine file): scheduleGemm's own rule decides.
enum class GemmPlanned { Rule, Blas, Primitive };
// The plan file's names of a chosen path ("blas", "primitive"; Rule has none), and back
// (nullopt for any other text).
const char* gemmPlannedName(GemmPlanned p);
std::optional<GemmPlanned> gemmPlannedFromName(const std::string& name);

// The one rule: the path and the items of call `g` on `threads` threads, for element type
// `t`, where a GEMM primitive is (`primitive`) or is not available; `planned` overrides the
// rule where the path it names can run (the primitive for f32 and f64 where one is).
GemmSchedule scheduleGemm(const GemmCall& g, DType t, int threads, bool primitive,
                          GemmPlanned planned = GemmPlanned::Rule);
// The items of `g` on `path` (scheduleGemm's split once it has chosen; bench/gemm_paths
// measures both paths on one shape with it).
GemmSchedule splitGemm(const GemmCall& g, GemmPath path, int threads);
// The columns of the last column tile of a call of `n` columns (schedule s).
inline int64_t lastTileCols(const GemmSchedule& s, int64_t n) { return n - (s.colTiles - 1) * s.colTile; }
// The columns a primitive tile of `cols` columns is computed with (schedule s).
inline int64_t paddedCols(const GemmSchedule& s, int64_t cols) {
  return s.padCols ? (cols + kPrimitiveColAlign - 1) / kPrimitiveColAlign * kPrimitiveColAlign : cols;
}

// A GEMM primitive a program may provide for the tiles of the primitive path:
// prepare() returns a kernel computing one tile, row-major C (rows x cols, leading
// dimension ldc) = op(A) (rows x k) * B (k x cols, never transposed: HostGemm packs a
// transposed one) with alpha 1, overwriting C or (beta1) adding to it — or null where it has none for that shape, whose tiles then go through
// the BLAS. Kernels are prepared once per node and shape and run from any thread.
struct GemmPrimitive {
  const char* name = "";
  void* (*prepare)(DType t, int64_t rows, int64_t cols, int64_t k, int64_t lda, int64_t ldb, int64_t ldc, bool transA,
                   bool beta1) = nullptr;
  void (*run)(DType t, void* kernel, const void* A, const void* B, void* C) = nullptr;
};
// Registers the process's primitive (null: none); the emitted program registers LIBXSMM's
// before it runs, where it was built with einrt::xsmm.
void setGemmPrimitive(const GemmPrimitive* primitive);
const GemmPrimitive* gemmPrimitive();

// A call prepared once for a node's blocks (its schedule and, on the primitive path, its
// kernels) and run for every kernel call of the node: C = alpha op(A) op(B), or C +=
// with `accumulate`. f32 and f64; 2-byte types run their whole call at once (above).
template <class T>
class HostGemm {
 public:
  HostGemm() = default;
  HostGemm(const GemmCall& g, double alpha, int threads, ParallelForFn parallelFor,
           GemmPlanned planned = GemmPlanned::Rule);
  // On a given schedule (its primitive path needs a registered primitive).
  HostGemm(const GemmCall& g, double alpha, ParallelForFn parallelFor, const GemmSchedule& schedule);
  void run(const T* A, const T* B, T* C, bool accumulate) const;
  const GemmSchedule& schedule() const { return schedule_; }

 private:
  void runItems(int64_t begin, int64_t end, const T* A, const T* B, T* C, bool accumulate) const;
  GemmCall call_;
  double alpha_ = 1.0;
  ParallelForFn parallelFor_ = nullptr;
  GemmSchedule schedule_;
  // Primitive kernels by [overwrite, accumulate][full row tile?][full column tile?]; null
  // where the primitive has none (that tile goes through the BLAS). A padded tile's kernel
  // overwrites its scratch tile in both slots.
  void* kernels_[2][2][2] = {};
};

// What ran the f32/f64 host GEMMs so far: "blas", or "libxsmm+blas" where the primitive
// ran some tiles (its name first); for the program's report.
std::string hostGemmPath();

// A GEMM over 2-byte storage that a program may provide (the emitted program registers
// oneDNN's, einrt/program/dnnl_gemm.h, when its build found oneDNN); it returns false for
// a call it does not take, which then goes the f32 way. A and B are of `dtype`, C of
// `resultType` (dtype, or f32 for a widening contraction).
using LowPrecisionGemmFn = bool (*)(const GemmCall& g, DType dtype, DType resultType, const void* A, const void* B, void* C,
                                    float alpha, float beta);
void setLowPrecisionGemm(LowPrecisionGemmFn fn, const char* name);
// What ran the 2-byte GEMMs so far: "" (none ran), or the provider's name, "f32-blas" (the
// fallback), or both joined by '+'; for the program's report.
std::string lowPrecisionGemmPath();

// The rank's threads for GEMMs (--threads): HostGemm's items are split among them, the
// BLAS's own threads are set to one (where the BLAS lets a program set them: OpenBLAS,
// BLIS through their own calls, found at link time), and the low-precision provider
// sizes its parallel regions by gemmThreads().
void setGemmThreads(int threads);
int gemmThreads();

}  // namespace einrt::program
