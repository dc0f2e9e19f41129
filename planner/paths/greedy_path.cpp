#include "planner/paths/greedy_path.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <queue>
#include <tuple>

#include "planner/paths/label_bits.h"

namespace eindecomp {

namespace {

// greedyPath's rule for many operands: candidate pairs are the pairs of live tensors that
// share a label (found through each label's holders), kept in a min-heap by (FLOPs, result
// size, left, right); a popped pair whose tensors are gone is dropped, one whose score
// changed (a third holder of a label went away) is pushed again with its new score.
ContractionPath largeGreedyPath(const ContractionProblem& p) {
  const int n = static_cast<int>(p.operands.size());
  const int labelCount = static_cast<int>(p.sizes.size());
  const int words = wordsForLabels(p.sizes.size());
  std::vector<std::vector<uint64_t>> labels;  // by SSA id
  std::vector<bool> alive;
  std::vector<std::vector<int>> holders(static_cast<std::size_t>(labelCount));  // live SSA ids per label (may hold dead ones)
  std::vector<int> holderCount(static_cast<std::size_t>(labelCount), 0);
  for (int i = 0; i < n; ++i) {
    labels.emplace_back(static_cast<std::size_t>(words), 0);
    setBits(labels.back().data(), p.operands[static_cast<std::size_t>(i)]);
    alive.push_back(true);
    for (int l : labelsOf(labels.back().data(), words)) {
      holders[static_cast<std::size_t>(l)].push_back(i);
      ++holderCount[static_cast<std::size_t>(l)];
    }
  }
  std::vector<uint64_t> out(static_cast<std::size_t>(words), 0);
  setBits(out.data(), p.output);
  int liveCount = n;
  std::vector<uint64_t> scratch(static_cast<std::size_t>(words));
  auto resultOf = [&](int a, int b, std::vector<uint64_t>& dst) {
    dst.assign(static_cast<std::size_t>(words), 0);
    if (liveCount == 2) {
      dst = out;
      return;
    }
    for (int w = 0; w < words; ++w)
      for (uint64_t bits = labels[static_cast<std::size_t>(a)][static_cast<std::size_t>(w)] | labels[static_cast<std::size_t>(b)][static_cast<std::size_t>(w)]; bits; bits &= bits - 1) {
        const int l = w * 64 + __builtin_ctzll(bits);
        const int elsewhere = holderCount[static_cast<std::size_t>(l)] - (hasBit(labels[static_cast<std::size_t>(a)].data(), l) ? 1 : 0) -
                              (hasBit(labels[static_cast<std::size_t>(b)].data(), l) ? 1 : 0);
        if (elsewhere > 0 || hasBit(out.data(), l)) dst[static_cast<std::size_t>(w)] |= uint64_t{1} << (l % 64);
      }
  };
  struct Pair {
    FlopCount flops, size;
    int a, b;
    bool operator>(const Pair& o) const { return std::tie(flops, size, a, b) > std::tie(o.flops, o.size, o.a, o.b); }
  };
  std::priority_queue<Pair, std::vector<Pair>, std::greater<Pair>> heap;
  std::vector<uint64_t> result;
  auto score = [&](int a, int b) {
    resultOf(a, b, result);
    return Pair{stepFlops(labels[static_cast<std::size_t>(a)].data(), labels[static_cast<std::size_t>(b)].data(), result.data(), words, p.sizes, scratch),
                productOfSizes(result.data(), words, p.sizes), std::min(a, b), std::max(a, b)};
  };
  // Pairs of `t` with every live tensor sharing one of its labels (a label held by very
  // many tensors adds no pairs: its holders meet through their other labels or at the end).
  constexpr std::size_t kMaxHoldersPaired = 64;
  auto pushNeighbours = [&](int t) {
    std::vector<int> seen;
    for (int l : labelsOf(labels[static_cast<std::size_t>(t)].data(), words)) {
      if (static_cast<std::size_t>(holderCount[static_cast<std::size_t>(l)]) > kMaxHoldersPaired) continue;
      for (int o : holders[static_cast<std::size_t>(l)])
        if (o != t && alive[static_cast<std::size_t>(o)] && std::find(seen.begin(), seen.end(), o) == seen.end()) {
          seen.push_back(o);
          heap.push(score(t, o));
        }
    }
  };
  for (int i = 0; i < n; ++i) pushNeighbours(i);
  ContractionPath path;
  while (liveCount > 1) {
    std::optional<Pair> best;
    while (!heap.empty()) {
      const Pair top = heap.top();
      heap.pop();
      if (!alive[static_cast<std::size_t>(top.a)] || !alive[static_cast<std::size_t>(top.b)]) continue;
      const Pair now = score(top.a, top.b);
      if (now.flops != top.flops || now.size != top.size) {
        heap.push(now);
        continue;
      }
      best = top;
      break;
    }
    if (!best) {
      // No pair shares a label: the two smallest live tensors (an outer product).
      int a = -1, b = -1;
      FlopCount sa = kFlopCountSaturated, sb = kFlopCountSaturated;
      for (int t = 0; t < static_cast<int>(alive.size()); ++t) {
        if (!alive[static_cast<std::size_t>(t)]) continue;
        const FlopCount s = productOfSizes(labels[static_cast<std::size_t>(t)].data(), words, p.sizes);
        if (s < sa) {
          b = a, sb = sa, a = t, sa = s;
        } else if (s < sb) {
          b = t, sb = s;
        }
      }
      best = score(a, b);
    }
    resultOf(best->a, best->b, result);
    PathStep step;
    step.left = best->a;
    step.right = best->b;
    step.result = labelsOf(result.data(), words);
    step.flops = best->flops;
    step.resultSize = best->size;
    path.steps.push_back(step);
    for (int t : {best->a, best->b}) {
      alive[static_cast<std::size_t>(t)] = false;
      for (int l : labelsOf(labels[static_cast<std::size_t>(t)].data(), words)) --holderCount[static_cast<std::size_t>(l)];
    }
    const int merged = static_cast<int>(labels.size());
    labels.push_back(result);
    alive.push_back(true);
    for (int l : step.result) {
      std::vector<int>& h = holders[static_cast<std::size_t>(l)];
      h.erase(std::remove_if(h.begin(), h.end(), [&](int o) { return !alive[static_cast<std::size_t>(o)]; }), h.end());
      h.push_back(merged);
      ++holderCount[static_cast<std::size_t>(l)];
    }
    --liveCount;
    pushNeighbours(merged);
  }
  finishPath(p, path);
  return path;
}

}  // namespace

ContractionPath greedyPath(const ContractionProblem& p) {
  validateProblem(p);
  const int n = static_cast<int>(p.operands.size());
  if (n > kLargeGreedyOperands) return largeGreedyPath(p);
  const int labelCount = static_cast<int>(p.sizes.size());
  const int words = wordsForLabels(p.sizes.size());
  ContractionPath path;
  if (n < 2) {
    finishPath(p, path);
    return path;
  }

  struct Live {
    int ssa;
    std::vector<uint64_t> labels;
  };
  std::vector<Live> live;
  std::vector<int> holders(labelCount, 0);  // how many live tensors carry each label
  for (int i = 0; i < n; ++i) {
    Live t{i, std::vector<uint64_t>(words, 0)};
    setBits(t.labels.data(), p.operands[i]);
    for (int l : labelsOf(t.labels.data(), words)) ++holders[l];
    live.push_back(std::move(t));
  }
  std::vector<uint64_t> out(words, 0);
  setBits(out.data(), p.output);

  std::vector<uint64_t> result(words), scratch(words);
  auto resultOf = [&](const Live& a, const Live& b, std::vector<uint64_t>& dst) {
    if (live.size() == 2) {
      dst = out;
      return;
    }
    std::fill(dst.begin(), dst.end(), 0);
    for (int w = 0; w < words; ++w)
      for (uint64_t bits = a.labels[w] | b.labels[w]; bits; bits &= bits - 1) {
        const int l = w * 64 + __builtin_ctzll(bits);
        const int elsewhere = holders[l] - (hasBit(a.labels.data(), l) ? 1 : 0) - (hasBit(b.labels.data(), l) ? 1 : 0);
        if (elsewhere > 0 || hasBit(out.data(), l)) dst[w] |= uint64_t{1} << (l % 64);
      }
  };

  int next = n;
  while (live.size() > 1) {
    bool anyShared = false;
    for (std::size_t i = 0; i < live.size() && !anyShared; ++i)
      for (std::size_t j = i + 1; j < live.size() && !anyShared; ++j)
        anyShared = intersects(live[i].labels.data(), live[j].labels.data(), words);

    std::size_t bestI = 0, bestJ = 1;
    FlopCount bestFlops = kFlopCountSaturated, bestSize = kFlopCountSaturated;
    bool found = false;
    for (std::size_t i = 0; i < live.size(); ++i)
      for (std::size_t j = i + 1; j < live.size(); ++j) {
        if (anyShared && !intersects(live[i].labels.data(), live[j].labels.data(), words)) continue;
        resultOf(live[i], live[j], result);
        const FlopCount flops = stepFlops(live[i].labels.data(), live[j].labels.data(), result.data(), words, p.sizes, scratch);
        const FlopCount size = productOfSizes(result.data(), words, p.sizes);
        if (!found || flops < bestFlops || (flops == bestFlops && size < bestSize)) {
          found = true;
          bestFlops = flops;
          bestSize = size;
          bestI = i;
          bestJ = j;
        }
      }

    resultOf(live[bestI], live[bestJ], result);
    PathStep step;
    step.left = live[bestI].ssa;
    step.right = live[bestJ].ssa;
    step.result = labelsOf(result.data(), words);
    step.flops = bestFlops;
    step.resultSize = bestSize;
    path.steps.push_back(step);

    for (int l : labelsOf(live[bestI].labels.data(), words)) --holders[l];
    for (int l : labelsOf(live[bestJ].labels.data(), words)) --holders[l];
    for (int l : step.result) ++holders[l];
    Live merged{next++, result};
    live.erase(live.begin() + static_cast<std::ptrdiff_t>(bestJ));
    live.erase(live.begin() + static_cast<std::ptrdiff_t>(bestI));
    live.push_back(std::move(merged));
  }
  finishPath(p, path);
  return path;
}

namespace {

// Scores are exact integers: 4 * size(result) - alphaQuarters * (size(a) + size(b)),
// sizes capped at 2^120 so the score fits a signed 128-bit integer. No floating point
// decides the order, so the same seed gives the same path everywhere.
using Score = __int128;

Score capped(FlopCount size) { return static_cast<Score>(std::min(size, FlopCount{1} << 120)); }

struct Candidate {
  Score score;
  int a, b;
  // The priority queue's top is the smallest score, then the lowest ids.
  bool operator<(const Candidate& o) const {
    if (score != o.score) return score > o.score;
    if (a != o.a) return a > o.a;
    return b > o.b;
  }
};

// 16 / ln 2 * 2^(step / 2): Boltzmann energies in the units PathRandom::boltzmann takes,
// per unit of relative score difference, for temperature 2^(-step / 2).
double inverseTemperature(int step) {
  double beta = 23.083120654223414;  // 16 / ln 2
  for (int i = 0; i < step / 2; ++i) beta *= 2.0;
  if (step % 2) beta *= 1.4142135623730951;
  return beta;
}

class SampledGreedy {
 public:
  SampledGreedy(const ContractionProblem& p, const GreedyParams& params, PathRandom& random)
      : p_(p), params_(params), random_(random), n_(static_cast<int>(p.operands.size())),
        words_(wordsForLabels(p.sizes.size())), tensors_(2 * static_cast<std::size_t>(n_), words_),
        size_(2 * n_, 0), alive_(2 * n_, false), holders_(p.sizes.size()), out_(words_, 0), scratch_(words_) {
    setBits(out_.data(), p.output);
    for (int i = 0; i < n_; ++i) {
      setBits(tensors_.at(i), p.operands[i]);
      size_[i] = productOfSizes(tensors_.at(i), words_, p.sizes);
      alive_[i] = true;
      for (int l : labelsOf(tensors_.at(i), words_)) holders_[l].push_back(i);
    }
    for (int i = 0; i < n_; ++i) considerNeighbours(i);
  }

