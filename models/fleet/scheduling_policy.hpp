#pragma once
// Fleet scheduling policies: which waiting jobs start now, which running jobs are preempted. One
// interface, one file per policy (models/fleet/policies/*.cpp) and a registry behind the scenario's
// `scheduler.policy`, as for the recovery policies (docs/extending.md).
//
// A policy never touches SimGrid nor the job records: it sees the queue in its own order, the
// cluster's free capacity and the running jobs' expected release times through SchedulerOps, and
// acts only through try_start() and preempt(). The fleet (fleet_state.hpp) runs it after every event
// that changes the queue or the capacity, again while it keeps starting or preempting jobs.
//
// Run times are known exactly (a trace's actual run time, a job's work): a backfill that trusts
// user estimates is a mapping of a trace's time-limit column, not yet read.

#include "cluster.hpp"
#include "job_spec.hpp"

#include "models/core/names.hpp"
#include <functional>
#include <limits>
#include <memory>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim::models::fleet {

enum class Preemption {
  None,
  Kill,        // the victim stops at once and loses the work since its last checkpoint
  Checkpoint,  // the victim writes a checkpoint (its checkpoint cost), then stops, losing nothing
};
inline constexpr NameTable<Preemption, 3> kPreemptionNames{
    {{"none", Preemption::None}, {"kill", Preemption::Kill}, {"checkpoint", Preemption::Checkpoint}}};
[[nodiscard]] inline std::optional<Preemption> preemption_from_name(std::string_view name)
{
  return from_name(kPreemptionNames, name);
}

/// A running job as a policy sees it.
struct RunningView {
  long job = 0;
  int priority = 0;
  bool preemptible = true;
  bool stopping = false;  // already being preempted or recovering: releases at `release`
  double started = 0;     // its current allocation
  double release = std::numeric_limits<double>::infinity();  // when its GPUs come back, as now known
  const Placement* placement = nullptr;
};

class SchedulerOps {
public:
  virtual ~SchedulerOps() = default;
  [[nodiscard]] virtual double now() const = 0;
  /// Up to `limit` waiting jobs, in the policy's order.
  [[nodiscard]] virtual std::vector<long> waiting(size_t limit) const = 0;
  [[nodiscard]] virtual const JobSpec& spec(long job) const = 0;
  /// Seconds the job would hold its GPUs if it started now (restart, remaining work, checkpoints).
  [[nodiscard]] virtual double run_estimate(long job) const = 0;
  [[nodiscard]] virtual const Cluster& cluster() const = 0;
  [[nodiscard]] virtual std::vector<RunningView> running() const = 0;
  /// Places and starts a waiting job when it fits now; false (nothing changed) when it does not.
  virtual bool try_start(long job) = 0;
  /// Preempts a running job (the scenario's preemption mode); its GPUs come back at once (kill) or
  /// after its checkpoint (checkpoint).
  virtual void preempt(long job) = 0;
  [[nodiscard]] virtual Preemption preemption() const = 0;
  [[nodiscard]] virtual size_t backfill_depth() const = 0;
};

class SchedulingPolicy {
public:
  virtual ~SchedulingPolicy() = default;
  /// The queue's order: by priority (higher first), else by submit time alone. Ties: submit time,
  /// then the workload's order.
  [[nodiscard]] virtual bool orders_by_priority() const { return false; }
  /// One scheduling pass.
  virtual void schedule(SchedulerOps& ops) const = 0;
};

/// EASY backfill behind the first waiting job `head` that does not fit (shared by the policies that
/// backfill): it gets a reservation at the earliest time the running jobs' releases make room for it,
/// and a later job starts now only if it fits and either ends before that time or leaves the
/// reservation whole. `queue` is the waiting list the pass started from.
void easy_backfill_behind(SchedulerOps& ops, long head, const std::vector<long>& queue);

struct SchedulingPolicyEntry {
  std::string name;
  std::string description;
  std::function<std::unique_ptr<SchedulingPolicy>()> make;
  /// What of the scheduler's keys the policy reads: scheduler.backfill_depth when it backfills,
  /// the jobs' priorities, scheduler.preemption and the jobs' preemptible flags when it orders by
  /// priority (the loader refuses them under a policy that does not: simulator/scenario/key_facts.hpp).
  bool backfills = false;
  bool by_priority = false;
};
[[nodiscard]] const SchedulingPolicyEntry* find_scheduling_policy(std::string_view name);
[[nodiscard]] std::vector<std::string> scheduling_policy_names();
bool register_scheduling_policy(SchedulingPolicyEntry entry);

}  // namespace fleetsim::models::fleet
