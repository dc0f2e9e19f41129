// The element type of every tensor of a graph (SPEC 8), decided here once for the loader,
// the cost models, the evaluator and the program tables: the graph's `dtype` is every
// tensor's default; an input may state its own (i32 or i64: ids; another float type: a
// mixed-precision graph's f32 master weights in a bf16 graph); a cast node's output has
// the type it names; every other node computes in, and writes, the one float type its
// float operands share (a gather's ids are not float operands). One exception, the
// widening contraction: a contraction of two bf16 (or f16) operands with `cast: f32`
// computes in its operands' type on the matrix units, sums in f32 and writes f32, never
// rounded to its operands' type (a weight gradient accumulated in its master type:
// Megatron's gradient accumulation fusion; `einplan grad --gradient-accumulation-fusion`).
#pragma once

#include <vector>

#include "planner/graph/graph.h"
#include "planner/graph/index_nodes.h"

namespace eindecomp {

DType inputType(const Graph& g, const InputTensor& in);

// Per node, in g.nodes order: the type of its output.
std::vector<DType> nodeOutputTypes(const Graph& g);

// Whether node n is a widening contraction (above): a cast on two operands, which the
// loader admits only in that form.
bool isWideningContraction(const Node& n);

// Per node, the type its kernel computes in: its output's, but a widening contraction's
// operands' (what the time model prices its GEMM at).
std::vector<DType> nodeComputeTypes(const Graph& g);

// True when some float tensor's type is not the graph's dtype (a mixed-precision graph).
bool hasMixedFloatTypes(const Graph& g);

// The loader's checks (build_graph.cpp), with InputError at the field that breaks one:
// a node's float operands share one type, unless it is a cast; a cast has one float
// operand, the identity join, no aggregated or broadcast label, no window, and reads its
// operand in the output's label order (a conversion block by block, SPEC 8), or is a
// widening contraction: two float operands of bf16 or f16, the join x * y, the sum, no
// window, to f32. `castAt`:
// where each node's `cast` was written (aligned with g.nodes; the node's place if none).
void checkTensorTypes(const Graph& g, const std::vector<SourceLoc>& castAt, const IndexNodeLocations& where);

}  // namespace eindecomp