  std::vector<std::pair<int, int>> run() {
    std::vector<std::pair<int, int>> merges;
    for (int next = n_; next < 2 * n_ - 1; ++next) {
      const auto [a, b] = choose();
      merges.push_back({a, b});
      merge(a, b, next);
    }
    return merges;
  }

 private:
  // The result of contracting a and b now: labels needed by another live tensor or the output.
  void resultOf(int a, int b, uint64_t* dst) const {
    const uint64_t* la = tensors_.at(a);
    const uint64_t* lb = tensors_.at(b);
    for (int w = 0; w < words_; ++w) {
      dst[w] = 0;
      for (uint64_t bits = la[w] | lb[w]; bits; bits &= bits - 1) {
        const int l = w * 64 + __builtin_ctzll(bits);
        const int elsewhere = static_cast<int>(holders_[l].size()) - (hasBit(la, l) ? 1 : 0) - (hasBit(lb, l) ? 1 : 0);
        if (elsewhere > 0 || hasBit(out_.data(), l)) dst[w] |= uint64_t{1} << (l % 64);
      }
    }
  }

  // Every live tensor of a higher id sharing a label with t becomes a candidate partner
  // (once, however many labels they share).
  void considerNeighbours(int t) {
    for (int l : labelsOf(tensors_.at(t), words_))
      for (int other : holders_[l])
        if (other > t && stamp_[other] != t) {
          stamp_[other] = t;
          consider(t, other);
        }
  }

