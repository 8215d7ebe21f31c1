#include "node_pool.hpp"

#include "models/core/check.hpp"

#include "models/core/random_stream.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fleetsim::models {

NodePool::NodePool(long nodes, int nodes_per_rack, const LemonSpec& lemons, std::uint64_t seed)
    : nodes_(static_cast<size_t>(nodes)), nodes_per_rack_(std::max(1, nodes_per_rack)), lemons_(lemons)
{
  FLEETSIM_CHECK(nodes >= 1, "a pool has nodes");
  idle_ = size();
  const long n_lemons = lemons.any() ? std::lround(lemons.fraction * static_cast<double>(size())) : 0;
  if (n_lemons > 0) {
    // Exactly n_lemons distinct nodes, by a partial Fisher-Yates shuffle of the positions.
    std::vector<long> order(nodes_.size());
    std::iota(order.begin(), order.end(), 0L);
    RandomStream draw(seed, "lemons");
    for (long i = 0; i < n_lemons; ++i) {
      const auto j = i + static_cast<long>(draw.below(static_cast<std::uint64_t>(size() - i)));
      std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
      nodes_[static_cast<size_t>(order[static_cast<size_t>(i)])].lemon = true;
    }
    // Mean weight 1 over the cluster: normal w, lemon m w, with (1 - f) w + f m w = 1.
    const double f = static_cast<double>(n_lemons) / static_cast<double>(size());
    normal_weight_ = 1.0 / (1.0 - f + f * lemons.rate_multiplier);
    for (auto& n : nodes_)
      n.weight = n.lemon ? lemons.rate_multiplier * normal_weight_ : normal_weight_;
    weighted_ = true;
  }
}

NodePool::NodePool(long job_nodes, long spare_nodes, int nodes_per_rack, const LemonSpec& lemons, std::uint64_t seed)
    : NodePool(std::max(1L, job_nodes) + std::max(0L, spare_nodes), nodes_per_rack, lemons, seed)
{
  FLEETSIM_CHECK(job_nodes >= 1 && spare_nodes >= 0, "a job has nodes and no negative spares");
  fill(add_job(job_nodes), job_nodes);
}

long NodePool::add_job(long slots)
{
  FLEETSIM_CHECK(slots >= 1, "a job has slots");
  Table t;
  t.slots.assign(static_cast<size_t>(slots), -1);
  jobs_.push_back(std::move(t));
  return jobs() - 1;
}

void NodePool::seat(long job, long slot, long node)
{
  Node& n = nodes_[static_cast<size_t>(node)];
  Table& t = jobs_[static_cast<size_t>(job)];
  n.job = job;
  n.slot = slot;
  t.slots[static_cast<size_t>(slot)] = node;
  ++t.active;
  if (n.state != NodeState::Active)
    set_state(n, NodeState::Active);
}

void NodePool::unseat(Node& n)
{
  Table& t = jobs_[static_cast<size_t>(n.job)];
  t.slots[static_cast<size_t>(n.slot)] = -1;
  --t.active;
  n.job = -1;
  n.slot = -1;
}

void NodePool::place(long job, const std::vector<long>& nodes)
{
  Table& t = jobs_.at(static_cast<size_t>(job));
  FLEETSIM_CHECK(t.active == 0 && static_cast<long>(nodes.size()) == job_slots(job),
                 "a job is placed whole, on as many nodes as it has slots, while it holds none");
  for (size_t s = 0; s < nodes.size(); ++s) {
    FLEETSIM_CHECK(state(nodes[s]) == NodeState::Idle, "a job is placed on idle nodes");
    seat(job, static_cast<long>(s), nodes[s]);
  }
  t.used = job_slots(job);
  t.empty = 0;
}

void NodePool::hold(long job, long node)
{
  Table& t = jobs_.at(static_cast<size_t>(job));
  FLEETSIM_CHECK(t.used == job_slots(job) && state(node) == NodeState::Idle,
                 "a node is held by a table that uses all its slots, while idle");
  const auto empty = std::find(t.slots.begin(), t.slots.end(), -1L);
  const long slot = empty - t.slots.begin();
  if (empty == t.slots.end()) {
    t.slots.push_back(-1);
    t.used = job_slots(job);
  } else {
    --t.empty;
  }
  seat(job, slot, node);
}

void NodePool::let_go(long node)
{
  Node& n = nodes_.at(static_cast<size_t>(node));
  FLEETSIM_CHECK(n.slot >= 0, "a node let go holds a slot");
  Table& t = jobs_[static_cast<size_t>(n.job)];
  t.empty += n.slot < t.used ? 1 : 0;
  unseat(n);
  set_state(n, NodeState::Idle);
}

