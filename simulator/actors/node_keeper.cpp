#include "node_keeper.hpp"

#include "run_context.hpp"

#include "models/resilience/run_plan.hpp"

#include <algorithm>

namespace fleetsim::sim {

NodeKeeper::NodeKeeper(const scenario::Scenario& s, models::NodePool& pool, std::uint64_t seed)
    : s_(s), pool_(pool), times_(seed, "repair/times")
{}

void NodeKeeper::attach(long pool_job, Inbox<SchedulerMessage>& scheduler, models::PolicyCounters& counters)
{
  jobs_[pool_job] = Job{&scheduler, &counters, ++attachments_};
}

void NodeKeeper::detach(long pool_job) { jobs_.erase(pool_job); }

models::PolicyCounters& NodeKeeper::counters_of(long pool_job)
{
  const auto it = jobs_.find(pool_job);
  return it != jobs_.end() ? *it->second.counters : run_;
}

models::NodePool::Hit NodeKeeper::fail(const msg::Failure& f, const std::function<bool(long)>& mine)
{
  const bool own_fault = s_.causes.at(static_cast<size_t>(f.cause)).scope.model().own_fault();
  if (!mine)
    return pool_.fail(f.first_node, f.nodes, now(), own_fault);
  models::NodePool::Hit hit;
  for (long n = std::max(0L, f.first_node); n < std::min(pool_.size(), f.first_node + f.nodes); ++n)
    if (mine(n)) {
      models::NodePool::Hit one = pool_.fail(n, 1, now(), own_fault);
      hit.nodes.insert(hit.nodes.end(), one.nodes.begin(), one.nodes.end());
      hit.lost.insert(hit.lost.end(), one.lost.begin(), one.lost.end());
      hit.retired.insert(hit.retired.end(), one.retired.begin(), one.retired.end());
    }
  return hit;
}

void NodeKeeper::strike(msg::Failure f, const std::function<bool(long)>& mine)
{
  f.strike = ++strikes_;
  const models::NodePool::Hit hit = fail(f, mine);
  const auto& cap = s_.capacity;
  const double repair = s_.causes.at(static_cast<size_t>(f.cause)).repair.value_or(cap.repair_time).si();
  for (long node : hit.nodes) {
    const bool retired = std::find(hit.retired.begin(), hit.retired.end(), node) != hit.retired.end();
    const long holder = hit.holder(node);
    ++counters_of(holder >= 0 ? holder : spare_owner_).repairs;
    send(node, retired ? cap.lemon_replace_time.si() : repair, holder);
  }
  if (hit.lost.empty() && !hit.nodes.empty())
    ++counters_of(spare_owner_).spare_failures;
  for (auto& [job, j] : jobs_) {
    std::vector<long> lost = hit.slots_of(job);
    if (lost.empty())
      continue;
    lost_[{job, f.strike}] = std::move(lost);
    j.scheduler->post(f);
  }
}

std::vector<long> NodeKeeper::take_lost(long pool_job, long strike)
{
  const auto it = lost_.find({pool_job, strike});
  if (it == lost_.end())
    return {};
  std::vector<long> lost = std::move(it->second);
  lost_.erase(it);
  return lost;
}

void NodeKeeper::send(long node, double mean, long through)
{
  const double d = models::repair_duration(mean, s_.capacity.repair_exponential, times_);
  if (!(d > 0)) {
    pool_.repaired(node);  // replaced at once
    return;
  }
  const auto holder = jobs_.find(through);
  requests_.post(Request{d, node, through, holder != jobs_.end() ? holder->second.attachment : 0});
}

void NodeKeeper::back(const Request& r)
{
  // (A job that left the keeper since -- requeued, and placed again -- does not take it back.)
  if (auto it = jobs_.find(r.through); it != jobs_.end() && it->second.attachment == r.attachment) {
    it->second.scheduler->post(msg::Repaired{r.node});  // the job takes it back
    return;
  }
  pool_.repaired(r.node);
  tell_jobs(r.node, -1);
  if (on_return_)
    on_return_(r.node);
}

void NodeKeeper::taken_back(long node, long pool_job)
{
  tell_jobs(node, pool_job);
  // It is idle in the pool until a job takes it: the fleet may be owed one (a requeued or ended
  // job's), as of a node that came back directly.
  if (on_return_)
    on_return_(node);
}

void NodeKeeper::tell_jobs(long node, long except)
{
  for (auto& [job, j] : jobs_)
    if (job != except)
      j.scheduler->post(msg::Repaired{node, true});
}

Process NodeKeeper::operator()()
{
  std::priority_queue<Due, std::vector<Due>, Later> pending;
  long order = 0;
  while (true) {
    auto m = co_await requests_.next(pending.empty() ? -1 : std::get<0>(pending.top()));
    if (m) {
      pending.emplace(now() + m->after, order++, *m);
      continue;
    }
    const Request r = std::get<2>(pending.top());
    pending.pop();
    back(r);
  }
}

}  // namespace fleetsim::sim
