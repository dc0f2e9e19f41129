// Predicting traffic without running anything: the bytes a (source, destination) layout
// pair implies, computed from box intersections alone, so a code generator (or a test)
// can know exactly what the counters of an execution will show.
//
// The rule (the message plan of redistribute.h): for every destination block b and every
// holder r of b, and every source block s whose box meets b's box in I:
//  - Replicas source: if r holds s the piece is a local copy (0 bytes); otherwise one
//    holder of s sends |I| elements to r;
//  - Partial source (more than one holder): every holder h != r of s sends its partial
//    |I| elements to r (h == r is local), and r combines them in holder order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "einrt/layout.h"
#include "einrt/nodes.h"
#include "einrt/types.h"

namespace einrt {

struct TrafficPrediction {
  uint64_t totalBytes = 0;              // over all ranks
  uint64_t interNodeBytes = 0;          // of those, between ranks on different nodes (`nodes`)
  std::vector<uint64_t> bytesSentByRank;  // index: rank
  std::vector<uint64_t> bytesRecvByRank;  // index: rank
};

// Validates the pair (LayoutError, naming `tensor`) and returns the implied bytes.
TrafficPrediction predictTraffic(const Layout& src, const Layout& dst, DType dtype, int nranks,
                                 const std::string& tensor = "tensor", const RankNodes& nodes = {});

}  // namespace einrt
