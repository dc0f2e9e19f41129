// Reading plan files (SPEC 6): the full report that `einplan plan -o` writes (JSON or
// YAML), or a minimal hand-written one: {"devices": 16, "nodes": [{"name": "AB",
// "partition": {"i": 4, "j": 1, "k": 4}, "placement": [0, 1, ...]}]}. What is read:
// schema_version (1 if present), graph_sha256 (checked against the graph when present),
// devices, and per node its name, partition and placement (optional: the rank of each
// kernel call); every other key a report carries is accepted and ignored (it is derived
// again), and any key a report does not carry is an error. The file is checked as strictly
// as a graph file: one document, no duplicate keys, integers not written as strings.
// Problems are InputErrors (exit 2) naming the file, line, column and field.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "planner/algorithms/pins.h"
#include "planner/graph/document.h"
#include "planner/graph/graph.h"
#include "planner/placement/plan.h"

namespace eindecomp {

struct PlanFileNode {
  PartitionRequest partition;
  std::optional<std::vector<int64_t>> placement;  // rank of each kernel call, as written
  SourceLoc placementLoc;
  std::optional<einrt::program::GemmPlanned> gemmPath;  // gemm_path, as written
  SourceLoc gemmPathLoc;
};

struct PlanFile {
  std::string path;
  std::optional<std::string> graphSha256;
  SourceLoc graphSha256Loc;
  std::optional<int64_t> devices;
  std::optional<int64_t> ranksPerNode;  // the cluster the plan was made for (read back from ranks_per_node)
  std::vector<PlanFileNode> nodes;
  std::vector<Recompute> recompute;  // nodes computed again (planner/graph/recompute.h), in order
  std::vector<FusedGradientCast> fusedGradientCasts;  // gradient casts fused (planner/graph/gradient_fusion.h), applied first
  std::vector<ShardAtRest> shardAtRest;  // inputs sharded at rest (planner/graph/shard_at_rest.h), applied next
  bool partialsOnOwners = false;         // every aggregation onto its owners (plan.h)
  bool invariantsPerMicroBatch = false;  // invariants run in every micro-batch (plan.h)
};

// `path` "-" reads standard input.
PlanFile readPlanFile(const std::string& path);
PlanFile parsePlanText(const std::string& text, const std::string& displayName);
PlanFile readPlanDocument(const Document& doc);

struct ResolvedPlanFile {
  std::map<std::string, Parts> partitions;  // node -> partition over iterationLabels
  PinnedPlacements placements;              // nodes whose placement the file gives
  std::map<std::string, einrt::program::GemmPlanned> gemmPaths;  // nodes whose GEMM path the file gives
};

// The file's partitions and placements for `devices`, validated against the graph (unknown
// node or label, parts not dividing, product != devices, a node given twice, a placement
// with the wrong number of ranks or a rank outside 0..devices-1: exit 2). A file whose
// graph_sha256 differs from `graphSha256` is refused (exit 2); a file without one (written
// by hand) is accepted.
ResolvedPlanFile resolvePlanFile(const Graph& g, const PlanFile& plan, int64_t devices, const std::string& graphSha256);

// The device count to plan for: the file's `devices`, which -p (`requested`) may repeat
// but not contradict, else -p; neither is an InputError naming the file (exit 2).
int64_t planFileDevices(const PlanFile& plan, std::optional<int64_t> requested);

}  // namespace eindecomp
