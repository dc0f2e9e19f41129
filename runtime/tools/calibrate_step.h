// The executor's fixed cost of one node's step on a rank, for the kernel model's `step`
// (docs/cost-model.md): collective, the median of the slowest rank, in seconds.
#pragma once

#include <einrt/communicator.h>

namespace einrt::calibrate {

double measureStepSeconds(Communicator& comm, int reps);

}  // namespace einrt::calibrate
