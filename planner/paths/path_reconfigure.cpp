#include "planner/paths/path_reconfigure.h"

#include <algorithm>

#include "planner/paths/optimal_path.h"

namespace eindecomp {

ContractionPath reconfigurePath(const ContractionProblem& p, const ContractionPath& path, int leaves, int passes,
                                PathObjective objective, PathRandom* random) {
  const int n = static_cast<int>(p.operands.size());
  if (n < 3 || leaves < 3) return path;
  leaves = std::min(leaves, 20);

  // The contraction tree: tensors 0..n-1 are the operands, n + k the result of step k.
  struct TreeNode {
    int left = -1, right = -1;
    std::vector<int> labels;
    FlopCount flops = 0, size = 0;
  };
  std::vector<TreeNode> tree(2 * n - 1);
  for (int i = 0; i < n; ++i) tree[i].labels = p.operands[i];
  for (std::size_t k = 0; k < path.steps.size(); ++k) {
    const PathStep& s = path.steps[k];
    tree[n + k] = {s.left, s.right, s.result, s.flops, s.resultSize};
  }
  const int root = 2 * n - 2;

  ContractionProblem sub;
  sub.sizes = p.sizes;
  for (int pass = 0; pass < passes; ++pass) {
    bool improved = false;
    for (int v = n; v <= root; ++v) {
      // Cut the subtree under v: expand the costliest internal frontier node until the
      // frontier has `leaves` tensors.
      std::vector<int> frontier{tree[v].left, tree[v].right}, region{v};
      while (static_cast<int>(frontier.size()) < leaves) {
        int pick = -1;
        int internal = 0;
        for (std::size_t i = 0; i < frontier.size(); ++i) {
          if (frontier[i] < n) continue;
          ++internal;
          if (pick < 0 || tree[frontier[i]].flops > tree[frontier[pick]].flops) pick = static_cast<int>(i);
        }
        if (pick < 0) break;
        if (random && random->below(2) == 0) {
          uint64_t k = random->below(static_cast<uint64_t>(internal));
          for (std::size_t i = 0; i < frontier.size(); ++i)
            if (frontier[i] >= n && k-- == 0) pick = static_cast<int>(i);
        }
        const int f = frontier[pick];
        frontier.erase(frontier.begin() + pick);
        frontier.push_back(tree[f].left);
        frontier.push_back(tree[f].right);
        region.push_back(f);
      }
      if (frontier.size() < 3) continue;
      // The region's cost: its FLOPs and its largest result (the region's own tensors; the
      // frontier and v's labels are the same before and after).
      PathCost regionCost;
      for (int r : region) {
        regionCost.flops = saturatingAdd(regionCost.flops, tree[r].flops);
        regionCost.largest = std::max(regionCost.largest, tree[r].size);
      }

      sub.operands.clear();
      for (int f : frontier) sub.operands.push_back(tree[f].labels);
      sub.output = tree[v].labels;
      const ContractionPath best = optimalPath(sub, objective);
      PathCost bestCost{best.totalFlops, 0};
      for (const auto& s : best.steps) bestCost.largest = std::max(bestCost.largest, s.resultSize);
      if (!cheaper(bestCost, regionCost, objective)) continue;

      // Rebuild the region in place: its node slots take the new steps, the last is v.
      const int m = static_cast<int>(frontier.size());
      std::vector<int> slots(region.begin() + 1, region.end());
      slots.push_back(v);
      auto nodeOf = [&](int ssa) { return ssa < m ? frontier[ssa] : slots[ssa - m]; };
      for (std::size_t k = 0; k < best.steps.size(); ++k) {
        const PathStep& s = best.steps[k];
        tree[slots[k]] = {nodeOf(s.left), nodeOf(s.right), s.result, s.flops, s.resultSize};
      }
      improved = true;
    }
    if (!improved) break;
  }

  // Back to SSA steps: children before parents.
  ContractionPath out;
  out.exact = path.exact;
  std::vector<int> ssa(2 * n - 1, -1);
  for (int i = 0; i < n; ++i) ssa[i] = i;
  int next = n;
  std::vector<std::pair<int, bool>> stack{{root, false}};
  while (!stack.empty()) {
    auto [v, expanded] = stack.back();
    stack.pop_back();
    if (ssa[v] >= 0) continue;
    if (!expanded) {
      stack.push_back({v, true});
      stack.push_back({tree[v].right, false});
      stack.push_back({tree[v].left, false});
      continue;
    }
    out.steps.push_back({ssa[tree[v].left], ssa[tree[v].right], tree[v].labels, tree[v].flops, tree[v].size});
    ssa[v] = next++;
  }
  finishPath(p, out);
  return cheaper(costOf(path), costOf(out), objective) ? path : out;
}

}  // namespace eindecomp
