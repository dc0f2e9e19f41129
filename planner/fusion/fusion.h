// Which consecutive elementwise and reduction nodes run fused: a decision of the plan
// (it depends on partitions and placement), made once here and followed by the code
// generator and the planner's memory and time models through the program's tables
// (planner/model/program_tables.h, einrt/model/tables.h FusionSpec), since a fused group's
// members hold their buffers together and run as one pass. A fused group
// runs as one pass over tiles of its leading output dimensions: per tile, every member
// computes its slice in order. Softmax (max, exp, sum, divide) is the example.
//
// Members must need no communication between them, so the plan's partition decides:
//   - members are consecutive nodes that run no GEMM and no permutation and read no
//     operand through a window (SPEC 8.1);
//   - the group dimensions are the first k output dimensions of every member (k >= 1, the
//     same extents and parts in every member), and a member reading another member's
//     output reads those dimensions in the same positions, as its own first k;
//   - only group dimensions are cut into parts, and each group block's kernel call runs
//     on the same rank in every member, which also owns that block (no repartition, no
//     aggregation inside the group).
// Groups have two members or more and grow greedily in node order, each with the most
// group dimensions its members allow (more dimensions, finer tiles). Which members' outputs
// then live in tiles only is a rule of the program, einrt's model's
// (einrt/model/program_model.h, "scratch").
#pragma once

#include <vector>

#include <einrt/model/tables.h>

#include "planner/graph/graph.h"
#include "planner/placement/plan.h"

namespace eindecomp {

// A node's place in a group: the program's tables carry it as it is (einrt/model/tables.h).
using NodeFusion = einrt::model::FusionSpec;

struct FusionGroup {
  int first = 0, last = 0;  // member nodes first..last
};

struct Fusion {
  std::vector<NodeFusion> nodes;    // aligned with Graph::nodes
  std::vector<FusionGroup> groups;  // in node order; NodeFusion::group indexes it
};

Fusion chooseFusion(const Graph& g, const Plan& plan);

}  // namespace eindecomp
