#include "planner/graph/graph_order.h"

#include <algorithm>
#include <set>

namespace eindecomp {

NodeOrder stableTopologicalOrder(const std::vector<std::vector<int>>& deps) {
  const std::size_t n = deps.size();
  std::vector<int> missing(n, 0);
  std::vector<std::vector<int>> readers(n);
  for (std::size_t i = 0; i < n; ++i)
    for (int d : deps[i]) {
      ++missing[i];
      readers[static_cast<std::size_t>(d)].push_back(static_cast<int>(i));
    }
  std::set<int> ready;  // ordered: the earliest ready node goes first
  for (std::size_t i = 0; i < n; ++i)
    if (missing[i] == 0) ready.insert(static_cast<int>(i));
  NodeOrder result;
  while (!ready.empty()) {
    const int next = *ready.begin();
    ready.erase(ready.begin());
    result.order.push_back(next);
    for (int r : readers[static_cast<std::size_t>(next)])
      if (--missing[static_cast<std::size_t>(r)] == 0) ready.insert(r);
  }
  if (result.order.size() == n) return result;

  // Every node left waits on another node left, so following unfinished dependencies
  // from the earliest one must come back to a node already visited.
  std::vector<int> path;
  std::vector<int> positionInPath(n, -1);
  int current = static_cast<int>(std::find_if(missing.begin(), missing.end(), [](int m) { return m > 0; }) - missing.begin());
  while (positionInPath[static_cast<std::size_t>(current)] < 0) {
    positionInPath[static_cast<std::size_t>(current)] = static_cast<int>(path.size());
    path.push_back(current);
    for (int d : deps[static_cast<std::size_t>(current)])
      if (missing[static_cast<std::size_t>(d)] > 0) {
        current = d;
        break;
      }
  }
  // path runs against the data flow (reader -> producer); the cycle is its tail, reversed.
  std::vector<int> cycle(path.begin() + positionInPath[static_cast<std::size_t>(current)], path.end());
  std::reverse(cycle.begin(), cycle.end());
  // Start the cycle at its earliest node so the message is the same however it was found.
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
  result.order.clear();
  result.cycle = std::move(cycle);
  return result;
}

}  // namespace eindecomp
