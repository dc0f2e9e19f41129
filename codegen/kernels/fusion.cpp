#include "codegen/kernels/fusion.h"

#include <string>

namespace eindecomp::codegen {

namespace {

std::string joinedNames(const NodeProgram& n, int k) {
  std::string s;
  for (int q = 0; q < k; ++q) s += (q ? "," : "") + n.labels[static_cast<std::size_t>(n.outputLabels[static_cast<std::size_t>(q)])];
  return s;
}

}  // namespace

void applyFusion(RankProgram& rp, const Fusion& fusion) {
  for (std::size_t i = 0; i < rp.nodes.size(); ++i) {
    const NodeFusion& f = fusion.nodes[i];
    if (f.group < 0) continue;
    const FusionGroup& group = fusion.groups[static_cast<std::size_t>(f.group)];
    NodeProgram& n = rp.nodes[i];
    const bool scratch = rp.model.nodes[i].scratch;
    const std::string span = rp.nodes[static_cast<std::size_t>(group.first)].name + " .. " + rp.nodes[static_cast<std::size_t>(group.last)].name;
    n.choice.why = n.choice.kind + " (" + n.choice.why + "), fused with " + span + " (" +
                   std::to_string(group.last - group.first + 1) + " nodes, one pass over tiles of " + joinedNames(n, f.tileDims) + ")" +
                   (scratch ? "; output kept in tiles only" : "");
    n.choice.kind = "fused elementwise";
  }
}

}  // namespace eindecomp::codegen
