// The matched placement rule (placement.h): calls assigned to ranks so that as little
// operand data as possible is received, an element from another node weighing the
// ratio of the links' bandwidths, ties towards the canonical rank. Exact (the assignment
// problem) up to kExactAssignmentCalls calls, greedy beyond.
#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "planner/placement/assignment.h"
#include "planner/placement/placement.h"

namespace eindecomp {

namespace {

// Operand elements a call finds already on some ranks: (rank, elements) pairs in rank
// order (the owners of the producer blocks its operand blocks overlap: a few, or every
// rank where an operand is gathered whole).
using RankElements = std::vector<std::pair<int, int64_t>>;

int64_t elementsOn(const RankElements& list, int rank) {
  const auto it = std::lower_bound(list.begin(), list.end(), std::make_pair(rank, int64_t{0}),
                                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return it != list.end() && it->first == rank ? it->second : 0;
}

// What each call finds on each rank. Calls reading the same blocks of the produced
// operands find the same: they share one list (a gathered operand read by every call
// would otherwise cost calls x ranks). So do calls whose lists come out equal though they
// read different blocks: a producer cut only along a label its consumer reads whole gives
// every call the same share on every rank (LLaMA's rotary step on keys cut by sequence,
// 1,024 lists of 1,024 ranks at p = 1024, priced as one).
struct Benefits {
  std::vector<RankElements> lists;  // distinct
  std::vector<int> listOf;          // per call
  const RankElements& of(std::size_t call) const { return lists[static_cast<std::size_t>(listOf[call])]; }
};

// What a call's list is a function of: per produced operand and dimension, the producer
// coordinates its read interval meets and by how much (forEachOverlap walks their
// product). Reads at different coordinates often meet alike — an operand cut where its
// producer is not (LLaMA's keys read by heads from a producer cut by sequence) — and then
// share one list without walking their overlaps again. Each dimension's distinct
// (coordinate, overlap) lists get ids, each operand block the mixed-radix number of its
// dimensions' ids, and each call the number of its operands' (an integer per call: at
// p = 1024 a plan places millions of calls, and a key of its own per call was most of the
// placement's time).
class OverlapKeys {
 public:
  OverlapKeys(const CallGeometry& g, const std::vector<std::optional<ProducerBlocks>>& producers)
      : codes_(static_cast<std::size_t>(g.calls), 0) {
    int64_t distinct = 1;  // codes are below it
    for (std::size_t k = 0; k < producers.size(); ++k) {
      if (!producers[k]) continue;
      int64_t radix = 0;
      const std::vector<int64_t> blockCode = operandBlockCodes(g.operandGrid[k], producers[k]->grid, radix);
      if (distinct > std::numeric_limits<int64_t>::max() / radix) distinct = renumber();
      for (std::size_t c = 0; c < codes_.size(); ++c)
        codes_[c] = codes_[c] * radix + blockCode[static_cast<std::size_t>(g.operandBlock[k][c])];
      distinct *= radix;
    }
  }
  // Equal for calls whose reads meet their producers alike.
  int64_t of(std::size_t call) const { return codes_[call]; }

 private:
  // Per block of `to`: the number of its per-dimension overlap ids (mixed radix, below
  // `radix`, which is at most the block count).
  static std::vector<int64_t> operandBlockCodes(const einrt::BlockGrid& to, const einrt::BlockGrid& from, int64_t& radix) {
    std::vector<std::vector<int64_t>> ids(to.dims());
    std::vector<int64_t> distinct(to.dims());
    for (std::size_t d = 0; d < to.dims(); ++d) {
      std::map<std::vector<std::pair<int64_t, int64_t>>, int64_t> idOf;
      const int64_t ep = from.extent(d);
      for (int64_t x = 0; x < to.parts[d]; ++x) {
        std::vector<std::pair<int64_t, int64_t>> met;  // (producer coordinate, overlap)
        const int64_t lo = to.readLo(d, x), hi = to.readHi(d, x);  // the tensor interval it reads
        for (int64_t y = lo / ep; hi > lo && y < from.parts[d] && y * ep < hi; ++y)
          met.emplace_back(y, std::min(hi, (y + 1) * ep) - std::max(lo, y * ep));
        ids[d].push_back(idOf.emplace(std::move(met), static_cast<int64_t>(idOf.size())).first->second);
      }
      distinct[d] = static_cast<int64_t>(idOf.size());
    }
    std::vector<int64_t> code(static_cast<std::size_t>(to.blockCount()));
    for (std::size_t b = 0; b < code.size(); ++b) {
      int64_t block = static_cast<int64_t>(b), value = 0, place = 1;
      for (std::size_t d = to.dims(); d-- > 0;) {  // row-major: the last dimension varies fastest
        value += ids[d][static_cast<std::size_t>(block % to.parts[d])] * place;
        place *= distinct[d];
        block /= to.parts[d];
      }
      code[b] = value;
    }
    radix = 1;
    for (int64_t n : distinct) radix *= n;
    return code;
  }
  // Codes replaced by dense ids (fewer than the calls), where another operand's radix
  // would overflow them; returns how many there are.
  int64_t renumber() {
    std::unordered_map<int64_t, int64_t> dense;
    for (int64_t& c : codes_) c = dense.emplace(c, static_cast<int64_t>(dense.size())).first->second;
    return static_cast<int64_t>(dense.size());
  }
  std::vector<int64_t> codes_;  // per call
};

Benefits localElements(const CallGeometry& g, const std::vector<std::optional<ProducerBlocks>>& producers, int64_t devices) {
  Benefits b;
  b.listOf.resize(static_cast<std::size_t>(g.calls));
  const OverlapKeys keys(g, producers);
  std::unordered_map<int64_t, int> listOfReads;  // the produced operands' overlap keys -> list
  listOfReads.reserve(b.listOf.size());
  std::unordered_map<uint64_t, std::vector<int>> listsWithHash;  // a list's contents' hash -> lists
  std::vector<int64_t> onRank(static_cast<std::size_t>(devices), 0);
  std::vector<int> touched;
  // The ranks touched, as bits: where most ranks hold some (an operand gathered from a
  // thousand ranks and more), read off word by word, in rank order, instead of visiting
  // every rank for every list (LLaMA-65B at p = 16,384 on a cluster: 4,096 lists of a
  // thousand ranks each in one node).
  std::vector<uint64_t> touchedBits((static_cast<std::size_t>(devices) + 63) / 64, 0);
  for (std::size_t c = 0; c < b.listOf.size(); ++c) {
    auto [it, inserted] = listOfReads.emplace(keys.of(c), static_cast<int>(b.lists.size()));
    b.listOf[c] = it->second;
    if (!inserted) continue;
    for (std::size_t k = 0; k < producers.size(); ++k) {
      if (!producers[k]) continue;
      einrt::forEachOverlap(g.operandGrid[k], g.operandBlock[k][c], producers[k]->grid, [&](int64_t block, int64_t elements) {
        const int owner = producers[k]->owner[static_cast<std::size_t>(block)];
        if (onRank[static_cast<std::size_t>(owner)] == 0) {
          touched.push_back(owner);
          touchedBits[static_cast<std::size_t>(owner) / 64] |= uint64_t{1} << (owner % 64);
        }
        onRank[static_cast<std::size_t>(owner)] += elements;
      });
    }
    // In rank order: sorted, or (where most ranks hold some) read off in order.
    RankElements& list = b.lists.emplace_back();
    list.reserve(touched.size());
    if (touched.size() * 16 < onRank.size()) {
      std::sort(touched.begin(), touched.end());
      for (int r : touched) {
        touchedBits[static_cast<std::size_t>(r) / 64] = 0;
        list.emplace_back(r, std::exchange(onRank[static_cast<std::size_t>(r)], 0));
      }
    } else {
      for (std::size_t w = 0; w < touchedBits.size(); ++w)
        for (uint64_t bits = std::exchange(touchedBits[w], 0); bits != 0; bits &= bits - 1) {
          const std::size_t r = w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits));
          if (onRank[r] != 0) list.emplace_back(static_cast<int>(r), std::exchange(onRank[r], 0));
        }
    }
    touched.clear();
    // An equal list already made: this call shares it.
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (const auto& [rank, elements] : list) {
      h = (h ^ static_cast<uint64_t>(rank)) * 1099511628211ull;
      h = (h ^ static_cast<uint64_t>(elements)) * 1099511628211ull;
    }
    std::vector<int>& same = listsWithHash[h];
    for (int earlier : same)
      if (b.lists[static_cast<std::size_t>(earlier)] == list) {
        b.lists.pop_back();
        it->second = b.listOf[c] = earlier;
        break;
      }
    if (b.listOf[c] == static_cast<int>(b.lists.size()) - 1) same.push_back(b.listOf[c]);
  }
  return b;
}

// True when every call finds all of its operands from producers on its canonical rank.
bool receivesNothing(const CallGeometry& g, const std::vector<std::optional<ProducerBlocks>>& producers,
                     const Benefits& benefit, const std::vector<int>& rank) {
  for (std::size_t c = 0; c < benefit.listOf.size(); ++c) {
    int64_t needed = 0;  // what the call reads of its produced operands (a window's fill is not read)
    for (std::size_t k = 0; k < producers.size(); ++k)
      if (producers[k]) needed += g.operandGrid[k].readElements(g.operandBlock[k][c]);
    if (elementsOn(benefit.of(c), rank[c]) != needed) return false;
  }
  return true;
}

// What a call pays on each rank: received elements, those from other nodes weighted.
// (need - on rank) + (weight - 1) * (need - on the rank's node), from the sparse
// benefit list: ranks that hold nothing of the call's operands pay the same as each
// other within a node. Per benefit list (calls sharing a list pay alike).
class ReceiveCost {
 public:
  ReceiveCost(const Benefits& benefit, const LinkWeights& links) : benefit_(benefit), links_(links) {
    for (const auto& list : benefit.lists)
      for (const auto& [rank, elements] : list) most_ = std::max(most_, elements);
    if (links.interNodeWeight > 1) {
      onNode_.resize(benefit.lists.size());
      for (std::size_t i = 0; i < benefit.lists.size(); ++i)
        for (const auto& [rank, elements] : benefit.lists[i]) {
          const int64_t node = links.nodes.nodeOf(rank);
          // Ranks come in order, so their nodes do too.
          if (onNode_[i].empty() || onNode_[i].back().first != node) onNode_[i].emplace_back(node, elements);
          else onNode_[i].back().second += elements;
        }
    }
  }
  // Non-negative: `most` stands in for the call's need (the largest benefit of any call).
  int64_t onList(std::size_t list, int rank) const {
    int64_t cost = most_ - elementsOn(benefit_.lists[list], rank);
    if (!onNode_.empty()) {
      const int64_t node = links_.nodes.nodeOf(rank);
      const auto& held = onNode_[list];
      const auto it = std::lower_bound(held.begin(), held.end(), std::make_pair(node, int64_t{0}),
                                       [](const auto& a, const auto& b) { return a.first < b.first; });
      cost += (links_.interNodeWeight - 1) * (most_ - (it != held.end() && it->first == node ? it->second : 0));
    }
    return cost;
  }
  int64_t operator()(std::size_t call, int rank) const { return onList(static_cast<std::size_t>(benefit_.listOf[call]), rank); }
  // The nodes holding some of a list's operands (cluster only).
  const std::vector<std::pair<int64_t, int64_t>>& nodesOf(std::size_t list) const { return onNode_[list]; }
  bool weighted() const { return !onNode_.empty(); }
  int64_t most() const { return most_; }

