// The element type of every tensor of a graph (SPEC 8), decided here once for the loader,
// the cost models, the evaluator and the program tables: the graph's `dtype` is every
// tensor's default; an input may state its own (i32 or i64: ids; another float type: a
// mixed-precision graph's f32 master weights in a bf16 graph); a cast node's output has
// the type it names; every other node computes in, and writes, the one float type its
// float operands share (a gather's ids are not float operands).
#pragma once

#include <vector>

#include "planner/graph/graph.h"
#include "planner/graph/index_nodes.h"

namespace eindecomp {

DType inputType(const Graph& g, const InputTensor& in);

// Per node, in g.nodes order: the type of its output.
std::vector<DType> nodeOutputTypes(const Graph& g);

// True when some float tensor's type is not the graph's dtype (a mixed-precision graph).
bool hasMixedFloatTypes(const Graph& g);

// The loader's checks (build_graph.cpp), with InputError at the field that breaks one:
// a node's float operands share one type, unless it is a cast; a cast has one float
// operand, the identity join, no aggregated or broadcast label, no window, and reads its
// operand in the output's label order (a conversion block by block, SPEC 8). `castAt`:
// where each node's `cast` was written (aligned with g.nodes; the node's place if none).
void checkTensorTypes(const Graph& g, const std::vector<SourceLoc>& castAt, const IndexNodeLocations& where);

}  // namespace eindecomp
