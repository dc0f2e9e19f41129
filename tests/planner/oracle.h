// The planner's costs written again, independently of planner/cost and planner/placement,
// for the brute-force tests: SPEC 3 (the paper model) formula by formula, and SPEC 3.1
// (traffic, time) by simulating the canonical placement element by element — every
// element each rank's kernel call reads, where it lives, who sends it. Its own partition
// enumeration and an exhaustive search over every combination of node partitions (with
// per-edge tables, so the search only adds numbers).
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "planner/graph/graph.h"

namespace eindecomp::testing {

enum class OracleObjective { Paper, Traffic, Time };

// The machine of the time tests (the same numbers go into a planner Machine).
struct OracleMachine {
  double latency = 2e-6, bandwidth = 1e9, flops = 1e10, memory = 5e9;
};

struct OracleNode {
  std::vector<std::string> labels;         // distinct labels, operands then output
  std::vector<int64_t> sizes;
  std::vector<std::vector<int>> operands;  // per operand dimension: label position
  std::vector<int> output;
  std::vector<int> producer;               // per operand: producing node or -1
  bool gemm = false;                       // join mul over two operands with a summed shared label
};

using Partition = std::vector<int64_t>;

inline int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

inline std::vector<int64_t> pick(const std::vector<int>& dims, const std::vector<int64_t>& v) {
  std::vector<int64_t> out;
  for (int x : dims) out.push_back(v[static_cast<std::size_t>(x)]);
  return out;
}

inline std::vector<OracleNode> oracleGraph(const Graph& g) {
  std::vector<OracleNode> out;
  for (const Node& n : g.nodes) {
    OracleNode o;
    auto pos = [&](const std::string& l) {
      auto it = std::find(o.labels.begin(), o.labels.end(), l);
      if (it != o.labels.end()) return static_cast<int>(it - o.labels.begin());
      o.labels.push_back(l);
      o.sizes.push_back(n.labelSizes.at(l));
      return static_cast<int>(o.labels.size() - 1);
    };
    for (const auto& ls : n.operandLabels) {
      std::vector<int> dims;
      for (const auto& l : ls) dims.push_back(pos(l));
      o.operands.push_back(dims);
    }
    for (const auto& l : n.outputLabels) o.output.push_back(pos(l));
    for (const auto& in : n.inputs) {
      int idx = -1;
      for (std::size_t j = 0; j < g.nodes.size(); ++j)
        if (g.nodes[j].name == in) idx = static_cast<int>(j);
      o.producer.push_back(idx);
    }
    if (o.operands.size() == 2 && n.join.kind == Expr::Kind::Mul)
      for (int l : o.operands[0])
        if (std::count(o.operands[1].begin(), o.operands[1].end(), l) &&
            !std::count(o.output.begin(), o.output.end(), l))
          o.gemm = true;
    out.push_back(o);
  }
  return out;
}

// All divisor tuples with product p, else with the largest product below p.
inline std::vector<Partition> oraclePartitions(const std::vector<int64_t>& sizes, int64_t p) {
  std::map<int64_t, std::vector<Partition>> byProduct;
  Partition d(sizes.size(), 1);
  std::function<void(std::size_t, int64_t)> walk = [&](std::size_t i, int64_t prod) {
    if (prod > p) return;
    if (i == sizes.size()) {
      byProduct[prod].push_back(d);
      return;
    }
    for (int64_t x = 1; x <= sizes[i]; ++x)
      if (sizes[i] % x == 0) {
        d[i] = x;
        walk(i + 1, prod * x);
      }
  };
  walk(0, 1);
  return byProduct.rbegin()->second;
}

// ---- SPEC 3, the paper model ----

inline int64_t paperLocal(const OracleNode& n, const Partition& d) {
  const int64_t q = product(d);
  auto block = [&](const std::vector<int>& dims) {
    int64_t e = 1;
    for (int x : dims) e *= n.sizes[static_cast<std::size_t>(x)] / d[static_cast<std::size_t>(x)];
    return e;
  };
  const int64_t nX = block(n.operands[0]), nY = n.operands.size() > 1 ? block(n.operands[1]) : 0, nZ = block(n.output);
  int64_t nAgg = 1;
  for (std::size_t l = 0; l < n.labels.size(); ++l)
    if (!std::count(n.output.begin(), n.output.end(), static_cast<int>(l))) nAgg *= d[l];
  return q * (nX + nY) + q / nAgg * (nAgg - 1) * nZ;
}

inline int64_t paperRepart(const std::vector<int64_t>& b, const Partition& dP, const Partition& dC) {
  __int128 nP = 1, nC = 1, nI = 1, n = 1;
  for (std::size_t k = 0; k < b.size(); ++k) {
    nP *= b[k] / dP[k];
    nC *= b[k] / dC[k];
    nI *= std::min(b[k] / dP[k], b[k] / dC[k]);
    n *= b[k];
  }
  const __int128 first = (nC - nI) * (n / nC) * (nC + nP) / nI;
  const __int128 second = nP != nI ? nP * (n / nC) : 0;
  return static_cast<int64_t>(first + second);
}

// ---- SPEC 3.1 under the canonical placement, simulated element by element ----

// The call at `cell` writes output block b (row-major over the output labels) and has
// aggregation coordinate a (row-major over the other labels): it runs on rank a * blocks + b.
inline int oracleRank(const OracleNode& n, const Partition& d, const std::vector<int64_t>& cell) {
  int64_t b = 0, a = 0, blocks = 1;
  for (int l : n.output) {
    b = b * d[static_cast<std::size_t>(l)] + cell[static_cast<std::size_t>(l)];
    blocks *= d[static_cast<std::size_t>(l)];
  }
  for (std::size_t l = 0; l < n.labels.size(); ++l)
    if (!std::count(n.output.begin(), n.output.end(), static_cast<int>(l))) a = a * d[l] + cell[l];
  return static_cast<int>(a * blocks + b);
}

inline std::vector<std::vector<int64_t>> cellsOf(const Partition& d) {
  std::vector<std::vector<int64_t>> cells{{}};
  for (int64_t parts : d) {
    std::vector<std::vector<int64_t>> next;
    for (const auto& c : cells)
      for (int64_t i = 0; i < parts; ++i) {
        next.push_back(c);
        next.back().push_back(i);
      }
    cells = std::move(next);
  }
  return cells;
}

struct PhaseStats {
  int64_t elements = 0, busiestElements = 0, busiestMessages = 0;
};

struct Tally {
  explicit Tally(int64_t p) : sent(static_cast<std::size_t>(p)), received(static_cast<std::size_t>(p)) {}
  std::vector<int64_t> sent, received;
  std::set<std::pair<int, int>> pairs;
  PhaseStats stats;
  void add(int from, int to, int64_t elements) {
    stats.elements += elements;
    sent[static_cast<std::size_t>(from)] += elements;
    received[static_cast<std::size_t>(to)] += elements;
    pairs.insert({from, to});
  }
  PhaseStats finish() {
    std::vector<int64_t> messages(sent.size(), 0);
    for (const auto& [from, to] : pairs) ++messages[static_cast<std::size_t>(from)], ++messages[static_cast<std::size_t>(to)];
    for (std::size_t r = 0; r < sent.size(); ++r)
      stats.busiestElements = std::max({stats.busiestElements, sent[r], received[r]}),
      stats.busiestMessages = std::max(stats.busiestMessages, messages[r]);
    return stats;
  }
};

// Operand k of node v (partition dV) reading node u's output (partition dU): every element
// of every operand block a rank's calls read, once per rank, sent by its owner when
// another rank (the owner of producer block b is rank b).
inline PhaseStats edgeTraffic(const OracleNode& u, const Partition& dU, const OracleNode& v, const Partition& dV, std::size_t k,
                              int64_t p) {
  const std::vector<int64_t> bounds = pick(v.operands[k], v.sizes);
  const Partition producerParts = pick(u.output, dU), consumerParts = pick(v.operands[k], dV);
  std::set<std::pair<int, std::vector<int64_t>>> reads;  // (rank, consumer block coordinates)
  for (const auto& cell : cellsOf(dV)) reads.insert({oracleRank(v, dV, cell), pick(v.operands[k], cell)});
  Tally tally(p);
  for (const auto& [rank, block] : reads)
    for (const auto& inBlock : cellsOf([&] {
           std::vector<int64_t> extent;
           for (std::size_t x = 0; x < bounds.size(); ++x) extent.push_back(bounds[x] / consumerParts[x]);
           return extent;
         }())) {
      int64_t owner = 0;  // the producer block holding this element, row-major
      for (std::size_t x = 0; x < bounds.size(); ++x) {
        const int64_t element = block[x] * (bounds[x] / consumerParts[x]) + inBlock[x];
        owner = owner * producerParts[x] + element / (bounds[x] / producerParts[x]);
      }
      if (owner != rank) tally.add(static_cast<int>(owner), rank, 1);
    }
  return tally.finish();
}

// Every rank holding a partial result of an output block, other than the block's owner
// (rank = block number), sends it the whole block.
inline PhaseStats aggregationTraffic(const OracleNode& n, const Partition& d, int64_t p) {
  std::map<int64_t, std::set<int>> holders;
  int64_t blockElements = 1;
  for (int l : n.output) blockElements *= n.sizes[static_cast<std::size_t>(l)] / d[static_cast<std::size_t>(l)];
  for (const auto& cell : cellsOf(d)) {
    int64_t b = 0;
    for (int l : n.output) b = b * d[static_cast<std::size_t>(l)] + cell[static_cast<std::size_t>(l)];
    holders[b].insert(oracleRank(n, d, cell));
  }
  Tally tally(p);
  for (const auto& [block, ranks] : holders)
    for (int r : ranks)
      if (r != block) tally.add(r, static_cast<int>(block), blockElements);
  return tally.finish();
}

inline int64_t picoseconds(double seconds) { return static_cast<int64_t>(std::llround(seconds * 1e12)); }

inline int64_t phasePs(const OracleMachine& m, const PhaseStats& s, int64_t bytes) {
  if (s.elements == 0) return 0;
  return picoseconds(m.latency * static_cast<double>(s.busiestMessages) +
                     static_cast<double>(s.busiestElements) * static_cast<double>(bytes) / m.bandwidth);
}

inline int64_t computePs(const OracleMachine& m, const OracleNode& n, const Partition& d, int64_t bytes) {
  const int64_t q = product(d);
  bool aggregates = false;
  for (std::size_t l = 0; l < n.labels.size(); ++l)
    aggregates = aggregates || !std::count(n.output.begin(), n.output.end(), static_cast<int>(l));
  const int64_t flops =
      product(n.sizes) * (std::max<int64_t>(1, static_cast<int64_t>(n.operands.size()) - 1) + (aggregates ? 1 : 0)) / q;
  if (n.gemm) return picoseconds(1.0 * static_cast<double>(flops) / m.flops);
  int64_t elements = 0;
  for (const auto& dims : n.operands) elements += product(pick(dims, n.sizes)) / product(pick(dims, d));
  elements += product(pick(n.output, n.sizes)) / product(pick(n.output, d));
  return picoseconds(1.0 * static_cast<double>(elements) * static_cast<double>(bytes) / m.memory);
}

struct Oracle {
  std::vector<OracleNode> nodes;
  int64_t p = 1;
  OracleObjective objective = OracleObjective::Paper;
  OracleMachine machine;
  int64_t bytes = 4;  // f32

