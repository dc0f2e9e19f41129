#include "planner/algorithms/block_solver.h"

#include <algorithm>
#include <future>
#include <limits>

#include "planner/cost/checked_math.h"

namespace eindecomp {

namespace {

constexpr int64_t kUnreachable = std::numeric_limits<int64_t>::max();

// Columns of an edge whose costs are mostly not known yet are shared with a second thread
// from this many on (each cost a pass over the ranks: the first search of a large model
// spends most of its time here, beside a flat plan's search that has often finished).
constexpr std::size_t kColumnsForTwoThreads = 64;

// For every consumer layout j of tree edge e: the producer layout z minimizing
// table(z) + cost(z, j) (the lowest among equal sums), into arg[j] and incoming[j]. `sorted`:
// the producer's (table, layout), ascending by table. Producer layouts in that order: an
// edge costs at least 0, so once a table alone reaches the best sum found, no later
// layout can beat it (an equal sum wins only from a lower layout index, as in a scan by
// index), and the edge costs beyond it are never computed; nor is that of a layout
// whose table plus a floor under its edge cost (knownEdgeCost) cannot beat the best sum
// found, which leaves the same minimum and the same layout. Each column's cached costs
// are read through one pointer: this loop is most of a search once the costs are known.
void solveColumns(SearchSpace& s, const SearchEdge& e, const std::vector<std::pair<int64_t, int>>& sorted, std::vector<int>& arg,
                  std::vector<int64_t>& incoming) {
  EdgeMatrix& matrix = s.matrices[static_cast<std::size_t>(e.matrix)];
  const std::size_t layouts = incoming.size();
  auto column = [&](std::size_t j) {
    int64_t b = kUnreachable;
    int best = -1;
    const int64_t* cost = matrix.cost.empty() ? nullptr : matrix.cost.data() + j * matrix.rows->size();
    for (const auto& [table, z] : sorted) {
      if (table > b || (table == b && z > best)) break;
      int64_t price = cost ? cost[z] : -1;  // cached (or a floor's cell: below -1)
      if (price < 0) {
        if (best >= 0) {  // first the floors: they settle most pairs
          auto loses = [&](int64_t floor) {
            const int64_t least = checkedAdd(table, floor, "plan cost");
            return least > b || (least == b && z > best);
          };
          // The cell's floor as read (knownEdgeCost's, without reading the cell again: the
          // scan meets 1.5 billion pairs on LLaMA-65B under --mem-limit), or the first.
          const bool floorKept = price <= -2, tightKept = floorKept && (-2 - price) % 2 == 1;
          if (loses(floorKept ? (-2 - price) / 2 : firstEdgeFloor(s, e, z, static_cast<int>(j)))) continue;
          if (!tightKept && loses(tightEdgeFloor(s, e, z, static_cast<int>(j)))) continue;
        }
        price = uncachedEdgeCost(s, e, z, static_cast<int>(j));
      }
      const int64_t cand = checkedAdd(table, price, "plan cost");
      if (cand < b || (cand == b && z < best)) {
        b = cand;
        best = z;
      }
    }
    arg[j] = best;
    incoming[j] = b;
  };
  std::size_t unknown = 0;  // columns whose cheapest producer layout's cost is not known
  if (!sorted.empty() && !matrix.cost.empty())
    for (std::size_t j = 0; j < layouts; ++j) unknown += matrix.cell(sorted[0].second, static_cast<int>(j)) < 0 ? 1 : 0;
  if (unknown < kColumnsForTwoThreads || !prepareConcurrentEdgeCosts(s, e)) {
    for (std::size_t j = 0; j < layouts; ++j) column(j);
    return;
  }
  // Odd columns on a second thread: each column writes its own cells and results only.
  // (Should the even ones throw, the future waits for the odd ones as it goes.)
  std::future<void> odd = std::async(std::launch::async, [&] {
    for (std::size_t j = 1; j < layouts; j += 2) column(j);
  });
  for (std::size_t j = 0; j < layouts; j += 2) column(j);
  odd.get();
}

// solveColumns, answered from the matrix's remembered answers where the tables are equal.
void bestProducers(SearchSpace& s, const SearchEdge& e, const std::vector<std::pair<int64_t, int>>& sorted, std::vector<int>& arg,
                   std::vector<int64_t>& incoming) {
  std::vector<EdgeMatrix::Answer>& answers = s.matrices[static_cast<std::size_t>(e.matrix)].answers;
  for (std::size_t a = answers.size(); a-- > 0;) {
    if (answers[a].sorted != sorted) continue;
    arg = answers[a].arg;
    incoming = answers[a].incoming;
    std::rotate(answers.begin() + static_cast<std::ptrdiff_t>(a), answers.begin() + static_cast<std::ptrdiff_t>(a) + 1, answers.end());
    return;
  }
  solveColumns(s, e, sorted, arg, incoming);
  if (answers.size() == kRememberedAnswers) answers.erase(answers.begin());
  answers.push_back({sorted, arg, incoming});
}

}  // namespace

Block emptyBlock(std::size_t nodeCount) {
  Block b;
  b.free.assign(nodeCount, 0);
  b.treeEdge.assign(nodeCount, -1);
  b.requiredOut.assign(nodeCount, -1);
  return b;
}

void solveBlock(SearchSpace& s, const Block& block, std::vector<int>& choice) {
  const std::size_t n = s.nodes.size();
  BlockSolverTables& tables = s.solverTables;  // every entry read below is written first
  tables.best.resize(n);
  tables.bestOut.resize(n);
  tables.argOut.resize(n);
  tables.argProducer.resize(s.edges.size());
  std::vector<std::vector<int64_t>>& best = tables.best;        // M[v, c]
  std::vector<std::vector<int64_t>>& bestOut = tables.bestOut;  // Mout[v, z]
  std::vector<std::vector<int>>& argOut = tables.argOut;        // candidate achieving Mout[v, z]
  std::vector<std::vector<int>>& argProducer = tables.argProducer;  // tree edge: producer layout z per consumer layout
  std::vector<int64_t>& incoming = tables.incoming;
  std::vector<std::pair<int64_t, int>>& sorted = tables.sorted;  // a producer's (table, output layout), ascending
  for (std::size_t v = 0; v < n; ++v) {
    if (!block.free[v]) continue;
    NodeCandidates& node = *s.nodes[v];
    const std::size_t count = node.parts.size();
    std::vector<int64_t>& m = best[v];
    m.assign(count, 0);
    for (std::size_t c = 0; c < count; ++c)
      m[c] = block.requiredOut[v] >= 0 && node.outIndex[c] != block.requiredOut[v] ? kUnreachable : node.local[c];
    for (int ei : s.inEdges[v]) {
      const SearchEdge& e = s.edges[ei];
      const std::vector<int>& layoutOf = node.operandIndex[e.operand];
      const std::size_t layouts = node.operandSides[e.operand].size();
      incoming.assign(layouts, 0);
      if (block.free[e.from] && block.treeEdge[e.from] == ei) {
        // The producer's table flows in: best producer layout for each consumer layout
        // (bestProducers), from its layouts in ascending order of their tables.
        std::vector<int>& arg = argProducer[ei];
        arg.assign(layouts, -1);
        const std::vector<int64_t>& producer = bestOut[e.from];
        sorted.clear();
        for (std::size_t z = 0; z < producer.size(); ++z)
          if (producer[z] != kUnreachable) sorted.emplace_back(producer[z], static_cast<int>(z));
        std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        bestProducers(s, e, sorted, arg, incoming);
      } else {
        int known = -1;
        if (!block.free[e.from] && choice[e.from] >= 0) known = s.nodes[e.from]->outIndex[choice[e.from]];
        if (block.free[e.from] && block.requiredOut[e.from] >= 0) known = block.requiredOut[e.from];
        if (known < 0 || (!block.free[e.from] && !block.chargeEdgesOutside)) continue;
        for (std::size_t j = 0; j < layouts; ++j) incoming[j] = edgeCost(s, e, known, static_cast<int>(j));
      }
      for (std::size_t c = 0; c < count; ++c) {
        if (m[c] == kUnreachable) continue;
        int64_t add = incoming[layoutOf[c]];
        m[c] = add == kUnreachable ? kUnreachable : checkedAdd(m[c], add, "plan cost");
      }
    }
    if (block.chargeEdgesOutside) {
      for (int ei : s.outEdges[v]) {
        const SearchEdge& e = s.edges[ei];
        if (block.free[e.to] || choice[e.to] < 0) continue;
        int in = s.nodes[e.to]->operandIndex[e.operand][choice[e.to]];
        for (std::size_t c = 0; c < count; ++c)
          if (m[c] != kUnreachable) m[c] = checkedAdd(m[c], edgeCost(s, e, node.outIndex[c], in), "plan cost");
      }
    }
    bestOut[v].assign(node.outs.size(), kUnreachable);
    argOut[v].assign(node.outs.size(), -1);
    for (std::size_t c = 0; c < count; ++c) {
      int z = node.outIndex[c];
      if (m[c] < bestOut[v][z]) {
        bestOut[v][z] = m[c];
        argOut[v][z] = static_cast<int>(c);
      }
    }
  }
  // Backtrack from the roots (free nodes without a tree edge), consumers before producers.
  for (std::size_t r = n; r-- > 0;) {
    if (!block.free[r]) continue;
    int ei = block.treeEdge[r];
    if (ei < 0) {
      int arg = -1;
      for (std::size_t c = 0; c < best[r].size(); ++c)
        if (best[r][c] != kUnreachable && (arg < 0 || best[r][c] < best[r][arg])) arg = static_cast<int>(c);
      choice[r] = arg;
      continue;
    }
    const SearchEdge& e = s.edges[ei];
    int j = s.nodes[e.to]->operandIndex[e.operand][choice[e.to]];
    choice[r] = argOut[r][argProducer[ei][j]];
  }
}

}  // namespace eindecomp
