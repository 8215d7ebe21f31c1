// FleetState's events: arrivals, failures, preemptions, timers and the end of the window
// (fleet_state.cpp has the queue, the scheduling pass and the accounting).

#include "fleet_state.hpp"

#include "models/core/invariant.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::models::fleet {

void FleetState::submit(long job, double t)
{
  now_ = t;
  check_invariant(rec_.at(static_cast<size_t>(job)).state == JobState::Pending, "a job is submitted once",
                  [&] { return "job " + spec(job).id; });
  JobRecord& r = rec_[static_cast<size_t>(job)];
  const JobSpec& s = spec(job);
  // Carbon-aware: a deferrable job waits for the hour whose grid is cleanest over its run at full speed.
  r.eligible = cfg_.carbon_aware && s.deferrable > 0
                   ? energy::lowest_carbon_start(cfg_.carbon, t, s.deferrable, std::max(0.0, s.work))
                   : t;
  if (r.eligible > t) {
    Live& l = live_[static_cast<size_t>(job)];
    l.deferred = true;
    r.state = JobState::Deferred;
    set_timer(r.eligible, TimerKind::Eligible, job, l.epoch);
    return;
  }
  enqueue(job, t);
  schedule();
}

void FleetState::strike(long job, int cause, double t)
{
  JobRecord& r = rec_[static_cast<size_t>(job)];
  Live& l = live_[static_cast<size_t>(job)];
  if (r.state == JobState::Detecting)
    return;  // already down: one recovery
  ++r.interruptions;
  ++interruptions_;
  drop_drain(job, cause);  // an asynchronous checkpoint still draining is lost
  if (r.state == JobState::Checkpointing || r.state == JobState::Restoring) {
    strike_during_io(job, cause, t);
  } else if (r.state == JobState::Preempting) {
    // Its checkpoint-then-preempt is cut short: what it was saving is lost.
    const double g = static_cast<double>(r.held);
    charge(job, kPreemption, g * (t - l.stop_t));
    charge(job, cause, g * l.pending);
    l.pending = 0;
    ++l.epoch;
  } else {
    stop_progress(job, t, cause);
  }
  r.state = JobState::Detecting;
  l.failing_cause = cause;
  l.stop_t = t;
  const double detect = cfg_.detection.at(static_cast<size_t>(cause - kFirstFailureCause));
  set_timer(t + detect, TimerKind::Detected, job, l.epoch);
}

std::vector<long> FleetState::node_failure(int cause, long first, long count, double t)
{
  now_ = t;
  std::vector<long> down;
  bool struck = false;
  for (long n = std::max(0L, first); n < std::min(cluster_.nodes(), first + count); ++n) {
    if (!cluster_.up(n) || replayed_node(n))
      continue;
    down.push_back(n);
    const std::vector<long> victims = on_node_[static_cast<size_t>(n)];
    cluster_.node_down(n);
    for (long job : victims) {
      strike(job, kFirstFailureCause + cause, t);
      struck = true;
    }
  }
  failures_ += !down.empty();
  if (!struck && !down.empty())
    ++failures_on_idle_;
  update_levels();
  return down;
}

void FleetState::gpu_job_failure(int cause, long gpu, double t)
{
  now_ = t;
  ++failures_;
  const long node = gpu / cluster_.gpus_per_node();
  const long local = gpu % cluster_.gpus_per_node();
  long seen = 0;
  if (node >= 0 && node < cluster_.nodes())
    for (long job : on_node_[static_cast<size_t>(node)]) {
      for (const auto& [n, g] : live_[static_cast<size_t>(job)].placement.parts)
        if (n == node)
          seen += g;
      if (local < seen) {
        if (spec(job).replayed) {
          --failures_;  // its runtime draws its own
          return;
        }
        strike(job, kFirstFailureCause + cause, t);
        update_levels();
        return;
      }
    }
  ++failures_on_idle_;
}

