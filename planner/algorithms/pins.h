// Pinned partitions as users write them — `--fix NODE=i:4,j:2` on the command line or a
// node entry of a plan file — resolved against a graph into Parts over the node's
// iteration labels. Labels left out get 1 part. Every problem (unknown node or label,
// parts that are not positive or do not divide the label's size, a product other than
// the node's kernel-call count) is an InputError (exit 2) at the place it was written.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "planner/graph/graph.h"
#include "planner/partition/partition.h"

namespace eindecomp {

struct PartitionRequest {
  std::string node;
  std::vector<std::pair<Label, int64_t>> parts;  // label -> parts, as written
  SourceLoc loc;                                 // where it was written (for diagnostics)
};

// Parses "NODE=i:4,j:2"; `where` names the option in diagnostics.
PartitionRequest parseFixOption(const std::string& text, const SourceLoc& where);

// Validates the request against the graph; the product must be `devices`, or the
// node's fallback count (SPEC 2) when no partition of the node reaches `devices`.
Parts resolvePartitionRequest(const Graph& g, const PartitionRequest& request, int64_t devices);
// The same for a node already looked up (nullptr: request.node is not in the graph), so
// that resolving a whole plan file needs no search per node.
Parts resolvePartitionRequest(const Node* node, const PartitionRequest& request, int64_t devices);

}  // namespace eindecomp
