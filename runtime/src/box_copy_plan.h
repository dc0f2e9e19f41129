// Building BoxCopy descriptors (host only): where a box sits inside two containers.
#pragma once

#include "box_copy.h"
#include "einrt/box.h"
#include "einrt/types.h"

namespace einrt::detail {

// Describes copying `box` (global coordinates) from a row-major container covering
// `fromContainer` to one covering `toContainer`; both must contain `box`.
BoxCopy makeBoxCopy(const Box& box, const Box& fromContainer, const Box& toContainer);

CombineOp combineOpFor(Reduce reduce);

}  // namespace einrt::detail
