// A machine description for estimated times (SPEC 3, `--machine FILE`): per-device
// network bandwidth (bytes/s), per-message latency (s) and compute rate (FLOP/s), read
// from YAML or JSON:  {bandwidth: 12.5e9, latency: 2.0e-6, flops: 1.0e13}.
// The estimate is the alpha-beta model of the tensor-relational-algebra paper (4.3),
// C = alpha * C_n + beta * C_c, with the cluster's rates being q devices' rates:
//   time(node) = latency * phases + bytes / (q * bandwidth) + flops / (q * flops_rate)
// where bytes = (repart_in + join + agg) * dtype size, q = the node's kernel calls and
// phases = the number of communication phases that move anything (repartition of each
// operand, join, aggregation). Units: seconds.
#pragma once

#include <cstdint>
#include <string>

namespace eindecomp {

struct Machine {
  double bandwidthBytesPerSecond = 0;
  double latencySeconds = 0;
  double flopsPerSecond = 0;
};

// Throws InputError (exit 2) naming the file, line and field on a missing, negative or
// non-numeric field.
Machine loadMachineFile(const std::string& path);

double estimatedNodeSeconds(const Machine& m, int64_t bytesMoved, int communicationPhases, int64_t flops,
                            int64_t kernelCalls);

}  // namespace eindecomp
