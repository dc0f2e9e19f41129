// A machine description for estimated times (SPEC 3 and 5, `--machine FILE`), as
// `einrt-calibrate` writes it or a user types it, in YAML or JSON:
//
//   latency: 2.0e-6            # seconds per message                      (or "2 us")
//   bandwidth: 12.5e9          # bytes/s per rank while every rank exchanges  ("12.5 GB/s")
//   flops: 1.0e13              # GEMM FLOP/s per rank, f32                ("10 TFLOP/s")
//   flops_f64: 5.0e12          # optional: GEMM FLOP/s per rank, f64 (default: flops)
//   memory_bandwidth: 2.0e11   # optional: bytes/s per rank for the other kernels
//                              # (default: they are costed at `flops` per FLOP)
//
// A cluster (SPEC 9) adds its nodes: `latency` and `bandwidth` are then the link inside a
// node, and
//   ranks_per_node: 8                # ranks k*8 .. k*8+7 share node k (mpirun's block mapping)
//   inter_node_latency: 5 us         # the network between nodes
//   inter_node_bandwidth: 25 GB/s    # bytes/s per rank while every rank exchanges
//
// A machine einrt-calibrate measured also carries `kernel_model:`, the cost of each kernel
// class (kernel_model.h); without it the estimate uses `flops` and `memory_bandwidth`
// alone (the coarse model), and einplan says so.
//
// plus the informational keys einrt-calibrate records (ranks, p2p_bandwidth,
// alltoallv_bandwidth, ..., see machineInformationKeys). Numbers may carry a unit
// suffix; any other key is an error, as is a missing, negative or non-numeric value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <einrt/nodes.h>

#include "planner/cost/kernel_model.h"

namespace eindecomp {

struct Machine {
  double bandwidthBytesPerSecond = 0;
  double latencySeconds = 0;
  double flopsPerSecond = 0;                    // f32 GEMM
  std::optional<double> flopsF64PerSecond;      // f64 GEMM
  std::optional<double> flopsBf16PerSecond;     // bf16 GEMM (oneDNN or f32 conversions)
  std::optional<double> flopsF16PerSecond;      // f16 GEMM
  std::optional<double> memoryBytesPerSecond;   // non-GEMM kernels
  // A cluster: ranks per node and the link between nodes (absent: one node, one link).
  std::optional<int64_t> ranksPerNode;
  double interNodeLatencySeconds = 0;
  double interNodeBandwidthBytesPerSecond = 0;
  std::optional<KernelModel> kernels;  // the kernel model; absent: the coarse model

  einrt::RankNodes rankNodes() const { return {ranksPerNode.value_or(0)}; }
};

// The rank-to-node rule of an optional machine (none: one node).
inline einrt::RankNodes rankNodesOf(const std::optional<Machine>& m) { return m ? m->rankNodes() : einrt::RankNodes{}; }

// The machine with its nodes forgotten: every link priced as the intra-node one (what a
// cluster-blind planner assumes).
Machine flatMachine(Machine m);

// A machine file is a few kilobytes (einrt-calibrate's); larger files are refused before
// they are parsed.
inline constexpr int64_t kMaxMachineFileBytes = int64_t{4} << 20;

// Throws InputError (exit 2) naming the file, line and field.
Machine loadMachineFile(const std::string& path);
Machine parseMachineText(const std::string& text, const std::string& displayName);

// Keys a machine file may carry that the estimate does not read (einrt-calibrate's record).
const std::vector<std::string>& machineInformationKeys();

}  // namespace eindecomp
