// A node's iteration space in positional form, the planner's one: einrt's NodeShape
// (einrt/model/tables.h: label sizes, and per operand and the output the label index of
// each dimension) with the labels' names. Partitions, costs and the program's tables all
// start from it.
#pragma once

#include <vector>

#include <einrt/model/tables.h>

#include "planner/graph/graph.h"

namespace eindecomp {

// A node's iteration space in positional form: einrt's (sizes, and per operand and the
// output the label index of each dimension; einrt/model/tables.h) with the labels' names.
struct NodeSpace : einrt::model::NodeShape {
  Labels labels;                    // iterationLabels(node)
  std::vector<int> aggregatedDims;  // label indices in some operand but not the output
};

NodeSpace nodeSpace(const Node& n);

// The extent of the tensor operand k reads: its window's bound (SPEC 8.1), else its
// labels' sizes — the shape a plan's edge carries (PlanEdge::bounds).
std::vector<int64_t> operandExtent(const NodeSpace& s, std::size_t k);

// The positional form of n over `labels` (its iteration labels in some order) with the
// given sizes per label (block extents, say), without reading n's label sizes.
einrt::model::NodeShape nodeShape(const Node& n, const Labels& labels, std::vector<int64_t> sizes);

}  // namespace eindecomp
