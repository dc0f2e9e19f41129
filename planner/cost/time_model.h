// The estimate of time (SPEC 3 `--machine`, `--objective time`), formula by formula. A
// node runs as phases, one after another (as the emitted program runs them): the
// repartition of each operand another node produced, its kernel calls, the aggregation of
// partial results. Its time is the sum of
//   phase(t)  = link(intra-node load, latency, bandwidth)
//             + link(inter-node load, inter_node_latency, inter_node_bandwidth)
//   link(l, a, b) = a * l.busiestMessages + l.busiestElements * dtype bytes / b
//               (0 when nothing crosses that link; on one node everything is intra-node)
//   compute   = calls on the busiest rank * the time of one call,
// and a plan's time is the sum over its nodes. One call's time comes from
//   - the kernel model (kernel_model.h) where the machine file has one, by kernel class:
//       GEMM          batch * 2mnk / rate(m, n, k) interpolated on the calibrated grid
//                     (n as computed: the BLAS's in whole cache lines, the primitive's
//                     padded tiles; A^T and B^T calls scaled by their grids' ratios)
//                     + the permutations into and out of GEMM layout, each as below;
//                     on the primitive, a C the plan's earlier nodes pushed out of the
//                     caches (residency.h) read and written back at the copy bandwidth;
//       permutation   as einrt's permutation walks it (permutationWork): a transpose,
//                     bytes read and written / permute_bandwidth + tiles * permute_tile,
//                     or a copy of rows, bytes / permute_rows_bandwidth + rows * permute_run;
//       elementwise,  the longer of moving its blocks, (|X| + |Y| + |Z|) * dtype bytes /
//       reduction     bandwidth (reduce_bandwidth when a label is summed in the call),
//                     and computing its points, points * (the kernel's seconds per point
//                     in cache + those of every scalar function and division in the join,
//                     and of a max/min aggregation);
//     and a fused group (planner/fusion) as the one pass it runs: moving the tensors it
//     reads from and writes to memory (each once) plus computing its members' points (its
//     members run one after another within a tile), charged to its first member, where
//     the program reports the group's time;
//   - else the coarse model: FLOPs / flops (of the element type) for GEMM kernels,
//     (|X| + |Y| + |Z| blocks) bytes / memory_bandwidth for the others.
// The search prices elementwise nodes one by one and every C as cached (fusion and
// residency are decided from the finished plan); reports and the comparisons between
// finished plans price them fused and where they are. Every term
// is rounded to whole picoseconds, so sums are exact.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <einrt/model/program_model.h>
#include <einrt/program/gemm.h>

#include "planner/cost/machine.h"
#include "planner/cost/traffic.h"
#include "planner/graph/graph.h"
#include "planner/partition/partition.h"
#include "planner/placement/plan.h"

namespace eindecomp {

int64_t phasePicoseconds(const Machine& m, const Traffic& t, int64_t elementBytes);
// A floor under phasePicoseconds for a phase in which one rank sends or receives at
// least `r.elements` elements (`r.farElements` of them across nodes) in at least
// `r.messages` messages over its links together (`onCluster`: the ranks span nodes, of
// `ranksPerNode` each; else all is on one link): the far elements on the inter-node link,
// the rest on the cheaper one, and as many messages on the link of lower latency as it
// can carry (a rank has ranksPerNode - 1 partners on its node). Used to skip pricing
// what cannot win, never as a price.
int64_t phaseFloorPicoseconds(const Machine& m, const RankFloor& r, int64_t elementBytes, bool onCluster, int64_t ranksPerNode);
// The floor under a repartition's phase (traffic.h repartitionFloor): its reader's, its
// holder's, and where some rank must do both, that rank's messages both ways with either
// side's elements. The one floor of a repartition the search and the plan bounds read.
int64_t repartitionFloorPicoseconds(const Machine& m, const RepartitionFloor& f, int64_t elementBytes, bool onCluster,
                                    int64_t ranksPerNode);

// The time of `calls` kernel calls of node `n` under partition `parts` (the busiest
// rank's), unfused.
// A GEMM node's calls on path `planned` (Rule: the faster one where the model can tell).
int64_t computePicoseconds(const Machine& m, const Node& n, const NodeSpace& space, const Parts& parts, int64_t calls,
                           DType dtype, einrt::program::GemmPlanned planned = einrt::program::GemmPlanned::Rule);

// The same for every node of a plan, fused groups priced as one pass (at their first
// member, 0 for the others), each GEMM node on the plan's path, results where they are
// (residency.h; `resultFromMemory`, where given, receives which come from memory).
// `busiestCalls` per node; `model`: the plan's program model (fused groups as steps).
std::vector<int64_t> planComputePicoseconds(const Machine& m, const Graph& g, const Plan& plan,
                                            const std::vector<int64_t>& busiestCalls, const einrt::model::ProgramModel& model,
                                            std::vector<bool>* resultFromMemory = nullptr);

// A floor under planComputePicoseconds node by node, for any placement that runs each call
// on a rank of its own (one call on the busiest rank): without a kernel model a call costs
// the same wherever it runs and whatever runs beside it (the coarse model prices no fused
// group and no cache), so one call's time; with one, fused groups (chosen from the
// placement) are priced together, so 0.
std::vector<int64_t> computeFloorsByNode(const Machine& m, const Graph& g, const std::vector<Parts>& parts);

// The GEMM path the kernel model prices node `n`'s calls on under `parts` (the faster of
// the BLAS and the primitive where the machine file has grids of both; Rule where there is
// no choice: not a GEMM, no kernel model, no primitive, 2-byte types). The plan records it
// (gemm_path) and the emitted program runs it.
einrt::program::GemmPlanned plannedGemmPath(const Machine& m, const Node& n, const NodeSpace& space, const Parts& parts,
                                            DType dtype);
// Where one call's time goes, for `einplan explain`: "GEMM 256x256x64 x32 at 41 GFLOP/s
// + permutations 2.0 MiB", "elementwise 8.0 MiB at 30 GB/s + exp 2.1M points"; with
// `resultFromMemory` (the finished plan's residency), what its result from memory adds.
std::string describeCallTime(const Machine& m, const Node& n, const NodeSpace& space, const Parts& parts, DType dtype,
                             bool resultFromMemory = false);

inline double picosecondsToSeconds(int64_t ps) { return static_cast<double>(ps) * 1e-12; }

}  // namespace eindecomp
