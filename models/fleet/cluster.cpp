#include "cluster.hpp"

#include "models/core/invariant.hpp"

#include <algorithm>
#include <numeric>
#include <string>

namespace fleetsim::models::fleet {

Cluster::Cluster(long nodes, int gpus_per_node, int nodes_per_rack, long nodes_per_pod, long spare_nodes,
                 std::uint64_t seed)
    : gpn_(std::max(1, gpus_per_node)),
      npr_(std::max(1, nodes_per_rack)),
      npp_(nodes_per_pod > 0 ? nodes_per_pod : std::max(1L, nodes)),
      spare_target_(std::clamp(spare_nodes, 0L, nodes)),
      node_(static_cast<size_t>(std::max(0L, nodes))),
      by_free_(static_cast<size_t>(gpn_) + 1),
      rack_whole_(static_cast<size_t>((nodes + npr_ - 1) / npr_), 0),
      pod_whole_(static_cast<size_t>((nodes + npp_ - 1) / npp_), 0),
      seed_(seed)
{
  for (long n = 0; n < this->nodes(); ++n) {
    Node& node = node_[static_cast<size_t>(n)];
    node.free = gpn_;
    node.spare = n >= this->nodes() - spare_target_;
    if (node.spare)
      spares_.insert(n);
    else
      list(n);
  }
}

long Cluster::held_gpus(long gpus) const { return gpus <= gpn_ ? gpus : (gpus + gpn_ - 1) / gpn_ * gpn_; }

void Cluster::list(long node)
{
  const Node& n = node_[static_cast<size_t>(node)];
  by_free_[static_cast<size_t>(n.free)].insert(node);
  free_gpus_ += n.free;
  if (n.free == gpn_) {
    ++whole_free_;
    ++rack_whole_[static_cast<size_t>(rack_of(node))];
    ++pod_whole_[static_cast<size_t>(pod_of(node))];
  }
}

void Cluster::unlist(long node)
{
  const Node& n = node_[static_cast<size_t>(node)];
  by_free_[static_cast<size_t>(n.free)].erase(node);
  free_gpus_ -= n.free;
  if (n.free == gpn_) {
    --whole_free_;
    --rack_whole_[static_cast<size_t>(rack_of(node))];
    --pod_whole_[static_cast<size_t>(pod_of(node))];
  }
}

bool Cluster::fits(long gpus) const
{
  if (gpus <= 0)
    return true;
  if (gpus <= gpn_) {
    for (int f = static_cast<int>(gpus); f <= gpn_; ++f)
      if (!by_free_[static_cast<size_t>(f)].empty())
        return true;
    return false;
  }
  return whole_free_ >= (gpus + gpn_ - 1) / gpn_;
}

void Cluster::set_span(Placement& p) const
{
  std::vector<long> racks;
  std::vector<long> pods;
  for (const auto& [node, g] : p.parts) {
    racks.push_back(rack_of(node));
    pods.push_back(pod_of(node));
  }
  std::sort(racks.begin(), racks.end());
  std::sort(pods.begin(), pods.end());
  p.racks = std::unique(racks.begin(), racks.end()) - racks.begin();
  p.pods = std::unique(pods.begin(), pods.end()) - pods.begin();
}

// Takes `count` wholly free schedulable nodes into `out` (the caller checked there are enough).
namespace {

// SplitMix64's finaliser over the seed, the placement's ordinal and the node: a node's rank in a
// random placement's order.
std::uint64_t scatter_key(std::uint64_t seed, std::uint64_t ordinal, long node)
{
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (ordinal + 1) + 0xbf58476d1ce4e5b9ULL * static_cast<std::uint64_t>(node);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

void Cluster::pick_whole(long count, Packing packing, Placement& out) const
{
  const std::set<long>& whole = by_free_[static_cast<size_t>(gpn_)];
  auto take_from_rack = [&](long rack) {
    const long end = std::min(nodes(), (rack + 1) * npr_);
    for (long n = rack * npr_; n < end && count > 0; ++n) {
      const Node& node = node_[static_cast<size_t>(n)];
      if (schedulable(node) && node.free == gpn_) {
        out.parts.emplace_back(n, gpn_);
        --count;
      }
    }
  };
  // Racks of a range of pods, the fullest first (ties: lowest index).
  auto fill_racks = [&](long first_rack, long last_rack) {
    std::vector<long> racks(static_cast<size_t>(last_rack - first_rack));
    std::iota(racks.begin(), racks.end(), first_rack);
    std::stable_sort(racks.begin(), racks.end(), [&](long a, long b) {
      return rack_whole_[static_cast<size_t>(a)] > rack_whole_[static_cast<size_t>(b)];
    });
    for (long r : racks)
      if (count > 0 && rack_whole_[static_cast<size_t>(r)] > 0)
        take_from_rack(r);
  };
  const long racks_per_pod = (npp_ + npr_ - 1) / npr_;
  auto pod_racks = [&](long pod) {
    return std::pair(pod * racks_per_pod, std::min<long>((pod + 1) * racks_per_pod, rack_whole_.size()));
  };
  if (packing == Packing::FirstFit) {
    for (auto it = whole.begin(); it != whole.end() && count > 0; ++it, --count)
      out.parts.emplace_back(*it, gpn_);
    return;
  }
  if (packing == Packing::Random) {
    std::vector<std::pair<std::uint64_t, long>> keyed;
    keyed.reserve(whole.size());
    for (long n : whole)
      keyed.emplace_back(scatter_key(seed_, taken_, n), n);
    const auto k = static_cast<std::ptrdiff_t>(std::min<size_t>(static_cast<size_t>(count), keyed.size()));
    std::partial_sort(keyed.begin(), keyed.begin() + k, keyed.end());
    for (std::ptrdiff_t i = 0; i < k; ++i)
      out.parts.emplace_back(keyed[static_cast<size_t>(i)].second, gpn_);
    return;
  }
  // Best fit in one rack, else in one pod, else the fullest pods first.
  auto best = [&](const std::vector<long>& free) -> long {
    long pick = -1;
    for (size_t i = 0; i < free.size(); ++i)
      if (free[i] >= count && (pick < 0 || free[i] < free[static_cast<size_t>(pick)]))
        pick = static_cast<long>(i);
    return pick;
  };
  if (const long rack = best(rack_whole_); rack >= 0 && npr_ < npp_) {
    take_from_rack(rack);
    return;
  }
  if (const long pod = best(pod_whole_); pod >= 0) {
    const auto [a, b] = pod_racks(pod);
    fill_racks(a, b);
    return;
  }
  std::vector<long> pods(pod_whole_.size());
  std::iota(pods.begin(), pods.end(), 0);
  std::stable_sort(pods.begin(), pods.end(), [&](long a, long b) {
    return pod_whole_[static_cast<size_t>(a)] > pod_whole_[static_cast<size_t>(b)];
  });
  for (long p : pods) {
    if (count <= 0)
      break;
    const auto [a, b] = pod_racks(p);
    fill_racks(a, b);
  }
}

std::optional<Placement> Cluster::place(long gpus, Packing packing) const
{
  if (!fits(gpus))
    return std::nullopt;
  Placement p;
  if (gpus <= 0)
    return p;
  if (gpus <= gpn_) {
    for (int f = static_cast<int>(gpus); f <= gpn_; ++f) {
      const std::set<long>& b = by_free_[static_cast<size_t>(f)];
      if (!b.empty()) {
        p.parts.emplace_back(*b.begin(), static_cast<int>(gpus));
        break;
      }
    }
  } else {
    pick_whole((gpus + gpn_ - 1) / gpn_, packing, p);
  }
  set_span(p);
  return p;
}

void Cluster::take(const Placement& p)
{
  ++taken_;
  for (const auto& part : p.parts) {  // not a structured binding: clang 14 cannot capture one
    const auto node = part.first;
    const auto g = part.second;
    Node& n = node_[static_cast<size_t>(node)];
    check_invariant(schedulable(n) && n.free >= g, "a placement takes free GPUs of schedulable nodes",
                    [&] { return "node " + std::to_string(node) + " has " + std::to_string(n.free) + " free"; });
    unlist(node);
    n.free -= g;
    list(node);
  }
}

void Cluster::give(const Placement& p)
{
  for (const auto& part : p.parts) {  // not a structured binding: clang 14 cannot capture one
    const auto node = part.first;
    const auto g = part.second;
    Node& n = node_[static_cast<size_t>(node)];
    const bool listed = schedulable(n);
    if (listed)
      unlist(node);
    n.free += g;
    check_invariant(n.free <= gpn_, "a node never has more free GPUs than it has",
                    [&] { return "node " + std::to_string(node); });
    if (listed)
      list(node);
  }
}

void Cluster::node_down(long node)
{
  Node& n = node_[static_cast<size_t>(node)];
  if (!n.up)
    return;
  if (n.spare)
    spares_.erase(node);
  else
    unlist(node);
  n.up = false;
  n.spare = false;
  ++down_nodes_;
}

void Cluster::node_up(long node)
{
  Node& n = node_[static_cast<size_t>(node)];
  if (n.up)
    return;
  n.up = true;
  --down_nodes_;
  if (static_cast<long>(spares_.size()) < spare_target_ && n.free == gpn_) {
    n.spare = true;
    spares_.insert(node);
  } else {
    list(node);
  }
}

void Cluster::unkeep(long node)
{
  Node& n = node_[static_cast<size_t>(node)];
  check_invariant(n.spare || !n.up || n.free == 0, "a kept node is a spare, down, or taken whole",
                  [&] { return "node " + std::to_string(node); });
  if (n.spare) {
    spares_.erase(node);
    n.spare = false;
  } else if (n.up) {
    unlist(node);
  } else {
    n.up = true;
    --down_nodes_;
  }
}

void Cluster::keep(long node, Kept as)
{
  unkeep(node);
  Node& n = node_[static_cast<size_t>(node)];
  if (as == Kept::Spare) {
    n.free = gpn_;
    n.spare = true;
    spares_.insert(node);
  } else if (as == Kept::Taken) {
    n.free = 0;
    list(node);
  } else {
    n.free = 0;
    n.up = false;
    ++down_nodes_;
  }
}

void Cluster::reclaim(long node)
{
  unkeep(node);
  node_[static_cast<size_t>(node)].free = gpn_;
  list(node);
}

std::optional<long> Cluster::take_replacement(bool spares)
{
  long node = -1;
  if (spares && !spares_.empty()) {
    node = *spares_.begin();
    spares_.erase(spares_.begin());
    node_[static_cast<size_t>(node)].spare = false;
    list(node);
  } else if (!by_free_[static_cast<size_t>(gpn_)].empty()) {
    node = *by_free_[static_cast<size_t>(gpn_)].begin();
  } else {
    return std::nullopt;
  }
  Placement p;
  p.parts.emplace_back(node, gpn_);
  take(p);
  return node;
}

Cluster::Projection Cluster::projection() const
{
  Projection pr;
  pr.gpn_ = gpn_;
  pr.free_.assign(node_.size(), -1);
  pr.by_free_.assign(static_cast<size_t>(gpn_) + 1, 0);
  for (size_t i = 0; i < node_.size(); ++i)
    if (schedulable(node_[i])) {
      pr.free_[i] = static_cast<std::int8_t>(node_[i].free);
      ++pr.by_free_[static_cast<size_t>(node_[i].free)];
    }
  return pr;
}

bool Cluster::Projection::fits(long gpus) const
{
  if (gpus <= 0)
    return true;
  if (gpus <= gpn_) {
    for (int f = static_cast<int>(gpus); f <= gpn_; ++f)
      if (by_free_[static_cast<size_t>(f)] > 0)
        return true;
    return false;
  }
  return by_free_[static_cast<size_t>(gpn_)] >= (gpus + gpn_ - 1) / gpn_;
}

void Cluster::Projection::take(long gpus)
{
  // Counts only: which node is taken does not matter to fits(), and no give() follows a take().
  taken_ = true;
  if (gpus <= 0)
    return;
  if (gpus <= gpn_) {
    for (int f = static_cast<int>(gpus); f <= gpn_; ++f)
      if (by_free_[static_cast<size_t>(f)] > 0) {
        --by_free_[static_cast<size_t>(f)];
        ++by_free_[static_cast<size_t>(f - gpus)];
        return;
      }
    return;
  }
  const long whole = (gpus + gpn_ - 1) / gpn_;
  by_free_[static_cast<size_t>(gpn_)] -= std::min(whole, by_free_[static_cast<size_t>(gpn_)]);
  by_free_[0] += whole;
}

void Cluster::Projection::give(const Placement& p)
{
  check_invariant(!taken_, "a projection gives back before it takes", [] { return std::string("give after take"); });
  for (const auto& [node, g] : p.parts) {
    auto& f = free_[static_cast<size_t>(node)];
    if (f < 0)
      continue;  // in repair or a spare now: not schedulable in the look-ahead
    --by_free_[static_cast<size_t>(f)];
    f = static_cast<std::int8_t>(f + g);
    ++by_free_[static_cast<size_t>(f)];
  }
}

}  // namespace fleetsim::models::fleet
