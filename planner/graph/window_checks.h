// The checks of a node's 'windows' (SPEC 8.1) that concern meaning, for the graph builder
// (planner/graph/build_graph.cpp): every error names the field that causes it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "planner/graph/einsum_parser.h"
#include "planner/graph/graph.h"
#include "planner/graph/graph_document.h"

namespace eindecomp {

// A node's 'windows', checked against its lowered einsum: one entry per operand, each
// label one of that operand's, offsets within 2^40; per operand, label -> offset (empty:
// no windows). `taps`: per operand, the labels whose window is more than an offset (a tap
// label, a dilation, a step or a spread).
std::vector<std::map<Label, int64_t>> readNodeWindows(const DocNode& dn, const EinsumSpec& spec, const std::string& owner,
                                                      std::vector<std::map<Label, const DocAffineWindow*>>& taps);

// The windows' tap labels, dilations, steps and spreads into `w`, once the node's labels
// have their sizes: a tap label one of the node's labels, none of its own operand's; each
// dilation nonzero within 2^20, only with a tap; each step and spread within 1 .. 2^20; a
// spread with neither a tap nor a step, and only in a copy (one operand, join x, every
// label of it once in the output), whose kernel writes the rows it reads spread apart.
void addWindowMoves(const Node& node, const EinsumSpec& spec, const std::vector<std::map<Label, const DocAffineWindow*>>& taps,
                    const std::string& owner, NodeWindows& w);

}  // namespace eindecomp
