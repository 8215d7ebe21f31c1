// Priority scheduling with preemption: the queue is ordered by priority (then submit time). The
// first job that does not fit may preempt running jobs of lower priority (the lowest priority first,
// then the most recently started, which have the least to lose), when preempting them makes room;
// otherwise it gets an EASY reservation and later jobs backfill around it. At most one preemption
// round is in flight at a time, so a checkpoint-then-preempt is not repeated while its victims write.

#include "builtin_policies.hpp"

#include <algorithm>

namespace fleetsim::models::fleet {
namespace {

class PriorityPolicy final : public SchedulingPolicy {
public:
  [[nodiscard]] bool orders_by_priority() const override { return true; }

  void schedule(SchedulerOps& ops) const override
  {
    while (true) {
      const std::vector<long> head = ops.waiting(1);
      if (head.empty())
        return;
      const long job = head.front();
      if (ops.try_start(job))
        continue;
      if (preempt_for(ops, job) && ops.try_start(job))
        continue;  // killed victims released their GPUs at once
      easy_backfill_behind(ops, job, ops.waiting(ops.backfill_depth() + 1));
      return;
    }
  }

private:
  // Preempts the victims that make room for `job`; true when it did.
  static bool preempt_for(SchedulerOps& ops, long job)
  {
    if (ops.preemption() == Preemption::None)
      return false;
    const JobSpec& want = ops.spec(job);
    std::vector<RunningView> running = ops.running();
    if (std::any_of(running.begin(), running.end(), [](const RunningView& r) { return r.stopping; }))
      return false;  // GPUs are already on their way back: wait for them first
    std::vector<RunningView> victims;
    for (const RunningView& r : running)
      if (r.preemptible && r.priority < want.priority && r.placement != nullptr)
        victims.push_back(r);
    std::stable_sort(victims.begin(), victims.end(), [](const RunningView& a, const RunningView& b) {
      return a.priority != b.priority ? a.priority < b.priority : a.started > b.started;
    });
    Cluster::Projection room = ops.cluster().projection();
    size_t needed = 0;
    while (needed < victims.size() && !room.fits(want.gpus))
      room.give(*victims[needed++].placement);
    if (!room.fits(want.gpus))
      return false;
    for (size_t i = 0; i < needed; ++i)
      ops.preempt(victims[i].job);
    return needed > 0;
  }
};

}  // namespace

SchedulingPolicyEntry priority_policy_entry()
{
  return {"priority", "priority order with preemption of lower-priority jobs (scheduler.preemption) and EASY backfill",
          [] { return std::make_unique<PriorityPolicy>(); },
          /*backfills=*/true,
          /*by_priority=*/true};
}

}  // namespace fleetsim::models::fleet
