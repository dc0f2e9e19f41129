// Pattern detection on the global message plan (rules in docs/runtime.md).
#include "transport_choice.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

namespace einrt::detail {

namespace {

bool isRemote(const Piece& p) { return p.from != p.to; }

// Replication within disjoint groups: every active rank sends the same pieces to every
// other member of its group and receives from all of them.
std::optional<TransportChoice> detectAllgather(const MessagePlan& plan) {
  if (plan.partial) return std::nullopt;
  using Content = std::vector<std::pair<std::size_t, Box>>;
  std::vector<std::map<int, Content>> sends(plan.nranks);
  std::vector<std::set<int>> recvFrom(plan.nranks);
  for (const Piece& p : plan.pieces) {
    if (!isRemote(p)) continue;
    sends[p.from][p.to].emplace_back(p.srcBlock, p.box);
    recvFrom[p.to].insert(p.from);
  }
  std::vector<std::set<int>> group(plan.nranks);
  for (int r = 0; r < plan.nranks; ++r) {
    if (sends[r].empty() && recvFrom[r].empty()) continue;
    std::set<int> peers;
    for (const auto& [q, content] : sends[r]) peers.insert(q);
    if (peers != recvFrom[r]) return std::nullopt;
    const Content& first = sends[r].begin()->second;
    for (const auto& [q, content] : sends[r])
      if (content != first) return std::nullopt;
    peers.insert(r);
    group[r] = peers;
  }
  TransportChoice choice{Transport::Allgatherv, std::vector<int>(plan.nranks, -1), -1};
  for (int r = 0; r < plan.nranks; ++r) {
    if (group[r].empty()) continue;
    for (int q : group[r])
      if (group[q] != group[r]) return std::nullopt;
    choice.color[r] = *group[r].begin();
  }
  return choice;
}

// Partial blocks reduced inside their holder groups: every remote piece comes from a
// block with several partial holders, each rank belongs to at most one holder set, and
// every receiver of a group's data is itself a member of the group.
std::optional<TransportChoice> detectReduction(const MessagePlan& plan, const Layout& src) {
  if (!plan.partial) return std::nullopt;
  std::vector<std::optional<std::set<int>>> groupOf(plan.nranks);
  auto join = [&](int rank, const std::set<int>& holders) {
    if (groupOf[rank] && *groupOf[rank] != holders) return false;
    groupOf[rank] = holders;
    return true;
  };
  for (const Piece& p : plan.pieces) {
    const Block& block = src.blocks[p.srcBlock];
    if (block.ranks.size() < 2) {
      if (isRemote(p)) return std::nullopt;
      continue;
    }
    const std::set<int> holders(block.ranks.begin(), block.ranks.end());
    if (!holders.count(p.to)) return std::nullopt;
    if (!join(p.from, holders) || !join(p.to, holders)) return std::nullopt;
  }
  // Allreduce when, inside every group, each member needs the same (block, box) pieces.
  std::map<int, std::map<int, std::vector<std::pair<std::size_t, Box>>>> needs;  // group -> member -> pieces
  TransportChoice choice{Transport::Allreduce, std::vector<int>(plan.nranks, -1), -1};
  for (int r = 0; r < plan.nranks; ++r)
    if (groupOf[r]) {
      choice.color[r] = *groupOf[r]->begin();
      needs[choice.color[r]][r];
    }
  for (const Piece& p : plan.pieces)
    if (src.blocks[p.srcBlock].ranks.size() > 1 && p.contribution == 0)
      needs[choice.color[p.to]][p.to].emplace_back(p.srcBlock, p.box);
  for (const auto& [color, members] : needs)
    for (const auto& [member, pieces] : members)
      if (pieces != members.begin()->second) choice.transport = Transport::ReduceScatter;
  return choice;
}

std::optional<TransportChoice> detectOneSided(const MessagePlan& plan) {
  std::set<int> senders, receivers;
  for (const Piece& p : plan.pieces)
    if (isRemote(p)) {
      senders.insert(p.from);
      receivers.insert(p.to);
    }
  if (senders.size() == 1 && receivers.size() >= 2)
    return TransportChoice{Transport::Scatterv, {}, *senders.begin()};
  if (receivers.size() == 1 && senders.size() >= 2)
    return TransportChoice{Transport::Gatherv, {}, *receivers.begin()};
  return std::nullopt;
}

bool isDense(const MessagePlan& plan) {
  std::set<std::pair<int, int>> pairs;
  for (const Piece& p : plan.pieces)
    if (isRemote(p)) pairs.emplace(p.from, p.to);
  const long long all = static_cast<long long>(plan.nranks) * (plan.nranks - 1);
  return 2 * static_cast<long long>(pairs.size()) > all;
}

}  // namespace

TransportChoice chooseTransport(const MessagePlan& plan, const Layout& src, Transport requested) {
  const bool anyRemote = std::any_of(plan.pieces.begin(), plan.pieces.end(), isRemote);
  if (!anyRemote) return TransportChoice{Transport::Local, {}, -1};
  switch (requested) {
    case Transport::PointToPoint:
    case Transport::Alltoallv:
      return TransportChoice{requested, {}, -1};
    case Transport::Auto: {
      if (auto c = detectReduction(plan, src)) return *c;
      if (auto c = detectAllgather(plan)) return *c;
      if (auto c = detectOneSided(plan)) return *c;
      return TransportChoice{isDense(plan) ? Transport::Alltoallv : Transport::PointToPoint, {}, -1};
    }
    case Transport::Local:
      break;
    case Transport::Allgatherv:
      if (auto c = detectAllgather(plan)) return *c;
      break;
    case Transport::Scatterv:
    case Transport::Gatherv:
      if (auto c = detectOneSided(plan); c && c->transport == requested) return *c;
      break;
    case Transport::ReduceScatter:
      if (auto c = detectReduction(plan, src)) {
        c->transport = Transport::ReduceScatter;
        return *c;
      }
      break;
    case Transport::Allreduce:
      if (auto c = detectReduction(plan, src); c && c->transport == Transport::Allreduce) return *c;
      break;
  }
  throw std::invalid_argument(std::string("einrt: transport ") + transportName(requested) +
                              " does not fit this message pattern");
}

}  // namespace einrt::detail
