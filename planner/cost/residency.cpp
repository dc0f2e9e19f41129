#include "planner/cost/residency.h"

#include <cstddef>

#include "planner/graph/graph_index.h"

namespace eindecomp {

std::vector<bool> resultsFromMemory(const Graph& g, const std::vector<double>& touchedBytes, double cacheBytes) {
  const std::size_t n = g.nodes.size();
  std::vector<bool> cold(n, false);
  if (cacheBytes <= 0) return cold;
  const GraphIndex index(g);
  std::vector<double> before(n + 1, 0.0);  // bytes touched by nodes 0..i-1
  for (std::size_t i = 0; i < n; ++i) before[i + 1] = before[i] + touchedBytes[i];
  for (std::size_t i = 0; i < n; ++i) {
    // The result's last reader (consumers come in node order), or the node itself.
    const std::vector<Use>& readers = index.consumers(g.nodes[i].name);
    const std::size_t lastReader = readers.empty() ? i : static_cast<std::size_t>(readers.back().node);
    // After the last reader to the iteration's end, then from its start up to the node.
    const double distance = (before[n] - before[lastReader + 1]) + before[i];
    cold[i] = distance > cacheBytes;
  }
  return cold;
}

}  // namespace eindecomp