void NodePool::release(long job)
{
  Table& t = jobs_.at(static_cast<size_t>(job));
  for (long node : t.slots)
    if (node >= 0) {
      Node& n = nodes_[static_cast<size_t>(node)];
      unseat(n);
      set_state(n, NodeState::Idle);
    }
  t.used = 0;
  t.empty = 0;
}

std::vector<long> NodePool::Hit::slots_of(long job) const
{
  std::vector<long> out;
  for (const Lost& l : lost)
    if (l.job == job)
      out.push_back(l.slot);
  return out;
}

long NodePool::Hit::holder(long node) const
{
  for (const Lost& l : lost)
    if (l.node == node)
      return l.job;
  return -1;
}

void NodePool::draw_slow_nodes(long count, double speed, std::uint64_t seed)
{
  count = std::min(count, size());
  std::vector<long> order(nodes_.size());
  std::iota(order.begin(), order.end(), 0L);
  RandomStream draw(seed, "stragglers/persistent");
  for (long i = 0; i < count; ++i) {
    const auto j = i + static_cast<long>(draw.below(static_cast<std::uint64_t>(size() - i)));
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
    nodes_[static_cast<size_t>(order[static_cast<size_t>(i)])].base_speed = speed;
  }
  any_slow_ = any_slow_ || (count > 0 && speed < 1);
}

void NodePool::set_old_generation(long job_id, long count, double speed, bool spread, std::uint64_t seed)
{
  const Table& t = table(job_id);
  const long job = job_slots(job_id);
  count = std::clamp(count, 0L, job);
  std::vector<long> order(static_cast<size_t>(job));
  std::iota(order.begin(), order.end(), 0L);
  if (spread) {
    RandomStream draw(seed, "heterogeneous");
    for (long i = 0; i < count; ++i) {
      const auto j = i + static_cast<long>(draw.below(static_cast<std::uint64_t>(job - i)));
      std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
    }
  } else {
    std::reverse(order.begin(), order.end());  // the last job nodes: racks of their own
  }
  for (long i = 0; i < count; ++i)
    if (const long node = t.slots[static_cast<size_t>(order[static_cast<size_t>(i)])]; node >= 0)
      nodes_[static_cast<size_t>(node)].generation = speed;
  any_slow_ = any_slow_ || (count > 0 && speed < 1);
}

double NodePool::compute_stretch(long job, long slots_per_group, bool balanced) const
{
  const Table& t = table(job);
  const long used = t.used;
  slots_per_group = std::max(1L, slots_per_group);
  double worst = 0;    // max over groups of planned share / actual speed
  double planned = 0;  // sum of the groups' planned speeds
  long groups = 0;
  std::vector<std::pair<double, double>> group_speeds;  // (planned, actual)
  for (long g0 = 0; g0 < used; g0 += slots_per_group) {
    double generation = 1;
    double actual = 1;
    bool any = false;
    for (long s = g0; s < std::min(used, g0 + slots_per_group); ++s) {
      const long node = t.slots[static_cast<size_t>(s)];
      if (node < 0)
        continue;
      any = true;
      generation = std::min(generation, generation_speed(node));
      actual = std::min(actual, speed(node));
    }
    if (!any)
      continue;
    ++groups;
    const double g = balanced ? generation : 1.0;
    planned += g;
    group_speeds.emplace_back(g, actual);
  }
  if (groups == 0)
    return 1;
  for (const auto& [g, a] : group_speeds)
    worst = std::max(worst, g / a);
  return static_cast<double>(groups) * worst / planned;
}

void NodePool::start_episode(long node, long id, double speed, double t)
{
  Node& n = nodes_.at(static_cast<size_t>(node));
  n.episode = id;
  if (n.episode_speed >= 1 && n.base_speed >= 1)
    n.slow_since = t;  // (a node already slow keeps the start of its slowness)
  n.episode_speed = speed;
  any_slow_ = any_slow_ || speed < 1;
}

void NodePool::end_episode(long node, long id)
{
  Node& n = nodes_.at(static_cast<size_t>(node));
  if (n.episode == id)
    n.episode_speed = 1;
}

std::vector<long> NodePool::slow_job_nodes(long job, double below, double window, double t) const
{
  std::vector<long> out;
  for (long node : table(job).slots)
    if (node >= 0 && own_speed(node) < below && t - slow_since(node) >= window)
      out.push_back(node);
  return out;
}

double NodePool::slowest_active_speed(long job) const
{
  if (!any_slow_)
    return 1;
  double slowest = 1;
  for (long node : table(job).slots)
    if (node >= 0)
      slowest = std::min(slowest, speed(node));
  return slowest;
}

long NodePool::lemons() const
{
  return std::count_if(nodes_.begin(), nodes_.end(), [](const Node& n) { return n.lemon; });
}

void NodePool::set_state(Node& n, NodeState s)
{
  auto count = [&](NodeState st, long d) {
    if (st == NodeState::Active)
      active_ += d;
    else if (st == NodeState::Idle)
      idle_ += d;
  };
  count(n.state, -1);
  n.state = s;
  count(s, +1);
}

