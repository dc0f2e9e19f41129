// --check (SPEC 7): the outputs computed a second time on rank 0, independently of the
// distributed execution — the program's own kernels over whole tensors (one call per node,
// no partitions, no collectives; fast enough for real sizes) and, on small graphs, also
// the plain reference loops (reference.h) — and compared with what the ranks computed.
// The tolerance follows an error bound: 2 * eps(dtype) * L, where L is the largest sum of
// reduction lengths (at least 1 per node) along a path from the inputs to the output: a
// sum of K rounded terms is off by at most about K * eps relative to its terms, and every
// node on the way adds its own. bf16 and f16 (computed in f32, each node's result rounded
// once to 2 bytes) add 2 * eps(storage) per node on that path: eps 2^-8 and 2^-11 (SPEC 8).
// NaN or infinity in a reference fails the check.
#pragma once

#include <map>
#include <vector>

#include "einrt/device.h"
#include "einrt/program/report.h"
#include "einrt/program/spec.h"

namespace einrt::program::detail {

// Graphs up to this many FLOPs are also checked against the plain loops.
inline constexpr int64_t kPlainReferenceFlops = 200000000;

template <class T>
CheckReport checkOutputs(const ProgramSpec<T>& spec, const std::map<int, std::vector<T>>& inputs,
                         const std::map<int, std::vector<T>>& outputs, const DeviceOps* device, int threads);

// Folds the comparison of one output with a reference into `r`: NaN and infinities are
// values (the same in the same place match; anything else there fails), finite elements
// are held to `tolerance` relative to the larger of the reference's largest magnitude and
// `termScale` (the largest term a sum of cancelling terms added up; 0: none).
template <class T>
void compareOutput(const std::string& name, const std::vector<T>& got, const std::vector<T>& want, double tolerance,
                   const char* reference, CheckReport& r, double termScale = 0);

// The tolerance of an output tensor (see above).
template <class T>
double checkTolerance(const ProgramSpec<T>& spec, int tensor);

}  // namespace einrt::program::detail
