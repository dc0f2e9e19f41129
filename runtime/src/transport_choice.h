// Choosing the MPI transport for a message plan. Every rank runs the same deterministic
// rules on the same global plan, so all ranks agree without communicating. The rules
// are documented in docs/runtime.md ("Specialized paths").
#pragma once

#include <vector>

#include "einrt/layout.h"
#include "einrt/redistribute.h"
#include "message_plan.h"

namespace einrt::detail {

struct TransportChoice {
  Transport transport = Transport::Local;
  std::vector<int> color;  // per rank: group id for group transports, -1 outside any group
  int root = -1;           // Scatterv sender / Gatherv receiver
};

// `requested` Auto applies the rules; PointToPoint and Alltoallv are always possible;
// a specialized transport that does not fit the pattern throws std::invalid_argument.
TransportChoice chooseTransport(const MessagePlan& plan, const Layout& src, Transport requested);

}  // namespace einrt::detail
