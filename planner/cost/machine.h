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
// plus the informational keys einrt-calibrate records (ranks, p2p_bandwidth,
// alltoallv_bandwidth, ..., see machineInformationKeys). Numbers may carry a unit
// suffix; any other key is an error, as is a missing, negative or non-numeric value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace eindecomp {

struct Machine {
  double bandwidthBytesPerSecond = 0;
  double latencySeconds = 0;
  double flopsPerSecond = 0;                    // f32 GEMM
  std::optional<double> flopsF64PerSecond;      // f64 GEMM
  std::optional<double> flopsBf16PerSecond;     // bf16 GEMM (oneDNN or f32 conversions)
  std::optional<double> flopsF16PerSecond;      // f16 GEMM
  std::optional<double> memoryBytesPerSecond;   // non-GEMM kernels
};

// Throws InputError (exit 2) naming the file, line and field.
Machine loadMachineFile(const std::string& path);
Machine parseMachineText(const std::string& text, const std::string& displayName);

// Keys a machine file may carry that the estimate does not read (einrt-calibrate's record).
const std::vector<std::string>& machineInformationKeys();

}  // namespace eindecomp
