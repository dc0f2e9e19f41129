#pragma once
// How much exact pricing a descent under --mem-limit may spend, counted in work rather than
// in seconds, so that a plan does not depend on how fast or how loaded the machine is.
// A wall-clock budget made the repair and the recompute descents stop at different steps
// on a sanitizer build, a loaded CI machine or a second run on the same machine, and so
// print different plans for one request (issue "Hardening": plans compared in CI must be
// reproducible).
//
// One whole-plan pricing (placement, traffic and the memory timeline) costs about
// nodes x (ranks + 4) units: measured on a 265-node two-layer training step at p = 2, 3, 4
// and on the 5227-node LLaMA-7B AdamW step at p = 8, the build runs 2.6e5 to 3.0e5 units
// a second on a 2-core EPYC VM. kUnitsPerSecond turns a budget stated in seconds of that
// machine into units.

#include <cstdint>

#include "planner/graph/graph.h"

namespace eindecomp {

class PricingBudget {
 public:
  static constexpr double kUnitsPerSecond = 2.7e5;

  // `seconds`: the budget, in seconds of the reference machine.
  PricingBudget(double seconds, int64_t ranks) : left_(seconds * kUnitsPerSecond), ranks_(ranks) {}

  // Whether another pricing may start.
  bool left() const { return left_ > 0; }

  // Counts one pricing of `g`.
  void charge(const Graph& g) { left_ -= static_cast<double>(g.nodes.size()) * static_cast<double>(ranks_ + 4); }

 private:
  double left_;
  int64_t ranks_;
};

}  // namespace eindecomp
