// The kernel model's measurements (docs/cost-model.md, "The kernel model"): what each
// kernel class the executor runs costs on these ranks, measured through einrt's own
// kernels — hostGemm over a grid of (m, n, k) per element type, the generic elementwise
// kernel with each scalar function of the planner's function table (math.h), its
// reductions, and the tiled permutation. The planner interpolates the GEMM grid and adds
// the per-element costs (planner/cost/kernel_model.h). Collective: every rank measures at
// once, each figure the median of the slowest rank.
#pragma once

#include <string>

namespace einrt::calibrate {

// The machine file's `kernel_model:` section (YAML, indented under that key).
std::string measureKernelModel(bool quick);

}  // namespace einrt::calibrate