void FleetState::all_jobs_failure(int cause, double t)
{
  now_ = t;
  ++failures_;
  std::vector<long> victims;
  for (long job : running_)
    if (!spec(job).replayed)  // (the loader refuses a storage outage beside a replayed job)
      victims.push_back(job);
  for (long job : victims)
    strike(job, kFirstFailureCause + cause, t);
  if (victims.empty())
    ++failures_on_idle_;
  update_levels();
}

void FleetState::recover(long job, double t)
{
  Live& l = live_[static_cast<size_t>(job)];
  const JobSpec& s = spec(job);
  if (s.recovery == JobRecovery::InPlace && s.gpus > cluster_.gpus_per_node()) {
    // Keep the healthy nodes; replace the failed ones from the spares or idle nodes, or requeue.
    std::vector<size_t> failed;
    for (size_t i = 0; i < l.placement.parts.size(); ++i)
      if (!cluster_.up(l.placement.parts[i].first))
        failed.push_back(i);
    std::vector<long> got;
    for (size_t k = 0; k < failed.size(); ++k)
      if (auto n = cluster_.take_replacement(!cfg_.spares_replayed))
        got.push_back(*n);
    if (got.size() == failed.size()) {
      for (size_t k = 0; k < failed.size(); ++k) {
        auto& part = l.placement.parts[failed[k]];
        auto& v = on_node_[static_cast<size_t>(part.first)];
        v.erase(std::find(v.begin(), v.end(), job));
        Placement one;
        one.parts.emplace_back(part.first, part.second);
        cluster_.give(one);  // back to the node in repair: it returns with the node
        part.first = got[k];
        on_node_[static_cast<size_t>(got[k])].push_back(job);
      }
      placement_changes_.push_back(job);
      ++in_place_;
      start_segment(job, t, l.failing_cause);
      return;
    }
    for (long n : got) {
      Placement one;
      one.parts.emplace_back(n, cluster_.gpus_per_node());
      cluster_.give(one);
    }
  }
  release(job, t);
  l.restart_cause = l.failing_cause;
  ++requeues_;
  enqueue(job, t);
}

void FleetState::preempt(long job)
{
  JobRecord& r = rec_[static_cast<size_t>(job)];
  Live& l = live_[static_cast<size_t>(job)];
  if (r.state != JobState::Running || cfg_.preemption == Preemption::None)
    return;
  ++r.preemptions;
  ++preemptions_;
  if (cfg_.preemption == Preemption::Kill) {
    drop_drain(job, kPreemption);
    stop_progress(job, now_, kPreemption);
    release(job, now_);
    l.restart_cause = kPreemption;
    enqueue(job, now_);
    return;
  }
  stop_progress(job, now_, -1);  // its uncommitted work is saved by the checkpoint it now writes
  drop_drain(job, -1);           // and so is what an asynchronous drain was saving
  r.state = JobState::Preempting;
  set_timer(now_ + spec(job).checkpoint_cost, TimerKind::Preempted, job, l.epoch);
}

void FleetState::repair_due(long node, double t_due) { set_timer(t_due, TimerKind::Repair, node, 0); }

std::optional<double> FleetState::next_timer() const { return timers_.next(); }

