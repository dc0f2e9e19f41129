#include "planner/cost/time_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>

#include <einrt/program/gemm.h>
#include <einrt/model/convolution_call.h>
#include <einrt/program/loop_nest.h>
#include <einrt/program/permute.h>
#include <einrt/program/streaming_stores.h>

#include "planner/cost/checked_math.h"
#include "planner/cost/cost_model.h"
#include "planner/cost/residency.h"
#include "planner/fusion/fusion.h"
#include "planner/graph/tensor_types.h"
#include "planner/graph/expr.h"
#include "planner/graph/scalar_functions.h"
#include "planner/paths/gemm_mapping.h"
#include "planner/graph/units.h"

namespace eindecomp {

namespace {

int64_t toPicoseconds(double seconds) {
  const double ps = std::llround(seconds * 1e12);
  if (!(ps < 9.2e18)) throwCostOverflow("the estimated time in picoseconds");
  return static_cast<int64_t>(ps);
}

double linkSeconds(const LinkLoad& load, double latency, double bandwidth, int64_t elementBytes) {
  if (load.busiestElements == 0) return 0;
  return latency * static_cast<double>(load.busiestMessages) +
         static_cast<double>(load.busiestElements) * static_cast<double>(elementBytes) / bandwidth;
}

// One kernel call's blocks: the extent of every label, the points it visits and the
// elements of its operand and output blocks.
struct CallShape {
  std::vector<int64_t> extent;
  double points = 1, nX = 0, nY = 0, nZ = 0;
  bool reduces = false;  // some summed label has extent > 1 in the call
  double runs = 1;       // inner runs of the elementwise kernel's loop nest (einrt's)
  std::optional<einrt::program::LoopNest> nest;  // that nest (absent past einrt's loops)
};

CallShape callShape(const NodeSpace& space, const Parts& parts) {
  CallShape c;
  c.extent = einrt::model::blockExtent(space.sizes, parts);
  for (int64_t e : c.extent) c.points *= static_cast<double>(e);
  auto elements = [&](const std::vector<int>& dims) {
    double e = 1;
    for (int d : dims) e *= static_cast<double>(c.extent[static_cast<std::size_t>(d)]);
    return e;
  };
  auto operand = [&](std::size_t k) {  // a tapped or strided operand's block spans its halo and rows between too
    return space.reshaped(k) ? static_cast<double>(einrt::model::operandGrid(space, parts, k).blockElements())
                           : elements(space.operandLabels[k]);
  };
  c.nX = operand(0);
  if (space.operandLabels.size() > 1) c.nY = operand(1);
  c.nZ = elements(space.outputLabels);
  for (int d : space.aggregatedDims) c.reduces = c.reduces || c.extent[static_cast<std::size_t>(d)] > 1;
  if (c.extent.size() <= static_cast<std::size_t>(einrt::program::kMaxLoops)) {
    c.nest = einrt::model::callLoopNest(space, c.extent);
    // A spread copy visits only the rows it reads (after filling its output block).
    if (space.spreadOut(0)) c.points = static_cast<double>(c.nest->points);
    if (c.nest->depth > 0) c.runs = c.points / static_cast<double>(c.nest->extent[c.nest->depth - 1]);
  }
  return c;
}

// Whether einrt streams an elementwise call's output (its rule, streaming_stores.h: an
// output over the file's stream_bytes, written once, in contiguous runs) and the file
// prices it (stream_bandwidth measured).
bool streamedCall(const KernelModel& k, const ElementwiseRates& r, const CallShape& c, double elementBytes) {
  const auto bytes = static_cast<int64_t>(elementBytes);
  return !c.reduces && r.streamBandwidth > 0 && k.streamBytes > 0 && c.nest && c.nest->depth > 0 &&
         einrt::program::streamsCall(*c.nest, bytes, static_cast<int64_t>(k.streamBytes), false) &&
         einrt::program::streamsRun(c.nest->extent[c.nest->depth - 1], c.nest->strideZ[c.nest->depth - 1], bytes);
}

// The bandwidth an elementwise call moves its bytes at: the streamed copy's where einrt
// streams the output, else the plain copy's, or the reduction's read bandwidth.
double elementwiseBandwidth(const KernelModel& k, const ElementwiseRates& r, const CallShape& c, double elementBytes) {
  if (streamedCall(k, r, c, elementBytes)) return r.streamBandwidth;
  return c.reduces ? r.reduceBandwidth : r.bandwidth;
}

double expressionSeconds(const ElementwiseRates& r, const Expr& e) {
  double s = 0;
  if (e.kind == Expr::Kind::Call) s += r.functionSeconds[static_cast<std::size_t>(e.function)];
  if (e.kind == Expr::Kind::Div) s += r.divSeconds;
  for (const Expr& a : e.args) s += expressionSeconds(r, a);
  return s;
}

// The seconds per point of a node's elementwise kernel in cache: the kernel's own (a copy
// or a reduction) and its join's and aggregation's functions.
double perPointSeconds(const ElementwiseRates& r, const Node& n, bool reduces) {
  double s = (reduces ? r.reducePointSeconds : r.pointSeconds) + expressionSeconds(r, n.join);
  if (reduces && n.agg == Reduce::Max) s += r.aggMaxSeconds;
  if (reduces && n.agg == Reduce::Min) s += r.aggMinSeconds;
  return s;
}

// The time a call's arithmetic takes in cache: its points and its inner runs.
double computeSeconds(const ElementwiseRates& r, const Node& n, const CallShape& c) {
  return c.points * perPointSeconds(r, n, c.reduces) + c.runs * r.runSeconds;
}

struct GemmShape {
  GemmMapping mapping;
  einrt::program::GemmCall call;  // einrt's call (gemmCallPlanOf), priced as one call of all
                                  // its batch entries: the loops around it times its batch
  // The bytes of one result element where they are not the operands' (a widening
  // contraction's f32 result of bf16 operands, tensor_types.h); 0: the operands'.
  double resultBytes = 0;
};

std::optional<GemmShape> gemmShape(const Node& n, const NodeSpace& space, const CallShape& c) {
  if (!runsAsGemm(n)) return std::nullopt;
  std::optional<GemmMapping> g = mapContractionToGemm(n, c.extent);
  if (!g) return std::nullopt;
  const einrt::model::GemmCallPlan plan = einrt::model::gemmCallPlan(gemmSpecOf(*g, space.labels), space, c.extent);
  einrt::program::GemmCall call = plan.call;
  call.batch *= plan.outerEntries;
  return GemmShape{*g, call, isWideningContraction(n) ? static_cast<double>(dtypeSize(*n.castTo)) : 0.0};
}

// How einrt runs the call on one thread of a rank on the path `planned` (scheduleGemm).
einrt::program::GemmSchedule gemmSchedule(const KernelModel& k, const GemmShape& g, DType dtype,
                                          einrt::program::GemmPlanned planned) {
  return einrt::program::scheduleGemm(g.call, dtype, 1, !k.gemmPrimitive.empty(), planned);
}

// A permutation of a block stored with `extent` into `order` (or back, `scatter`), as
// einrt's permutation walks it: a transpose in tiles or a copy of rows.
double permuteSeconds(const KernelModel& k, const std::vector<int64_t>& extent, const std::vector<int>& order, bool scatter,
                      double elementBytes) {
  if (order.empty() || extent.size() > static_cast<std::size_t>(einrt::program::kMaxLoops)) return 0;
  const einrt::program::Permutation p = einrt::program::reorder(extent, order, scatter);
  const einrt::program::PermutationWork w = einrt::program::permutationWork(p, static_cast<int64_t>(elementBytes));
  const double bytes = 2.0 * static_cast<double>(p.elements) * elementBytes + static_cast<double>(w.wastedBytes);
  const KernelModel::PermuteRates r = k.permuteRates(p.elements);
  return w.transposes ? bytes / r.bandwidth + static_cast<double>(w.tiles) * r.tileSeconds
                      : bytes / r.rowsBandwidth + static_cast<double>(w.runs) * r.runSeconds;
}

std::vector<int64_t> extentsOf(const std::vector<int>& dims, const CallShape& c) {
  std::vector<int64_t> e;
  for (int d : dims) e.push_back(c.extent[static_cast<std::size_t>(d)]);
  return e;
}

// The columns a call computes and the grid's rate for it. Tiles padded to whole vectors
// (einrt's padCols) compute their padded columns. The primitive cuts calls wider than
// kPrimitiveWideCols into 64-wide tiles, a regime the grid's narrower points (one tile as
// wide as the call) do not share, so such calls are read among the wider points only: tt's
// last step at p = 2 cut by d, 921600x192x32, was read at 56 GFLOP/s (between the one-tile
// 128 point and the 512 one) and cut by c, 460800x384x32, at 40, and both ran alike.
struct GemmRate {
  int64_t width;
  double flopsPerSecond;
};

GemmRate gemmRate(const KernelModel& k, const einrt::program::GemmCall& c, const einrt::program::GemmSchedule& sched,
                  DType dtype) {
  const bool primitive = sched.path == einrt::program::GemmPath::Primitive;
  const int64_t lastCols = einrt::program::lastTileCols(sched, c.n);
  int64_t width = (sched.colTiles - 1) * einrt::program::paddedCols(sched, sched.colTile) +
                  einrt::program::paddedCols(sched, lastCols);
  // The BLAS computes C's rows in whole vectors as well (OpenBLAS's AVX-512 kernels: 16
  // floats): 50x50x25 costs what 50x64x25 does, 3000x30x64 more than 3000x32x64, where the
  // grid's points (powers of two) interpolate 50 at 1.5x the rate it runs at
  // (bench/RESULTS.md, "Microsecond nodes"). Rounded to a cache line's elements from one
  // line on, where the grid's points are whole lines; narrower calls read the grid as is.
  // (f32 and f64: the 2-byte types run through oneDNN, not measured this way.)
  if (!primitive && dtypeSize(dtype) >= 4) {
    const int64_t line = 64 / static_cast<int64_t>(dtypeSize(dtype));
    if (width >= line) width = (width + line - 1) / line * line;
  }
  int64_t readAt = width;
  if (primitive && width > einrt::program::kPrimitiveWideCols)
    for (int64_t size : k.gemmSizes)
      if (size > einrt::program::kPrimitiveWideCols) {
        readAt = std::max(readAt, size);
        break;
      }
  return {width, k.gemmFlopsPerSecond(dtype, c.m, readAt, c.k, primitive, c.transA, c.transB)};
}

// The seconds per element of C a call on `sched` with `results` elements of it pays for a
// C larger than the grid's (0 within it; see gemmSecondsOn).
double spillPerResult(const KernelModel& k, const einrt::program::GemmSchedule& sched, DType dtype, double results) {
  const bool primitive = sched.path == einrt::program::GemmPath::Primitive;
  return k.spillFrom > 0 && results > static_cast<double>(k.spillFrom)
             ? k.spillSeconds[static_cast<std::size_t>(dtype)][primitive ? 1 : 0]
             : 0;
}

// Whether such a call pays its C from memory where the plan finds it there (residency.h):
// on the primitive's tiles, where it pays no spill. The BLAS's floor moves every byte from
// memory already.
bool paysResultFromMemory(const KernelModel& k, const einrt::program::GemmSchedule& sched, DType dtype, double results) {
  return sched.path == einrt::program::GemmPath::Primitive && spillPerResult(k, sched, dtype, results) == 0;
}

// One GEMM call: its FLOPs at the grid's rate for its shape (measured through einrt's
// schedule, so the primitive's tiles where it takes them; the grid's tall sizes are
// measured with operands that outgrow the caches, so a tall call's rate includes streaming
// them) and moving its operands and result once; on the primitive's path a packed B is
// transposed or copied panel by panel first (each element once).
double gemmSecondsOn(const KernelModel& k, const GemmShape& g, DType dtype, const einrt::program::GemmSchedule& sched,
                     bool resultFromMemory = false) {
  const einrt::program::GemmCall& c = g.call;
  const double batch = static_cast<double>(c.batch), m = static_cast<double>(c.m), n = static_cast<double>(c.n),
               kk = static_cast<double>(c.k), bytes = static_cast<double>(dtypeSize(dtype));
  const double resultBytes = g.resultBytes > 0 ? g.resultBytes : bytes;
  const bool primitive = sched.path == einrt::program::GemmPath::Primitive;
  const GemmRate rate = gemmRate(k, c, sched, dtype);
  const double compute = batch * 2.0 * m * static_cast<double>(rate.width) * kk / rate.flopsPerSecond;
  // The BLAS packs and streams while it computes: the longer of the two. The primitive's
  // tiles compute from cache and then store, each store of C also reading the line it
  // allocates (the copy bandwidth counts one read and one write per element). Its grid
  // rate already pays for streaming where the grid's shapes outgrow the caches, so only
  // the part of the working set beyond the last-level cache is a floor under its time
  // (a call that would stream faster than the tall grid points compute). Adding that
  // part instead counted it twice: tt's last step (921600x384x32), syn.3 (114688x64x48)
  // and getd.2 (25000x1000x40) run at 38-84 GFLOP/s alone, priced at their grid rates
  // 43.4, 65.2 and 43.8 and at 30.7, 54.6 and 35.7 with the sum (bench/RESULTS.md, "Tall
  // calls").
  // A C larger than the grid measured (whose points keep theirs in cache) costs the
  // machine file's measured time per element on top: tt's last step (921600x384x32) and
  // getd.2 (25000x1000x40) ran at 65 and 56 GFLOP/s, priced at 139.5 and 143.5 without
  // it, and no bandwidth floor explained them: the kernels stall on C's stores
  // (bench/RESULTS.md, "Results beyond the cache").
  const double results = batch * m * n;
  const double spill = results * spillPerResult(k, sched, dtype, results);
  const double stream =
      batch * ((m * kk + kk * n) * bytes + (primitive ? 2 : 1) * m * n * resultBytes) / k.rates(dtype).bandwidth;
  const double workingSet = batch * ((m * kk + kk * n) * bytes + m * n * resultBytes);
  const double fromMemory = workingSet > k.cacheBytes ? 1 - k.cacheBytes / workingSet : 0;
  double seconds = std::max(compute + spill, (primitive ? fromMemory : 1.0) * stream);
  // A C the nodes since its last use pushed out of the caches (residency.h): the tiles'
  // stores read each line of it from memory and write it back, after computing.
  if (resultFromMemory && paysResultFromMemory(k, sched, dtype, results))
    seconds += 2.0 * results * resultBytes / k.rates(dtype).bandwidth;
  if (sched.padCols) {  // the padded tiles' columns stored from their scratch tiles
    const int64_t lastCols = einrt::program::lastTileCols(sched, c.n);
    auto padded = [&](int64_t cols) { return einrt::program::paddedCols(sched, cols) != cols; };
    const int64_t stored = (padded(sched.colTile) ? (sched.colTiles - 1) * sched.colTile : 0) + (padded(lastCols) ? lastCols : 0);
    seconds += batch * permuteSeconds(k, {c.m, stored}, {0, 1}, false, resultBytes);
  }
  if (sched.packB)  // a transpose of B, or a copy of its rows a tile wide
    seconds += batch * (c.transB ? permuteSeconds(k, {c.n, c.k}, {1, 0}, false, bytes)
                                 : permuteSeconds(k, {c.k, sched.colTiles, sched.colTile}, {1, 0, 2}, false, bytes));
  return seconds;
}

// The path the plan runs the call on and its schedule: where the file has grids of both
// paths and the call could take either (f32 and f64 with a primitive), the faster one as
// they price it, recorded in the plan (gemm_path) for the program to follow; else einrt's
// rule. The rule was drawn on one machine and misplaced a third of bench/gemm_paths'
// calls on another by 1.2-2x (bench/RESULTS.md, "The GEMM path from the grids").
struct GemmChoice {
  einrt::program::GemmPlanned planned = einrt::program::GemmPlanned::Rule;
  einrt::program::GemmSchedule schedule;
  double seconds = 0;
};

GemmChoice chooseGemm(const KernelModel& k, const GemmShape& g, DType dtype) {
  using einrt::program::GemmPlanned;
  // A transposed A is priced through the file's A^T grids (its ratio to the main grid);
  // files without them keep einrt's rule for such calls: ffnn's dW1 (1024x2048x1024, A^T)
  // ran at 89 GFLOP/s on the tiles against the 157 the main grid gave its untransposed
  // twin, and syn's last step (84x131072x56, A^T) at 69 on the tiles the rule chose and
  // 108 on the BLAS.
  const bool choice = !k.gemmPrimitive.empty() && (dtype == DType::F32 || dtype == DType::F64) &&
                      (!g.call.transA || k.timesTransposedA(dtype));
  auto on = [&](GemmPlanned p) {
    const einrt::program::GemmSchedule sched = gemmSchedule(k, g, dtype, p);
    return GemmChoice{p, sched, gemmSecondsOn(k, g, dtype, sched)};
  };
  if (!choice) return on(GemmPlanned::Rule);
  GemmChoice blas = on(GemmPlanned::Blas), primitive = on(GemmPlanned::Primitive);
  return primitive.seconds < blas.seconds ? primitive : blas;
}

// The call on the plan's path, or on the faster one where the plan has none (the search,
// explain's candidates).
GemmChoice gemmOnPath(const KernelModel& k, const GemmShape& g, DType dtype, einrt::program::GemmPlanned planned,
                      bool resultFromMemory = false) {
  if (planned == einrt::program::GemmPlanned::Rule) {
    GemmChoice choice = chooseGemm(k, g, dtype);
    if (resultFromMemory) choice.seconds = gemmSecondsOn(k, g, dtype, choice.schedule, true);
    return choice;
  }
  const einrt::program::GemmSchedule sched = gemmSchedule(k, g, dtype, planned);
  return {planned, sched, gemmSecondsOn(k, g, dtype, sched, resultFromMemory)};
}

// The bytes an index call moves (einrt's index kernel, index_kernel.h): it reads every id
// of its block (8 bytes at most), clears its output block, and copies one row per id: a
// gather reads and writes an output row for each, a scatter reads a row of y and adds it
// into the output. Not the table block: rows no id selects are never read.
double indexCallBytes(const CallShape& c, double elementBytes) {
  const double rowsMoved = 2.0 * std::min(c.nY, c.nZ);
  return 8.0 * c.nX + (c.nZ + rowsMoved) * elementBytes;
}

// A convolution's call (einrt/model/convolution_call.h), or nothing.
std::optional<einrt::program::ConvolutionCall> convolutionOf(const Node& n, const NodeSpace& space, const CallShape& c) {
  if (!hasTaps(n) && !hasSteps(n)) return std::nullopt;
  return einrt::model::convolutionCall(space, isContraction(n), c.extent);
}

// A convolution call on oneDNN's primitive: its FLOPs at the GEMM grid's rate for the GEMM
// an im2col would make of it (rows: the batch and output positions, columns: the output
// channels, depth: the input channels times the taps), and the reorders into and out of
// oneDNN's layouts around it (the image, the kernel and the result each read and written
// once, at the elementwise copy's bandwidth).
double convolutionSeconds(const KernelModel& k, const einrt::program::ConvolutionCall& conv, DType dtype, const CallShape& c) {
  int64_t rows = conv.batch, depth = conv.inChannels;
  for (int d = 0; d < conv.spatial; ++d) {
    rows *= conv.out[d];
    depth *= conv.kernel[d];
  }
  const double rate = k.gemmFlopsPerSecond(dtype, rows, conv.outChannels, depth, false, false, false);
  const double bytes = static_cast<double>(dtypeSize(dtype));
  return static_cast<double>(conv.flops()) / rate + 2 * (c.nX + c.nY + c.nZ) * bytes / k.rates(dtype).bandwidth;
}

// The coarse model: one GEMM rate and one memory bandwidth per rank.
double coarseCallSeconds(const Machine& m, const Node& n, const NodeSpace& space, const CallShape& c, int64_t calls, DType dtype) {
  std::optional<double> own;
  if (dtype == DType::F64) own = m.flopsF64PerSecond;
  else if (dtype == DType::BF16) own = m.flopsBf16PerSecond;
  else if (dtype == DType::F16) own = m.flopsF16PerSecond;
  const double flopRate = own ? *own : m.flopsPerSecond;
  if (runsAsGemm(n) || !m.memoryBytesPerSecond || convolutionOf(n, space, c))
    return static_cast<double>(nodeFlops(n) / std::max<int64_t>(calls, 1)) / flopRate;
  if (isIndexNode(n)) return indexCallBytes(c, static_cast<double>(dtypeSize(dtype))) / *m.memoryBytesPerSecond;
  return (c.nX + c.nY + c.nZ) * static_cast<double>(dtypeSize(dtype)) / *m.memoryBytesPerSecond;
}

double callSeconds(const Machine& m, const Node& n, const NodeSpace& space, const Parts& parts, DType dtype,
                   einrt::program::GemmPlanned planned, bool resultFromMemory = false) {
  const CallShape c = callShape(space, parts);
  int64_t calls = 1;
  for (int64_t d : parts) calls *= d;
  if (!m.kernels) return coarseCallSeconds(m, n, space, c, calls, dtype);
  const KernelModel& k = *m.kernels;
  const double bytes = static_cast<double>(dtypeSize(dtype));
  if (isIndexNode(n)) return indexCallBytes(c, bytes) / k.rates(dtype).bandwidth;
  if (const std::optional<std::vector<int>> order = permutationOrder(n))
    return permuteSeconds(k, extentsOf(space.operandLabels[0], c), *order, false, bytes);
  if (const std::optional<GemmShape> g = gemmShape(n, space, c))
    return gemmOnPath(k, *g, dtype, planned, resultFromMemory).seconds + permuteSeconds(k, extentsOf(space.operandLabels[0], c), g->mapping.permX, false, bytes) +
           permuteSeconds(k, extentsOf(space.operandLabels[1], c), g->mapping.permY, false, bytes) +
           permuteSeconds(k, extentsOf(space.outputLabels, c), g->mapping.permZ, true, g->resultBytes > 0 ? g->resultBytes : bytes);
  if (const std::optional<einrt::program::ConvolutionCall> conv = convolutionOf(n, space, c))
    return convolutionSeconds(k, *conv, dtype, c);
  const ElementwiseRates& r = k.rates(dtype);
  return std::max((c.nX + c.nY + c.nZ) * bytes / elementwiseBandwidth(k, r, c, bytes), computeSeconds(r, n, c));
}

// One call of a fused group: every member's arithmetic, and the bytes of each tensor the
// group reads from memory or writes back, once. Added, not overlapped: within a tile the
// members run one after another, so the members that stream from memory and those that
// compute do not run at once (measured: attention's softmax group took the sum).
double fusedCallSeconds(const Machine& m, const Graph& g, const std::vector<Parts>& parts,
                        const einrt::model::ProgramModel& model, const einrt::model::FusedGroupGeometry& group) {
  const ElementwiseRates& r = m.kernels->rates(g.dtype);
  std::set<std::string> members, read;
  for (int i = group.first; i <= group.last; ++i) members.insert(g.nodes[static_cast<std::size_t>(i)].name);
  double seconds = 0, elements = 0;
  for (int i = group.first; i <= group.last; ++i) {
    const Node& n = g.nodes[static_cast<std::size_t>(i)];
    const NodeSpace space = nodeSpace(n);
    const CallShape c = callShape(space, parts[static_cast<std::size_t>(i)]);
    seconds += computeSeconds(r, n, c);
    for (std::size_t k = 0; k < n.inputs.size(); ++k)
      if (!members.count(n.inputs[k]) && read.insert(n.inputs[k]).second) elements += k == 0 ? c.nX : c.nY;
    if (!model.nodes[static_cast<std::size_t>(i)].scratch) elements += c.nZ;
  }
  return seconds + elements * static_cast<double>(dtypeSize(g.dtype)) / r.bandwidth;
}

}  // namespace

int64_t phasePicoseconds(const Machine& m, const Traffic& t, int64_t elementBytes) {
  if (t.elements == 0) return 0;
  return toPicoseconds(linkSeconds(t.intraNode, m.latencySeconds, m.bandwidthBytesPerSecond, elementBytes) +
                       linkSeconds(t.interNode, m.interNodeLatencySeconds, m.interNodeBandwidthBytesPerSecond, elementBytes));
}

int64_t phaseFloorPicoseconds(const Machine& m, const RankFloor& r, int64_t elementBytes, bool onCluster, int64_t ranksPerNode) {
  if (r.elements <= 0) return 0;
  const double bytes = static_cast<double>(r.elements) * static_cast<double>(elementBytes), messages = static_cast<double>(r.messages);
  double seconds = m.latencySeconds * messages + bytes / m.bandwidthBytesPerSecond;
  if (onCluster) {
    const double farBytes = static_cast<double>(r.farElements) * static_cast<double>(elementBytes);
    const int64_t near = r.nearMessages >= 0 ? r.nearMessages : ranksPerNode - 1;
    const double farMessages = std::max(messages - static_cast<double>(near), r.farElements > 0 ? 1.0 : 0.0);
    const double latency = m.interNodeLatencySeconds * farMessages +
                           std::min(m.latencySeconds, m.interNodeLatencySeconds) * (messages - farMessages);
    seconds = latency + farBytes / m.interNodeBandwidthBytesPerSecond +
              (bytes - farBytes) / std::max(m.bandwidthBytesPerSecond, m.interNodeBandwidthBytesPerSecond);
  }
  // Below the price by a rounding's margin: the price adds two links' seconds in floating point.
  return std::max<int64_t>(0, toPicoseconds(seconds * (1 - 1e-9)) - 1);
}

int64_t repartitionFloorPicoseconds(const Machine& m, const RepartitionFloor& f, int64_t elementBytes, bool onCluster,
                                    int64_t ranksPerNode) {
  int64_t floor = std::max(phaseFloorPicoseconds(m, f.reader, elementBytes, onCluster, ranksPerNode),
                           phaseFloorPicoseconds(m, f.holder, elementBytes, onCluster, ranksPerNode));
  if (f.holdingReader) {
    // The rank sends and receives: the latency of both, with the elements of either; of
    // each side's messages, one per other rank of its node may stay there.
    const int64_t messages = f.holdingReader->messages + f.holder.messages;
    const int64_t peers = std::max<int64_t>(0, ranksPerNode - 1);
    const int64_t near = std::min(f.holdingReader->messages, peers) + std::min(f.holder.messages, peers);
    for (RankFloor side : {*f.holdingReader, f.holder}) {
      side.messages = messages;
      side.nearMessages = near;
      floor = std::max(floor, phaseFloorPicoseconds(m, side, elementBytes, onCluster, ranksPerNode));
    }
  }
  return floor;
}

namespace {

// The executor's own step on a rank that runs calls of the node (the kernel model's `step`).
double stepSeconds(const Machine& m, int64_t calls) { return m.kernels && calls > 0 ? m.kernels->stepSeconds : 0; }

// `calls` calls of the node and the executor's step around them, the result where
// `resultFromMemory` says.
int64_t nodePicoseconds(const Machine& m, const Node& n, const NodeSpace& space, const Parts& parts, int64_t calls,
                        DType dtype, einrt::program::GemmPlanned planned, bool resultFromMemory) {
  return toPicoseconds(static_cast<double>(calls) * callSeconds(m, n, space, parts, dtype, planned, resultFromMemory) +
                       stepSeconds(m, calls));
}

}  // namespace

int64_t computePicoseconds(const Machine& m, const Node& n, const NodeSpace& space, const Parts& parts, int64_t calls,
                           DType dtype, einrt::program::GemmPlanned planned) {
  return nodePicoseconds(m, n, space, parts, calls, dtype, planned, false);
}

std::vector<int64_t> planComputePicoseconds(const Machine& m, const Graph& g, const Plan& plan,
                                            const std::vector<int64_t>& busiestCalls, const einrt::model::ProgramModel& model,
                                            std::vector<bool>* resultFromMemory) {
  std::vector<int64_t> ps(g.nodes.size(), 0);
  std::vector<Parts> parts;
  for (const NodePlan& np : plan.nodes) parts.push_back(np.parts);
  // Which results the busiest rank finds in memory (residency.h): the caches keep what the
  // grid's largest C (f32) showed they keep; files without that measurement: all cached.
  // Each node computes in its output's type (SPEC 8; fused groups hold the graph's only),
  // a widening contraction in its operands' (tensor_types.h).
  const std::vector<DType> types = nodeComputeTypes(g), outputTypes = nodeOutputTypes(g);
  std::vector<double> touched;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const CallShape c = callShape(nodeSpace(g.nodes[i]), parts[i]);
    touched.push_back(static_cast<double>(busiestCalls[i]) * ((c.nX + c.nY) * static_cast<double>(dtypeSize(types[i])) +
                                                               c.nZ * static_cast<double>(dtypeSize(outputTypes[i]))));
  }
  const double cacheBytes = m.kernels ? static_cast<double>(m.kernels->spillFrom) * 4.0 : 0.0;
  const std::vector<bool> fromMemory = resultsFromMemory(model.lastReader, touched, cacheBytes);
  if (resultFromMemory) *resultFromMemory = fromMemory;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const int group = m.kernels ? model.nodes[i].group : -1;
    if (group < 0) {
      ps[i] = nodePicoseconds(m, g.nodes[i], nodeSpace(g.nodes[i]), parts[i], busiestCalls[i], types[i],
                              plan.nodes[i].gemmPath, fromMemory[i]);
    } else if (model.groups[static_cast<std::size_t>(group)].first == static_cast<int>(i)) {
      ps[i] = toPicoseconds(static_cast<double>(busiestCalls[i]) *
                                fusedCallSeconds(m, g, parts, model, model.groups[static_cast<std::size_t>(group)]) +
                            stepSeconds(m, busiestCalls[i]));
    }
  }
  return ps;
}