 private:
  const Benefits& benefit_;
  LinkWeights links_;
  int64_t most_ = 0;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> onNode_;  // [list]: (node, elements)
};

// Exact: minimise the weighted received elements, then distance from the canonical rank
// (lexicographic).
std::vector<int> exactAssignment(const ReceiveCost& receive, std::size_t calls, const std::vector<int>& canonical,
                                 int64_t devices) {
  // The tie-break (0 or 1 per call) never outweighs one element.
  const int64_t scale = static_cast<int64_t>(calls) + 1;
  std::vector<std::vector<int64_t>> cost(calls, std::vector<int64_t>(static_cast<std::size_t>(devices)));
  for (std::size_t c = 0; c < calls; ++c)
    for (int r = 0; r < devices; ++r) cost[c][static_cast<std::size_t>(r)] = receive(c, r) * scale + (r == canonical[c] ? 0 : 1);
  return solveAssignment(cost);
}

// The smallest rank >= r not yet taken (devices when none), by path-halving union-find.
class FreeRanks {
 public:
  explicit FreeRanks(int64_t devices) : next_(static_cast<std::size_t>(devices) + 1) {
    std::iota(next_.begin(), next_.end(), 0);
  }
  int find(int r) {
    while (next_[static_cast<std::size_t>(r)] != r) {
      next_[static_cast<std::size_t>(r)] = next_[static_cast<std::size_t>(next_[static_cast<std::size_t>(r)])];
      r = next_[static_cast<std::size_t>(r)];
    }
    return r;
  }
  bool taken(int r) { return find(r) != r; }
  void take(int r) { next_[static_cast<std::size_t>(r)] = r + 1; }

