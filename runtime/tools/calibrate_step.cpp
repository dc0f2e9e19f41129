// The executor's own cost of a node's step on a rank — what einrt's program executor
// spends around a node's kernel calls (finding the blocks of each call, allocating and
// releasing the step's buffers, timing) — measured by running the executor itself on a
// chain of two tiny elementwise nodes (one element per call, each rank one call, the
// second reading the first's block in place) many times: the kernels' own work is nothing.
#include "calibrate_step.h"

#include <einrt/communicator.h>
#include <einrt/program/elementwise.h>

#include "calibrate_timing.h"
#include "program/distributed.h"

namespace einrt::calibrate {

namespace {

struct PlusOne {
  template <class T> static T join(T x, T) { return x + T(1); }
  template <class T> static T combine(T a, T b) { return a + b; }
  template <class T> static T identity() { return T(0); }
};

}  // namespace

double measureStepSeconds(Communicator& comm, int reps) {
  const int ranks = comm.size();
  program::ProgramSpec<float> spec;
  spec.name = "step";
  spec.devices = ranks;
  spec.tensors = {{"X", {ranks}, true, false, -1, {}, std::nullopt, 0}, {"A", {ranks}, false, false, 0, {}, std::nullopt, 0},
                  {"B", {ranks}, false, true, 1, {}, std::nullopt, 0}};
  for (int i = 0; i < 2; ++i) {
    program::NodeTable n;
    n.name = i == 0 ? "A" : "B";
    n.sizes = {ranks};
    n.parts = {ranks};
    n.operandTensor = {i};
    n.operandLabels = {{0}};
    n.outputLabels = {0};
    n.outputTensor = i + 1;
    for (int r = 0; r < ranks; ++r) {
      n.callRank.push_back(r);
      n.blockOwner.push_back(r);
    }
    n.kernel = "elementwise";
    spec.nodes.push_back(n);
    spec.kernels.push_back({&program::elementwise<float, PlusOne, false>, nullptr});
  }
  spec.outputs = {2};
  program::detail::DistributedProgram<float> program(spec, comm, nullptr, 1);
  program.setUp(1, nullptr);
  constexpr int kSteps = 1000;
  return medianSeconds(reps, [&] {
    for (int s = 0; s < kSteps; ++s) {
      program.runNode(0);
      program.runNode(1);
    }
  }) / (2 * kSteps);
}

}  // namespace einrt::calibrate
