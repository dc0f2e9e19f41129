// The kernel model (issue 25, docs/cost-model.md "The kernel model"): what one kernel call
// costs on a calibrated machine, per kernel class the executor runs, from the machine
// file's `kernel_model:` section that einrt-calibrate measures through einrt's own kernels:
//
//   gemm_primitive: libxsmm                    optional: the programs' GEMM primitive
//                                               (einrt's scheduleGemm sends small and
//                                               skinny calls to it), with
//   primitive_flops_f32 / _f64: [...]           the grid below on the primitive's tiles
//   gemm_sizes: [1, 8, 32, 128, 512, 2048]     the grid's m, n and k
//   gemm_flops_f32: [...]                       FLOP/s of one GEMM call on the BLAS at each
//   gemm_flops_f64 / _bf16 / _f16: [...]        (m, n, k), m slowest, k fastest
//   gemm_at_sizes, gemm_at_flops_f32 / _f64,    optional: coarser grids of calls with A
//   primitive_at_flops_f32 / _f64,              transposed (both paths) and B transposed
//   gemm_bt_flops_f32 / _f64                    (the BLAS), read as ratios to the main grid
//   permute_sizes: [E, ...]                     einrt's permutation of blocks of E elements
//   permute_bandwidth: [B, ...]                 (in cache, out of cache): a transpose's bytes
//   permute_tile: [s, ...]                      read and written per second and seconds per
//   permute_rows_bandwidth: [B, ...]            tile; a copy of rows' likewise per row;
//   permute_run: [s, ...]                       interpolated in log E between the sizes
//   elementwise_f32: {bandwidth: B, reduce_bandwidth: B, [stream_bandwidth: B,] point: s, reduce_point: s,
//                     agg_max: s, agg_min: s, run: s, exp: s, log: s, ..., div: s}
//   step: s                                     optional: the executor's own work per node
//                                               and rank around the kernels (0 when
//                                               absent: files of earlier einrt-calibrate)
//   cache_bytes: B                              optional: the last-level cache per rank (0
//                                               when absent: every byte from memory)
//   stream_bytes: B                             optional: elementwise calls whose output is
//                                               larger stream it (einrt's streamBytes(),
//                                               streaming_stores.h), at stream_bandwidth
//   elementwise_f64 / _bf16 / _f16: {...}       the elementwise kernel out of cache (its
//                                               copy's bandwidth, its reduction's read
//                                               bandwidth; stream_bandwidth, optional: the
//                                               copy of an output over stream_bytes, streamed)
//                                               and in cache, where arithmetic
//                                               bounds it: seconds per point of a copy and
//                                               of a reduction (and what max and min
//                                               aggregations add), per inner run of the loop
//                                               nest (einrt's), and what each scalar
//                                               function (the planner's one function
//                                               table) and a division add per point
//                                               (sin and cos may be absent: files of
//                                               earlier einrt-calibrate; priced as exp)
//
// A GEMM call of (m, n, k) runs at the grid's rate interpolated linearly in log m, log n,
// log k between grid points (log of the rate; beyond the grid the rate of its edge). Every
// key is required once the section is there; a file without it gives the coarse model
// (time_model.h).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <einrt/types.h>

#include "planner/graph/document.h"

namespace eindecomp {

// The per-element costs of one element type.
struct ElementwiseRates {
  double bandwidth = 0;        // bytes read + written per s, einrt's elementwise copy
  double reduceBandwidth = 0;  // bytes read per s, a reduction over contiguous rows
  double streamBandwidth = 0;  // bytes read + written per s, the copy of an output over
                               // stream_bytes, streamed (0: not measured, `bandwidth` then)
  double pointSeconds = 0;     // per point in cache, a copy
  double reducePointSeconds = 0;  // per point in cache, a reduction
  double aggMaxSeconds = 0, aggMinSeconds = 0;  // per point, what a max/min aggregation adds
  double runSeconds = 0;       // per inner run of the loop nest
  std::vector<double> functionSeconds;  // per scalar function (table order), per point
  double divSeconds = 0;       // a division, per point
};

struct KernelModel {
  std::string gemmPrimitive;  // empty: the programs have none (every GEMM goes to the BLAS)
  std::vector<int64_t> gemmSizes;
  std::array<std::vector<double>, 4> gemmFlops;  // indexed by einrt::DType: on the BLAS
  std::array<std::vector<double>, 4> primitiveFlops;  // on the primitive's tiles (f32, f64)
  // Calls with A transposed: on a coarser grid of sizes (a subset of gemmSizes), the log of
  // their rate over the main grid's at the same point, per path (BLAS, primitive) and type
  // (f32, f64). Empty: not measured (such calls then keep einrt's rule).
  std::vector<int64_t> transposedASizes;
  std::array<std::array<std::vector<double>, 2>, 4> transposedALogRatio;
  // Calls with B transposed on the BLAS, likewise on transposedASizes (the primitive packs
  // a transposed B first, priced as a permutation). Empty: not measured (files of earlier
  // einrt-calibrate: such calls at the main grid's rate).
  std::array<std::vector<double>, 4> transposedBLogRatio;
  std::vector<int64_t> permuteSizes;
  std::vector<double> permuteBandwidth, permuteTileSeconds, permuteRowsBandwidth, permuteRunSeconds;
  std::array<ElementwiseRates, 4> elementwise;    // indexed by einrt::DType
  double stepSeconds = 0;                         // per node and rank, the executor's own
  double cacheBytes = 0;                          // last-level cache per rank (0: unknown)
  double streamBytes = 0;                         // outputs above it stream (0: not recorded)
  // A GEMM call whose C has more elements than `spillFrom` (the grid's largest, 0: not
  // measured) writes it beyond the cache: s per element of C on top of the grid's rate,
  // per type (f32, f64) and path (BLAS, primitive).
  int64_t spillFrom = 0;
  std::array<std::array<double, 2>, 4> spillSeconds{};

  // FLOP/s of one GEMM call of this shape on the BLAS or (`primitive`) on the primitive's
  // tiles (the path's grid interpolated).
  // With `transA` (`transB` on the BLAS), the main grid's rate scaled by the A^T (B^T)
  // grid's ratio (interpolated).
  double gemmFlopsPerSecond(einrt::DType t, int64_t m, int64_t n, int64_t k, bool primitive = false, bool transA = false,
                            bool transB = false) const;
  bool timesTransposedA(einrt::DType t) const { return !transposedALogRatio[static_cast<std::size_t>(t)][0].empty(); }
  const ElementwiseRates& rates(einrt::DType t) const { return elementwise[static_cast<std::size_t>(t)]; }

  // The permutation's figures for a block of `elements` (interpolated between the sizes).
  struct PermuteRates {
    double bandwidth, tileSeconds, rowsBandwidth, runSeconds;
  };
  PermuteRates permuteRates(int64_t elements) const;
};

// The machine file's `kernel_model:` field; InputError (exit 2) naming the
// line and field of anything missing or malformed.
KernelModel parseKernelModel(const Document& doc, const DocField& section);

}  // namespace eindecomp