  void consider(int a, int b) {
    if (a > b) std::swap(a, b);
    resultOf(a, b, scratch_.data());
    const Score score = 4 * capped(productOfSizes(scratch_.data(), words_, p_.sizes)) -
                        params_.alphaQuarters * (capped(size_[a]) + capped(size_[b]));
    queue_.push({score, a, b});
  }

  std::pair<int, int> choose() {
    std::vector<Candidate> pool;
    const std::size_t branches = params_.temperatureStep < 0 ? 1 : 8;
    while (!queue_.empty() && pool.size() < branches) {
      const Candidate c = queue_.top();
      queue_.pop();
      if (alive_[c.a] && alive_[c.b]) pool.push_back(c);
    }
    if (pool.empty()) return outerProduct();
    std::size_t pick = 0;
    if (pool.size() > 1) {
      const Score best = pool[0].score;
      const double scale = static_cast<double>(std::max<Score>(best < 0 ? -best : best, 1));
      const double beta = inverseTemperature(params_.temperatureStep);
      std::vector<int> energy;
      for (const auto& c : pool) {
        const double relative = static_cast<double>(c.score - best) / scale;
        const double e = relative * beta;
        energy.push_back(e >= 1023 ? 1023 : static_cast<int>(e));
      }
      pick = random_.boltzmann(energy);
    }
    for (std::size_t i = 0; i < pool.size(); ++i)
      if (i != pick) queue_.push(pool[i]);
    return {pool[pick].a, pool[pick].b};
  }

