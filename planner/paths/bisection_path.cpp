#include "planner/paths/bisection_path.h"

#include <algorithm>

#include "planner/paths/hypergraph_bisection.h"
#include "planner/paths/optimal_path.h"

namespace eindecomp {

namespace {

class RecursiveBisection {
 public:
  RecursiveBisection(const ContractionProblem& p, const BisectionParams& params, PathRandom& random)
      : p_(p), params_(params), random_(random), n_(static_cast<int>(p.operands.size())),
        holders_(p.sizes.size()), inGroup_(p.sizes.size(), 0), isOutput_(p.sizes.size(), false) {
    for (int t = 0; t < n_; ++t)
      for (int l : p.operands[t]) holders_[l].push_back(t);
    for (int l : p.output) isOutput_[l] = true;
  }

  std::vector<std::pair<int, int>> run() {
    std::vector<int> all(n_);
    for (int t = 0; t < n_; ++t) all[t] = t;
    build(all);
    return merges_;
  }

 private:
  // The tree node (SSA id) that contracts `group` to one tensor. Children are created
  // before their parents, so the creation order is a valid contraction order.
  int build(const std::vector<int>& group) {
    const int m = static_cast<int>(group.size());
    if (m == 1) return group[0];
    if (m <= std::max(params_.leafSize, 2)) return contractExactly(group);

    // The group's hypergraph: its labels with at least two holders inside it.
    std::vector<int> local(n_, -1);
    for (int i = 0; i < m; ++i) local[group[i]] = i;
    Hypergraph h;
    h.vertices = m;
    for (int l = 0; l < static_cast<int>(holders_.size()); ++l) {
      if (p_.sizes[l] < 2) continue;  // cutting a label of size 1 costs nothing
      std::vector<int> pins;
      for (int t : holders_[l])
        if (local[t] >= 0) pins.push_back(local[t]);
      if (pins.size() < 2) continue;
      h.edges.push_back(std::move(pins));
      h.weights.push_back(fixedPointLog2(static_cast<uint64_t>(p_.sizes[l])));
    }
    const int half = (m + 1) / 2;
    const int maxPart = std::clamp(m * (100 + params_.imbalancePercent) / 200, half, m - 1);
    const std::vector<int> side = bisectHypergraph(h, maxPart, params_.starts, random_);

    std::vector<int> parts[2];
    for (int i = 0; i < m; ++i) parts[side[i]].push_back(group[i]);
    const int left = build(parts[0]);
    const int right = build(parts[1]);
    return join(left, right);
  }

  int join(int a, int b) {
    merges_.push_back({a, b});
    return n_ + static_cast<int>(merges_.size()) - 1;
  }

  // The exact optimum for a small group, whose result keeps the labels needed outside it.
  int contractExactly(const std::vector<int>& group) {
    ContractionProblem sub;
    sub.sizes = p_.sizes;
    for (int t : group) {
      sub.operands.push_back(p_.operands[t]);
      for (int l : p_.operands[t]) ++inGroup_[l];
    }
    std::vector<bool> taken(p_.sizes.size(), false);
    for (int t : group)
      for (int l : p_.operands[t]) {
        if (taken[l]) continue;
        taken[l] = true;
        if (isOutput_[l] || inGroup_[l] < static_cast<int>(holders_[l].size())) sub.output.push_back(l);
      }
    for (int t : group)
      for (int l : p_.operands[t]) inGroup_[l] = 0;

    const ContractionPath path = optimalPath(sub, params_.objective);
    const int m = static_cast<int>(group.size());
    std::vector<int> node(group);
    for (const auto& s : path.steps) node.push_back(join(node[s.left], node[s.right]));
    return node[2 * m - 2];
  }

  const ContractionProblem& p_;
  const BisectionParams& params_;
  PathRandom& random_;
  int n_;
  std::vector<std::vector<int>> holders_;  // operands carrying each label
  std::vector<int> inGroup_;               // scratch: holders of each label inside a group
  std::vector<bool> isOutput_;
  std::vector<std::pair<int, int>> merges_;
};

}  // namespace

ContractionPath bisectionPath(const ContractionProblem& p, const BisectionParams& params, PathRandom& random) {
  validateProblem(p);
  if (p.operands.size() < 2) return pathFromMerges(p, {});
  RecursiveBisection bisection(p, params, random);
  return pathFromMerges(p, bisection.run());
}

}  // namespace eindecomp
