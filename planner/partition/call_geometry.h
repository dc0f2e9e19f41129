// What a partition means call by call: einrt's call geometry (einrt/model/call_geometry.h,
// the one home of the rule), for the planner's positional form of a node. Placement, the
// search's candidates and the traffic model read it; so does the executor.
#pragma once

#include <einrt/model/call_geometry.h>

#include "planner/partition/partition.h"

namespace eindecomp {

using CallGeometry = einrt::model::CallGeometry;

inline CallGeometry callGeometry(const NodeSpace& space, const Parts& parts) {
  return einrt::model::callGeometry(space, parts, space.aggregatedDims);
}

}  // namespace eindecomp