void FleetState::fire_timers(double t)
{
  // Each timer is handled at its own due time (a caller may fire late: tests step ahead), and what
  // it sets due by t fires in this call too.
  while (const auto timer = timers_.pop_due(t)) {
    const auto [due, kind, id, epoch] = *timer;
    now_ = std::max(now_, due);
    if (kind == TimerKind::Repair) {
      cluster_.node_up(id);
      repaired_.push_back(id);
      continue;
    }
    JobRecord& r = rec_[static_cast<size_t>(id)];
    Live& l = live_[static_cast<size_t>(id)];
    if (epoch != l.epoch)
      continue;  // overtaken by a failure or a preemption
    const double g = static_cast<double>(r.held);
    if (kind == TimerKind::Eligible) {
      enqueue(id, now_);
    } else if (kind == TimerKind::CheckpointDue || kind == TimerKind::RestoreDue || kind == TimerKind::SnapshotDone) {
      storage_timer(id, kind);
    } else if (kind == TimerKind::Finish) {
      drop_drain(id, -1, true);  // done: what a drain was saving is the finished model's
      const double remaining = std::max(0.0, spec(id).work - r.committed);
      charge(id, l.restart_cause, g * l.seg.restart);
      charge(id, kCheckpoint, g * (l.seg.stall + checkpoints_for(l.seg, remaining) * l.seg.cost));
      if (!l.seg.plain()) {  // the segment's training beyond its work, at a speed below 1
        const double training =
            now_ - l.seg.t0 - l.seg.restart - l.seg.stall - checkpoints_for(l.seg, remaining) * l.seg.cost;
        charge_slow(id, l.seg, remaining - l.seg.carried, training);
      }
      productive(id, g * remaining);
      add_training(id, now_);
      r.committed += remaining;
      release(id, now_);
      r.state = JobState::Done;
      r.end = now_;
    } else if (kind == TimerKind::Detected) {
      charge(id, l.failing_cause, g * (now_ - l.stop_t));
      recover(id, now_);
    } else {  // Preempted: the checkpoint is written
      charge(id, kPreemption, g * (now_ - l.stop_t));
      productive(id, g * l.pending);
      r.committed += l.pending;
      l.pending = 0;
      release(id, now_);
      l.restart_cause = kPreemption;
      enqueue(id, now_);
    }
  }
  now_ = std::max(now_, t);
  schedule();
}

void FleetState::finish(double horizon)
{
  now_ = horizon;
  for (long job : std::vector<long>(running_.begin(), running_.end())) {
    JobRecord& r = rec_[static_cast<size_t>(job)];
    Live& l = live_[static_cast<size_t>(job)];
    const double g = static_cast<double>(r.held);
    check_invariant(!spec(job).replayed, "a replayed job is closed by its runtime's trace (close_replayed)",
                    [&] { return "job " + spec(job).id; });
    if (r.state == JobState::Running) {
      // Work since the last checkpoint is not lost yet: it counts, as in the single-job replay.
      stop_progress(job, horizon, -1);
      productive(job, g * l.pending);
      r.progress_at_end = r.committed + l.pending;
      l.pending = 0;
    } else if (r.state == JobState::Detecting) {
      charge(job, l.failing_cause, g * (horizon - l.stop_t));
      r.progress_at_end = r.committed;
    } else if (r.state == JobState::Preempting) {
      charge(job, kPreemption, g * (horizon - l.stop_t));
      productive(job, g * l.pending);
      r.progress_at_end = r.committed + l.pending;
    } else if (r.state == JobState::Checkpointing) {
      // The write in flight is not lost yet: its work counts, as in the single-job replay.
      charge(job, kCheckpoint, g * (horizon - l.stop_t));
      productive(job, g * l.pending);
      r.progress_at_end = r.committed + l.pending;
    } else if (r.state == JobState::Restoring) {
      charge(job, l.restart_cause, g * (horizon - l.stop_t));
      r.progress_at_end = r.committed;
    }
    if (l.drain_in_flight) {  // the drain in flight is not lost yet: its work counts
      productive(job, g * l.draining);
      r.progress_at_end += l.draining;
    }
    accounts_.allocated(r, l.alloc_t, horizon);
  }
  for (long job : waiting(queue_.size()))
    rec_[static_cast<size_t>(job)].waited += horizon - live_[static_cast<size_t>(job)].queued_since;
  // The others' work: saved by their checkpoints (all of it for a finished job).
  for (JobRecord& r : rec_)
    if (running_.count(static_cast<long>(&r - rec_.data())) == 0)
      r.progress_at_end = r.committed;
  accounts_.timeline().finish(horizon);
  // Every GPU-second a job held is productive or lost to exactly one cause, and was held on the timeline.
  // (Each job's first: a job's broken account names the job.)
  for (size_t j = 0; j < rec_.size(); ++j)
    check_closes(rec_[j].time, "job " + spec_[j].id);
  check_closes(total(), "the fleet");
  check_allocated(total(), timeline());
}

}  // namespace fleetsim::models::fleet
