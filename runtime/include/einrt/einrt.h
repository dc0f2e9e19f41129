// einrt: the runtime library of repartition collectives linked by emitted eindecomp
// programs. This umbrella header pulls in the whole public API: layouts (layout.h),
// the plan/execute collectives (redistribute.h), the communicator and its byte counters
// (communicator.h), traffic prediction (traffic.h), errors (errors.h), and the
// header-only input generator and .npy I/O used by emitted programs.
#pragma once

#include "einrt/box.h"
#include "einrt/communicator.h"
#include "einrt/errors.h"
#include "einrt/input_generator.h"
#include "einrt/layout.h"
#include "einrt/redistribute.h"
#include "einrt/traffic.h"
#include "einrt/npy.h"
#include "einrt/types.h"
#include "einrt/version.h"