std::vector<int64_t> computeFloorsByNode(const Machine& m, const Graph& g, const std::vector<Parts>& parts) {
  std::vector<int64_t> ps(g.nodes.size(), 0);
  if (m.kernels) return ps;
  const std::vector<DType> types = nodeComputeTypes(g);
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    ps[i] = nodePicoseconds(m, g.nodes[i], nodeSpace(g.nodes[i]), parts[i], 1, types[i], einrt::program::GemmPlanned::Rule, false);
  return ps;
}

einrt::program::GemmPlanned plannedGemmPath(const Machine& m, const Node& n, const NodeSpace& space, const Parts& parts,
                                            DType dtype) {
  if (!m.kernels) return einrt::program::GemmPlanned::Rule;
  const std::optional<GemmShape> g = gemmShape(n, space, callShape(space, parts));
  return g ? chooseGemm(*m.kernels, *g, dtype).planned : einrt::program::GemmPlanned::Rule;
}

std::string describeCallTime(const Machine& m, const Node& n, const NodeSpace& space, const Parts& parts, DType dtype,
                             bool resultFromMemory) {
  const CallShape c = callShape(space, parts);
  const double bytes = static_cast<double>(dtypeSize(dtype));
  const std::string total =
      formatSeconds(callSeconds(m, n, space, parts, dtype, einrt::program::GemmPlanned::Rule, resultFromMemory));
  if (!m.kernels) return total + " (coarse model: the machine file has no kernel_model)";
  const KernelModel& k = *m.kernels;
  if (permutationOrder(n)) return total + ": permutation of " + formatBytes(static_cast<int64_t>(c.nZ * bytes));
  if (isIndexNode(n)) return total + ": " + n.joinName + " moving " + formatBytes(static_cast<int64_t>(indexCallBytes(c, bytes)));
  if (const std::optional<GemmShape> g = gemmShape(n, space, c)) {
    const einrt::program::GemmCall& call = g->call;
    const einrt::program::GemmSchedule sched = chooseGemm(k, *g, dtype).schedule;
    const double rate = gemmRate(k, call, sched, dtype).flopsPerSecond;
    std::string s = total + ": GEMM " + std::to_string(call.m) + "x" + std::to_string(call.n) + "x" + std::to_string(call.k);
    if (call.batch > 1) s += " x" + std::to_string(call.batch);
    char r[96];
    if (sched.path == einrt::program::GemmPath::Primitive)
      std::snprintf(r, sizeof r, " on %s tiles %lldx%lld%s at %.1f GFLOP/s", k.gemmPrimitive.c_str(),
                    static_cast<long long>(sched.rowTile), static_cast<long long>(sched.colTile),
                    sched.packB ? " (B packed)" : "", rate * 1e-9);
    else
      std::snprintf(r, sizeof r, " on the BLAS at %.1f GFLOP/s", rate * 1e-9);
    s += r;
    if (g->mapping.permutedElements > 0)
      s += " + permutations " + formatBytes(static_cast<int64_t>(static_cast<double>(g->mapping.permutedElements) * bytes));
    if (resultFromMemory && paysResultFromMemory(k, sched, dtype, static_cast<double>(call.batch * call.m * call.n)))
      s += " + its result from memory (" + formatBytes(static_cast<int64_t>(c.nZ * (g->resultBytes > 0 ? g->resultBytes : bytes))) +
           " read and written back)";
    return s;
  }
  const ElementwiseRates& r = k.rates(dtype);
  const double bandwidth = elementwiseBandwidth(k, r, c, bytes);
  return total + ": " + (c.reduces ? "reduction, the longer of " : "elementwise, the longer of ") +
         formatBytes(static_cast<int64_t>((c.nX + c.nY + c.nZ) * bytes)) +
         (streamedCall(k, r, c, bytes) ? " moved, output streamed (" : " moved (") +
         formatSeconds((c.nX + c.nY + c.nZ) * bytes / bandwidth) + ") and " +
         std::to_string(static_cast<int64_t>(c.points)) + " points computed (" + formatSeconds(computeSeconds(r, n, c)) + ")";
}

}  // namespace eindecomp
