// One exchange's load per rank and link, the way the planner's time model prices a phase
// (planner/cost/traffic.h: a link's busiest rank's elements and messages): per rank the
// elements it sends and receives over each link, and its messages — a distinct (sender,
// receiver) pair carrying data counts once at both ends. The planner's traffic count
// tallies every priced exchange with it, and einrt's reduced-at-read rule
// (program_model.h) compares exchanges by it, so both read one rule. Header-only.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "einrt/nodes.h"

namespace einrt::model {

class ExchangeLoad {
 public:
  // Pieces come grouped by one side (all of one receiver's, or one sender's, in a row), so
  // a pair is new when the other side was not yet seen with this one.
  enum class GroupedBy { Receiver, Sender };
  struct Busiest {
    int64_t elements = 0;  // max over ranks of max(sent, received)
    int64_t messages = 0;  // max over ranks of messages sent + received
  };
  ExchangeLoad(int64_t ranks, const RankNodes& nodes, GroupedBy grouped)
      : grouped_(grouped), seenWith_(static_cast<std::size_t>(ranks), -1), nodeOf_(static_cast<std::size_t>(ranks)) {
    for (std::size_t r = 0; r < nodeOf_.size(); ++r) nodeOf_[r] = static_cast<int>(nodes.nodeOf(static_cast<int64_t>(r)));
    for (Link& l : links_) {
      l.sent.assign(static_cast<std::size_t>(ranks), 0);
      l.received.assign(static_cast<std::size_t>(ranks), 0);
      l.messages.assign(static_cast<std::size_t>(ranks), 0);
    }
  }
  // Whether two ranks share a node (a table: this runs for every piece of every edge priced).
  bool sameNode(int a, int b) const { return nodeOf_[static_cast<std::size_t>(a)] == nodeOf_[static_cast<std::size_t>(b)]; }
  void add(int from, int to, int64_t elements) {
    Link& l = links_[sameNode(from, to) ? 0 : 1];
    l.sent[static_cast<std::size_t>(from)] += elements;
    l.received[static_cast<std::size_t>(to)] += elements;
    const int side = grouped_ == GroupedBy::Receiver ? to : from, other = grouped_ == GroupedBy::Receiver ? from : to;
    if (seenWith_[static_cast<std::size_t>(other)] != side) {
      seenWith_[static_cast<std::size_t>(other)] = side;
      ++l.messages[static_cast<std::size_t>(from)];
      ++l.messages[static_cast<std::size_t>(to)];
    }
  }
  // Link 0 within a node, 1 between nodes.
  Busiest busiest(int link) const {
    const Link& l = links_[link];
    Busiest b;
    for (std::size_t r = 0; r < l.sent.size(); ++r) {
      b.elements = std::max({b.elements, l.sent[r], l.received[r]});
      b.messages = std::max(b.messages, l.messages[r]);
    }
    return b;
  }

 private:
  struct Link {
    std::vector<int64_t> sent, received, messages;
  };
  GroupedBy grouped_;
  std::vector<int> seenWith_;  // per rank on the other side: the last rank of the grouped side it met
  std::vector<int> nodeOf_;    // per rank: its node
  Link links_[2];              // intra-node, inter-node
};

}  // namespace einrt::model