  int64_t local(std::size_t v, const Partition& d) const {
    switch (objective) {
      case OracleObjective::Paper: return paperLocal(nodes[v], d);
      case OracleObjective::Traffic: return aggregationTraffic(nodes[v], d, p).elements * bytes;
      case OracleObjective::Time: return computePs(machine, nodes[v], d, bytes) + phasePs(machine, aggregationTraffic(nodes[v], d, p), bytes);
    }
    return 0;
  }
  int64_t edge(std::size_t v, std::size_t k, const Partition& dU, const Partition& dV) const {
    const OracleNode& u = nodes[static_cast<std::size_t>(nodes[v].producer[k])];
    switch (objective) {
      case OracleObjective::Paper: return paperRepart(pick(nodes[v].operands[k], nodes[v].sizes), pick(u.output, dU), pick(nodes[v].operands[k], dV));
      case OracleObjective::Traffic: return edgeTraffic(u, dU, nodes[v], dV, k, p).elements * bytes;
      case OracleObjective::Time: return phasePs(machine, edgeTraffic(u, dU, nodes[v], dV, k, p), bytes);
    }
    return 0;
  }
  int64_t total(const std::vector<Partition>& d) const {
    int64_t t = 0;
    for (std::size_t v = 0; v < nodes.size(); ++v) {
      t += local(v, d[v]);
      for (std::size_t k = 0; k < nodes[v].operands.size(); ++k)
        if (nodes[v].producer[k] >= 0) t += edge(v, k, d[static_cast<std::size_t>(nodes[v].producer[k])], d[v]);
    }
    return t;
  }
  double combinations() const {
    double c = 1;
    for (const auto& n : nodes) c *= static_cast<double>(oraclePartitions(n.sizes, p).size());
    return c;
  }
  // The minimum of total() over every combination of candidate partitions.
  int64_t best() const {
    std::vector<std::vector<Partition>> cands;
    for (const auto& n : nodes) cands.push_back(oraclePartitions(n.sizes, p));
    std::vector<std::vector<int64_t>> locals(nodes.size());
    std::map<std::tuple<std::size_t, std::size_t, std::size_t, std::size_t>, int64_t> edges;  // (v, k, iu, iv)
    for (std::size_t v = 0; v < nodes.size(); ++v) {
      for (const auto& d : cands[v]) locals[v].push_back(local(v, d));
      for (std::size_t k = 0; k < nodes[v].operands.size(); ++k) {
        const int u = nodes[v].producer[k];
        if (u < 0) continue;
        for (std::size_t iu = 0; iu < cands[static_cast<std::size_t>(u)].size(); ++iu)
          for (std::size_t iv = 0; iv < cands[v].size(); ++iv)
            edges[{v, k, iu, iv}] = edge(v, k, cands[static_cast<std::size_t>(u)][iu], cands[v][iv]);
      }
    }
    std::vector<std::size_t> idx(nodes.size(), 0);
    int64_t best = -1;
    for (;;) {
      int64_t t = 0;
      for (std::size_t v = 0; v < nodes.size(); ++v) {
        t += locals[v][idx[v]];
        for (std::size_t k = 0; k < nodes[v].operands.size(); ++k)
          if (nodes[v].producer[k] >= 0) t += edges.at({v, k, idx[static_cast<std::size_t>(nodes[v].producer[k])], idx[v]});
      }
      if (best < 0 || t < best) best = t;
      std::size_t v = 0;
      for (; v < nodes.size(); ++v) {
        if (++idx[v] < cands[v].size()) break;
        idx[v] = 0;
      }
      if (v == nodes.size()) break;
    }
    return best;
  }
};

}  // namespace eindecomp::testing