  // No live pair shares a label: the two smallest live tensors.
  std::pair<int, int> outerProduct() const {
    int a = -1, b = -1;
    for (int t = 0; t < 2 * n_; ++t) {
      if (!alive_[t]) continue;
      if (a < 0 || size_[t] < size_[a]) {
        b = a;
        a = t;
      } else if (b < 0 || size_[t] < size_[b]) {
        b = t;
      }
    }
    return {std::min(a, b), std::max(a, b)};
  }

  void merge(int a, int b, int c) {
    resultOf(a, b, tensors_.at(c));
    size_[c] = productOfSizes(tensors_.at(c), words_, p_.sizes);
    alive_[a] = alive_[b] = false;
    alive_[c] = true;
    for (int t : {a, b})
      for (int l : labelsOf(tensors_.at(t), words_)) {
        auto& ids = holders_[l];
        ids.erase(std::find(ids.begin(), ids.end(), t));
      }
    const std::vector<int> labels = labelsOf(tensors_.at(c), words_);
    for (int l : labels) holders_[l].push_back(c);
    for (int l : labels)
      for (int other : holders_[l])
        if (other != c && stamp_[other] != c) {
          stamp_[other] = c;
          consider(other, c);
        }
  }

  const ContractionProblem& p_;
  GreedyParams params_;
  PathRandom& random_;
  int n_;
  int words_;
  LabelSets tensors_;
  std::vector<FlopCount> size_;
  std::vector<bool> alive_;
  std::vector<std::vector<int>> holders_;  // live tensors carrying each label
  std::vector<uint64_t> out_, scratch_;
  std::vector<int> stamp_ = std::vector<int>(2 * n_, -1);  // the last tensor whose partners included it
  std::priority_queue<Candidate> queue_;
};

}  // namespace

ContractionPath sampledGreedyPath(const ContractionProblem& p, const GreedyParams& params, PathRandom& random) {
  validateProblem(p);
  if (p.operands.size() < 2) return pathFromMerges(p, {});
  SampledGreedy greedy(p, params, random);
  return pathFromMerges(p, greedy.run());
}

}  // namespace eindecomp
