// The executor of emitted programs (SPEC 7), library code: an emitted main() is
//   int main(int argc, char** argv) { return einrt::program::runProgram(makeSpec(), argc, argv); }
// (with einrt::cudaDevice() as the last argument in CUDA programs). Every rank builds, from
// the plan's tables, the einrt layouts of every tensor — graph inputs made in place (or
// scattered from --inputs) in the blocks their consumers' calls read, node outputs in
// blocks on their owners — and per node and iteration
//   1. repartitions each operand another node produced (einrt redistribute; an operand
//      whose blocks all sit on the ranks that read them is read in place, no copy),
//   2. runs its kernel calls (GEMM / strided-batched GEMM with alpha for contractions,
//      tiled permutations where a layout needs one, the elementwise kernel otherwise;
//      calls on one rank that share an output block are combined locally),
//   3. combines partial results across ranks into the block owners (reduce-redistribute).
// Fused groups (spec.h FusionSpec) run their members' calls tile by tile instead.
// Reports times (medians; per node what it adds to the slowest rank's finish), the bytes einrt counted next to the plan's
// prediction, and with --check the comparison with check.h's reference. Exit status: 0 ok,
// 1 failed --check, 2 bad usage, wrong rank count, unreadable or malformed files, 124 the
// --timeout watchdog.
#pragma once

#include "einrt/device.h"
#include "einrt/half.h"
#include "einrt/program/spec.h"

namespace einrt::program {

// Calls MPI_Init and MPI_Finalize. `device` is required for specs in MemorySpace::Cuda.
int runProgram(const ProgramSpec<float>& spec, int argc, char** argv, const DeviceOps* device = nullptr);
int runProgram(const ProgramSpec<double>& spec, int argc, char** argv, const DeviceOps* device = nullptr);
int runProgram(const ProgramSpec<bf16>& spec, int argc, char** argv, const DeviceOps* device = nullptr);
int runProgram(const ProgramSpec<f16>& spec, int argc, char** argv, const DeviceOps* device = nullptr);

}  // namespace einrt::program