 private:
  std::vector<int> next_;
};

// One offer of a call's list: ranks [first, end) at one cost, taken in rank order.
struct Offer {
  int64_t cost = 0;
  int first = 0, end = 0;
  friend bool operator<(const Offer& a, const Offer& b) { return std::tie(a.cost, a.first) < std::tie(b.cost, b.first); }
};

// A list's offers (SortedOffers reads them ascending by (cost, rank)): each rank holding some of its operands at
// its own cost, and on a cluster every rank of a node holding some at the node's (the
// rank's received elements are then all weighted alike) — one run per node: a node's
// ranks cost the same but for those holding data, which cost strictly less, so that a
// call reaches the run only after passing over them, when they are taken.
std::vector<Offer> offersOf(const RankElements& held, const ReceiveCost& receive, std::size_t list, const LinkWeights& links,
                            int64_t devices) {
  std::vector<Offer> offers;
  if (receive.weighted()) {
    auto at = held.begin();
    for (const auto& [node, onNode] : receive.nodesOf(list)) {
      const int64_t first = node * links.nodes.ranksPerNode, end = std::min(first + links.nodes.ranksPerNode, devices);
      const int64_t nodeCost = (links.interNodeWeight - 1) * (receive.most() - onNode);
      offers.push_back({receive.most() + nodeCost, static_cast<int>(first), static_cast<int>(end)});
      for (; at != held.end() && at->first < end; ++at)
        if (at->first >= first && at->second > 0) offers.push_back({receive.most() - at->second + nodeCost, at->first, at->first + 1});
    }
  } else {
    for (const auto& [rank, elements] : held)
      if (elements > 0) offers.push_back({receive.most() - elements, rank, rank + 1});
  }
  return offers;
}

// A list's offers in ascending (cost, rank) order, sorted only as far as they are read: a
// call mostly takes one of its first offers, and sorting every list whole (a list per
// call, up to a node's ranks long where an operand is gathered) was a tenth of planning
// LLaMA-65B for 16,384 ranks on a cluster. The (cost, first) keys are distinct (a rank's
// own offer costs less than its node's run), so the order is the full sort's.
class SortedOffers {
 public:
  explicit SortedOffers(std::vector<Offer> offers) : offers_(std::move(offers)) {}
  std::size_t size() const { return offers_.size(); }
  bool empty() const { return offers_.empty(); }
  const Offer& operator[](std::size_t i) {
    if (i >= sorted_) sortThrough(i);
    return offers_[i];
  }

