// Recomputation (issue "Training as people train"): a node computed again for its later
// uses instead of being held until them — the trade activation checkpointing makes in a
// training step, where a forward activation waits through the rest of the forward pass
// for its use in the backward pass. An entry {node, from} adds a copy of `node` (the same
// EinSum over the same inputs) just before its consumer `from`, and every consumer from
// `from` on reads the copy: the original's blocks are freed after its last earlier use
// (the memory model and the program follow the node order, SPEC 3.2), and the copy lives
// from `from` on. Plans carry their entries (`recompute` in plan files, SPEC 6), and the
// planner, `einplan cost` and eincodegen apply them with this one function, so the plan's
// graph and the program's are the same graph.
#pragma once

#include <string>
#include <vector>

#include "planner/graph/graph.h"

namespace eindecomp {

struct Recompute {
  std::string node;  // the node computed again
  std::string from;  // its first consumer reading the copy
  SourceLoc loc{};   // where a plan file gives it
};

// `g` with the entries applied in order (each names nodes of the graph the earlier ones
// made). An entry whose node is unknown, is a graph output, or whose `from` is not a
// consumer of it is an InputError at its loc. The copy of N is named N_again (made a
// valid, unused identifier: recomputedName).
Graph withRecompute(const Graph& g, const std::vector<Recompute>& entries);

// Where einplan grad's backward begins in a training step: its first node named d_... or
// grad_... (the gradients it appends after the forward), g.nodes.size() where there is
// none. The hand strategies and layerRecompute read the forward as the nodes before it.
std::size_t backwardStart(const Graph& g);

// Full activation recompute per layer (Megatron-LM's --recompute-granularity full: each
// layer keeps its input, and its forward runs again before its backward), for training
// steps whose layers' forward nodes are named L<i>_... before the first d_ or grad_ node
// (einplan gen llama --train). Of each layer's forward nodes, all but those another layer
// or the rest of the forward reads (the layer's output, its checkpoint) and the graph
// outputs are computed again, each just before its first reader in the backward (or its
// first copy that reads it), taken from the last node back so that the copies read one
// another: the entries for withRecompute, in order. InputError where the graph has no such
// layer.
std::vector<Recompute> layerRecompute(const Graph& g);

// The name withRecompute gives the copy of `node` in `g`.
std::string recomputedName(const Graph& g, const std::string& node);

}  // namespace eindecomp