std::optional<long> NodePool::pick(double u) const
{
  FLEETSIM_CHECK(u >= 0, "a node index");
  if (!weighted_) {
    const auto node = static_cast<long>(u);
    if (node >= size() || !up(node))
      return std::nullopt;
    return node;
  }
  // Cumulative current weights over the positions; the initial total is size().
  double acc = 0;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    acc += nodes_[i].weight;
    if (u < acc)
      return up(static_cast<long>(i)) ? std::optional<long>(static_cast<long>(i)) : std::nullopt;
  }
  return std::nullopt;
}

NodePool::Hit NodePool::fail(long first, long count, double t, bool node_fault)
{
  Hit hit;
  const long end = std::min(size(), first + count);
  for (long i = std::max(0L, first); i < end; ++i) {
    Node& n = nodes_[static_cast<size_t>(i)];
    if (n.state == NodeState::Repair)
      continue;
    hit.nodes.push_back(i);
    if (n.slot >= 0) {
      Table& table = jobs_[static_cast<size_t>(n.job)];
      table.empty += n.slot < table.used ? 1 : 0;
      hit.lost.push_back({n.job, n.slot, i});
      unseat(n);
    }
    set_state(n, NodeState::Repair);
    if (node_fault && lemons_.retire_after > 0) {
      n.failures.push_back(t);
      while (!n.failures.empty() && n.failures.front() < t - lemons_.retire_window)
        n.failures.pop_front();
      if (static_cast<long>(n.failures.size()) >= lemons_.retire_after) {
        n.retired = true;
        n.failures.clear();
        hit.retired.push_back(i);
        ++retired_total_;
        retired_lemons_ += n.lemon ? 1 : 0;
      }
    }
  }
  return hit;
}

void NodePool::repaired(long node)
{
  Node& n = nodes_.at(static_cast<size_t>(node));
  FLEETSIM_CHECK(n.state == NodeState::Repair, "only a node in repair comes back from repair");
  n.episode_speed = 1;  // an episode does not survive a repair
  if (n.heal) {
    n.heal = false;
    n.base_speed = 1;
  }
  if (n.retired) {
    // The replacement: a healthy node in the same position, with no history.
    n.retired = false;
    n.lemon = false;
    n.weight = normal_weight_;
    n.base_speed = 1;  // a new node: not a straggler (of the same generation as its rack)
  }
  set_state(n, NodeState::Idle);
}

long NodePool::fill(long job, long slots)
{
  FLEETSIM_CHECK(slots >= 0 && slots <= job_slots(job), "a job uses between 0 and all of its slots");
  Table& t = jobs_[static_cast<size_t>(job)];
  // Nodes in slots at or beyond the new size move down into empty slots, or leave the job.
  std::vector<long> movers;
  for (long s = slots; s < job_slots(job); ++s)
    if (const long node = t.slots[static_cast<size_t>(s)]; node >= 0) {
      movers.push_back(node);
      unseat(nodes_[static_cast<size_t>(node)]);  // (still Active until seated again or let go)
    }
  size_t next_mover = 0;
  long next_idle = 0;
  long empty = 0;
  for (long s = 0; s < slots; ++s) {
    if (t.slots[static_cast<size_t>(s)] >= 0)
      continue;
    long node = -1;
    if (next_mover < movers.size()) {
      node = movers[next_mover++];
    } else {
      while (next_idle < size() && nodes_[static_cast<size_t>(next_idle)].state != NodeState::Idle)
        ++next_idle;
      if (next_idle < size())
        node = next_idle++;
    }
    if (node < 0) {
      ++empty;
      continue;
    }
    seat(job, s, node);
  }
  for (; next_mover < movers.size(); ++next_mover)
    set_state(nodes_[static_cast<size_t>(movers[next_mover])], NodeState::Idle);
  t.used = slots;
  t.empty = empty;
  return empty;
}

bool memory_copies_survive(const std::vector<long>& lost, long slots, int copies, long stride)
{
  if (lost.empty())
    return true;
  FLEETSIM_CHECK(slots > 0 && copies >= 1, "in-memory copies need slots and at least one copy");
  std::vector<char> gone(static_cast<size_t>(slots), 0);
  for (long s : lost)
    if (s >= 0 && s < slots)
      gone[static_cast<size_t>(s)] = 1;
  // Only shards whose own slot was lost can be missing: check each one's peers.
  for (long s : lost) {
    if (s < 0 || s >= slots)
      continue;
    bool survives = false;
    for (int j = 1; j < copies && !survives; ++j)
      survives = gone[static_cast<size_t>((s + j * stride) % slots)] == 0;
    if (!survives)
      return false;
  }
  return true;
}

}  // namespace fleetsim::models