 private:
  // Sorted prefix [0, sorted_) holds the smallest offers: extend it past i (at least
  // doubling it) with the smallest of the rest.
  void sortThrough(std::size_t i) {
    const std::size_t end = std::min(offers_.size(), std::max({i + 1, 2 * sorted_, sorted_ + 8}));
    const auto from = offers_.begin() + static_cast<std::ptrdiff_t>(sorted_), to = offers_.begin() + static_cast<std::ptrdiff_t>(end);
    if (to != offers_.end()) std::nth_element(from, to, offers_.end());
    std::sort(from, to);
    sorted_ = end;
  }
  std::vector<Offer> offers_;
  std::size_t sorted_ = 0;
};

// Greedy for many calls: the cheapest (call, rank) pairs among the ranks holding data of
// the call (and, on a cluster, every rank of a node holding some) first — in the order of
// one sort of all pairs by (cost, call, rank), each taken when both are still free — then
// the canonical rank where it is free, then the lowest free rank. The sort is a merge of
// the calls' own offer lists (offersOf: shared by calls reading alike) that skips the ranks
// already taken: a gathered operand offers every call every rank.
//
// Calls sharing a list are merged as one: they see the same offers, so the first pair
// free for one is the first free for each, and of them the lowest call takes it. One head
// per list (its lowest waiting call, at the first offer and rank not known taken) gives
// the same pairs in the same order as a head per call, without the rest of the list's
// calls each passing over every rank one of them took (LLaMA's attention output at
// p = 16,384 on a cluster: 2,048 calls of a list competing for its 2,048 ranks, which
// was most of the placement's time).
std::vector<int> greedyAssignment(const Benefits& benefit, const ReceiveCost& receive, const std::vector<int>& canonical,
                                  const LinkWeights& links, int64_t devices) {
  std::vector<SortedOffers> offers;
  offers.reserve(benefit.lists.size());
  for (std::size_t i = 0; i < benefit.lists.size(); ++i) offers.emplace_back(offersOf(benefit.lists[i], receive, i, links, devices));
  // Each list's calls in ascending order, and how many of them are placed (a prefix).
  std::vector<std::vector<int>> callsOf(benefit.lists.size());
  for (std::size_t c = 0; c < benefit.listOf.size(); ++c) callsOf[static_cast<std::size_t>(benefit.listOf[c])].push_back(static_cast<int>(c));
  std::vector<std::size_t> placed(benefit.lists.size(), 0);
  FreeRanks free(devices);
  // The first free rank (now) of a list's offers from offer `at`, rank `from` on (ranks
  // only ever get taken, so one skipped now would be skipped later too): (offer, rank),
  // the offer past the end when none is left.
  auto nextOffer = [&](SortedOffers& list, std::size_t at, int from) {
    for (; at < list.size(); ++at, from = 0) {
      const int r = free.find(std::max(from, list[at].first));
      if (r < list[at].end) return std::make_pair(at, r);
    }
    return std::make_pair(at, -1);
  };
  using Head = std::tuple<int64_t, int, int, std::size_t, std::size_t>;  // (cost, call, rank, offer, list)
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  for (std::size_t l = 0; l < offers.size(); ++l)
    if (!offers[l].empty() && !callsOf[l].empty()) heads.emplace(offers[l][0].cost, callsOf[l][0], offers[l][0].first, 0, l);
  std::vector<int> rankOf(benefit.listOf.size(), -1);
  while (!heads.empty()) {
    const auto [cost, call, rank, at, l] = heads.top();
    heads.pop();
    const bool taken = free.taken(rank);
    if (!taken) {
      rankOf[static_cast<std::size_t>(call)] = rank;
      free.take(rank);
      if (++placed[l] == callsOf[l].size()) continue;
    }
    const int waiting = callsOf[l][placed[l]];
    auto& list = offers[l];
    const auto [next, free_rank] = nextOffer(list, at, rank + 1);
    if (next < list.size()) heads.emplace(list[next].cost, waiting, free_rank, next, l);
  }
  for (std::size_t c = 0; c < rankOf.size(); ++c) {
    if (rankOf[c] >= 0) continue;
    int r = canonical[c];
    if (free.taken(r)) r = free.find(0);
    rankOf[c] = r;
    free.take(r);
  }
  return rankOf;
}

}  // namespace

Placement matchedPlacement(const CallGeometry& g, const std::vector<std::optional<ProducerBlocks>>& producers,
                           int64_t devices, const LinkWeights& links) {
  const Placement canonical = canonicalPlacement(g, links.nodes.spansNodes(devices));
  const bool anyProducer = std::any_of(producers.begin(), producers.end(), [](const auto& p) { return p.has_value(); });
  if (!anyProducer) return canonical;
  const Benefits benefit = localElements(g, producers, devices);
  if (receivesNothing(g, producers, benefit, canonical.callRank)) return canonical;  // nothing to improve
  const ReceiveCost receive(benefit, links.nodes.spansNodes(devices) ? links : LinkWeights{});
  Placement p;
  p.callRank = g.calls <= kExactAssignmentCalls && devices <= 4 * kExactAssignmentCalls
                   ? exactAssignment(receive, benefit.listOf.size(), canonical.callRank, devices)
                   : greedyAssignment(benefit, receive, canonical.callRank, links, devices);
  p.blockOwner = ownersOfBlocks(g, p.callRank);
  return p;
}

}  // namespace eindecomp
