#include "planner/paths/hypergraph_bisection.h"

#include <algorithm>
#include <array>

namespace eindecomp {

int64_t fixedPointLog2(uint64_t x) {
  const int whole = 63 - __builtin_clzll(x);
  // x / 2^whole in [1, 2) with 62 fractional bits; squaring doubles the exponent, so each
  // square that reaches 2 is one more fractional bit of the logarithm.
  unsigned __int128 y = whole <= 62 ? static_cast<unsigned __int128>(x) << (62 - whole) : x >> 1;
  int64_t fraction = 0;
  const unsigned __int128 two = static_cast<unsigned __int128>(1) << 63;
  for (int bit = 7; bit >= 0; --bit) {
    y = (y * y) >> 62;
    if (y >= two) {
      y >>= 1;
      fraction |= int64_t{1} << bit;
    }
  }
  return int64_t{whole} * 256 + fraction;
}

int64_t cutWeight(const Hypergraph& h, const std::vector<int>& side) {
  int64_t cut = 0;
  for (std::size_t e = 0; e < h.edges.size(); ++e) {
    bool zero = false, one = false;
    for (int v : h.edges[e]) (side[v] ? one : zero) = true;
    if (zero && one) cut += h.weights[e];
  }
  return cut;
}

namespace {

class Bisection {
 public:
  Bisection(const Hypergraph& h, int maxPart, PathRandom& random)
      : h_(h), maxPart_(maxPart), random_(random), incident_(h.vertices), pins_(h.edges.size()) {
    for (std::size_t e = 0; e < h.edges.size(); ++e)
      for (int v : h.edges[e]) incident_[v].push_back(static_cast<int>(e));
  }

  // One start: grow side 0 from a random vertex to half the vertices, then refine.
  std::vector<int> run() {
    const int n = h_.vertices;
    priority_.resize(n);
    for (auto& p : priority_) p = random_.next();
    side_.assign(n, 1);
    count_ = {0, n};
    for (auto& p : pins_) p = {0, 0};
    for (std::size_t e = 0; e < h_.edges.size(); ++e) pins_[e][1] = static_cast<int>(h_.edges[e].size());
    move(static_cast<int>(random_.below(n)));
    const std::vector<bool> none(n, false);
    while (count_[0] < n / 2) move(bestVertex(1, none));
    for (int pass = 0; pass < 12 && refine(); ++pass) {
    }
    return side_;
  }

 private:
  // The cut's decrease when v changes sides.
  int64_t gain(int v) const {
    const int from = side_[v], to = 1 - from;
    int64_t g = 0;
    for (int e : incident_[v]) {
      if (pins_[e][from] == 1) g += h_.weights[e];   // v was the last on its side: e leaves the cut
      if (pins_[e][to] == 0) g -= h_.weights[e];     // e was all on v's side: e enters the cut
    }
    return g;
  }

  void move(int v) {
    const int from = side_[v], to = 1 - from;
    for (int e : incident_[v]) {
      --pins_[e][from];
      ++pins_[e][to];
    }
    side_[v] = to;
    --count_[from];
    ++count_[to];
  }

  // The unlocked vertex on `from` with the largest gain (ties: random priority); -1 if none.
  int bestVertex(int from, const std::vector<bool>& locked) const {
    int best = -1;
    int64_t bestGain = 0;
    for (int v = 0; v < h_.vertices; ++v) {
      if (side_[v] != from || locked[v]) continue;
      const int64_t g = gain(v);
      if (best < 0 || g > bestGain || (g == bestGain && priority_[v] > priority_[best])) {
        best = v;
        bestGain = g;
      }
    }
    return best;
  }

  // One Fiduccia–Mattheyses pass; true when it lowered the cut.
  bool refine() {
    const int n = h_.vertices;
    std::vector<bool> locked(n, false);
    std::vector<int> moves;
    int64_t cut = 0, bestCut = 0;
    std::size_t bestPrefix = 0;
    for (int step = 0; step < n; ++step) {
      // Either side may give a vertex if it keeps a vertex and the other stays within bound.
      int pick = -1;
      int64_t pickGain = 0;
      for (int from = 0; from < 2; ++from) {
        if (count_[from] <= 1 || count_[1 - from] >= maxPart_) continue;
        const int v = bestVertex(from, locked);
        if (v < 0) continue;
        const int64_t g = gain(v);
        if (pick < 0 || g > pickGain || (g == pickGain && priority_[v] > priority_[pick])) {
          pick = v;
          pickGain = g;
        }
      }
      if (pick < 0) break;
      move(pick);
      locked[pick] = true;
      moves.push_back(pick);
      cut -= pickGain;
      if (cut < bestCut) {
        bestCut = cut;
        bestPrefix = moves.size();
      }
    }
    while (moves.size() > bestPrefix) {
      move(moves.back());
      moves.pop_back();
    }
    return bestCut < 0;
  }

  const Hypergraph& h_;
  int maxPart_;
  PathRandom& random_;
  std::vector<std::vector<int>> incident_;   // edges of each vertex
  std::vector<std::array<int, 2>> pins_;     // per edge: vertices on side 0 and side 1
  std::vector<int> side_;
  std::array<int, 2> count_{};
  std::vector<uint64_t> priority_;
};

}  // namespace

std::vector<int> bisectHypergraph(const Hypergraph& h, int maxPart, int starts, PathRandom& random) {
  Bisection b(h, maxPart, random);
  std::vector<int> best;
  int64_t bestCut = 0;
  for (int s = 0; s < std::max(starts, 1); ++s) {
    std::vector<int> side = b.run();
    const int64_t cut = cutWeight(h, side);
    if (best.empty() || cut < bestCut) {
      best = std::move(side);
      bestCut = cut;
    }
  }
  return best;
}

}  // namespace eindecomp
