#include "planner/cost/time_model.h"

#include <cmath>

#include "planner/cost/checked_math.h"
#include "planner/cost/cost_model.h"

namespace eindecomp {

namespace {

int64_t toPicoseconds(double seconds) {
  const double ps = std::llround(seconds * 1e12);
  if (!(ps < 9.2e18)) throwCostOverflow("the estimated time in picoseconds");
  return static_cast<int64_t>(ps);
}

}  // namespace

namespace {

double linkSeconds(const LinkLoad& load, double latency, double bandwidth, int64_t elementBytes) {
  if (load.busiestElements == 0) return 0;
  return latency * static_cast<double>(load.busiestMessages) +
         static_cast<double>(load.busiestElements) * static_cast<double>(elementBytes) / bandwidth;
}

}  // namespace

int64_t phasePicoseconds(const Machine& m, const Traffic& t, int64_t elementBytes) {
  if (t.elements == 0) return 0;
  return toPicoseconds(linkSeconds(t.intraNode, m.latencySeconds, m.bandwidthBytesPerSecond, elementBytes) +
                       linkSeconds(t.interNode, m.interNodeLatencySeconds, m.interNodeBandwidthBytesPerSecond, elementBytes));
}

CallWork callWork(const Node& n, const NodeSpace& space, const Parts& parts, bool gemm) {
  CallWork w;
  w.gemm = gemm;
  int64_t calls = 1;
  for (int64_t d : parts) calls = checkedMul(calls, d, "kernel calls");
  w.flops = nodeFlops(n) / calls;
  const NodeCost c = nodeCost(space, parts, dtypeSize(DType::F32));
  w.elements = checkedAdd(checkedAdd(c.nX, c.nY, "call elements"), c.nZ, "call elements");
  return w;
}

int64_t computePicoseconds(const Machine& m, const CallWork& w, int64_t callsOnBusiestRank, DType dtype) {
  const double calls = static_cast<double>(callsOnBusiestRank);
  // The element type's own GEMM rate where the machine file has it, else f32's.
  std::optional<double> own;
  if (dtype == DType::F64) own = m.flopsF64PerSecond;
  else if (dtype == DType::BF16) own = m.flopsBf16PerSecond;
  else if (dtype == DType::F16) own = m.flopsF16PerSecond;
  const double flopRate = own ? *own : m.flopsPerSecond;
  if (w.gemm || !m.memoryBytesPerSecond) return toPicoseconds(calls * static_cast<double>(w.flops) / flopRate);
  const double bytes = static_cast<double>(w.elements) * static_cast<double>(dtypeSize(dtype));
  return toPicoseconds(calls * bytes / *m.memoryBytesPerSecond);
}

}  // namespace eindecomp
