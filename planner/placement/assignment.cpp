#include "planner/placement/assignment.h"

#include <limits>
#include <stdexcept>

namespace eindecomp {

std::vector<int> solveAssignment(const std::vector<std::vector<int64_t>>& cost) {
  const int n = static_cast<int>(cost.size());
  if (n == 0) return {};
  const int m = static_cast<int>(cost[0].size());
  if (m < n) throw std::invalid_argument("solveAssignment: more rows than columns");
  const int64_t inf = std::numeric_limits<int64_t>::max() / 4;
  // 1-based potentials u (rows), v (columns); match[j] = row matched to column j.
  std::vector<int64_t> u(n + 1, 0), v(m + 1, 0);
  std::vector<int> match(m + 1, 0), way(m + 1, 0);
  for (int i = 1; i <= n; ++i) {
    match[0] = i;
    int j0 = 0;
    std::vector<int64_t> minv(m + 1, inf);
    std::vector<bool> used(m + 1, false);
    do {
      used[j0] = true;
      int i0 = match[j0], j1 = 0;
      int64_t delta = inf;
      for (int j = 1; j <= m; ++j) {
        if (used[j]) continue;
        int64_t cur = cost[i0 - 1][j - 1] - u[i0] - v[j];
        if (cur < minv[j]) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j] < delta) {
          delta = minv[j];
          j1 = j;
        }
      }
      for (int j = 0; j <= m; ++j) {
        if (used[j]) {
          u[match[j]] += delta;
          v[j] -= delta;
        } else {
          minv[j] -= delta;
        }
      }
      j0 = j1;
    } while (match[j0] != 0);
    do {
      int j1 = way[j0];
      match[j0] = match[j1];
      j0 = j1;
    } while (j0);
  }
  std::vector<int> rowToColumn(n, -1);
  for (int j = 1; j <= m; ++j)
    if (match[j]) rowToColumn[match[j] - 1] = j - 1;
  return rowToColumn;
}

}  // namespace eindecomp
