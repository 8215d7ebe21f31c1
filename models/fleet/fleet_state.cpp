#include "fleet_state.hpp"

#include "models/core/invariant.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::models::fleet {

FleetState::FleetState(FleetConfig config, const Workload& jobs, const SchedulingPolicy& policy)
    : cfg_(std::move(config)),
      policy_(policy),
      spec_(jobs),
      rec_(jobs.size()),
      live_(jobs.size()),
      cluster_(cfg_.nodes, cfg_.gpus_per_node, cfg_.nodes_per_rack, cfg_.nodes_per_pod, cfg_.spare_nodes),
      on_node_(static_cast<size_t>(cluster_.nodes())),
      timeline_(cfg_.horizon, cfg_.timeline_interval)
{
  total_.lost.assign(static_cast<size_t>(loss_causes()), 0);
  for (auto& r : rec_)
    r.time.lost.assign(static_cast<size_t>(loss_causes()), 0);
  update_levels();
}

std::string FleetState::loss_cause_name(int cause) const
{
  switch (cause) {
    case kCheckpoint: return "checkpoint";
    case kStartup: return "startup";
    case kPreemption: return "preemption";
    default: return cfg_.causes.at(static_cast<size_t>(cause - kFirstFailureCause));
  }
}

// ---- the queue ----

std::tuple<int, double, long> FleetState::queue_key(long job) const
{
  const JobSpec& s = spec(job);
  // A deferred job queues from when it became eligible, not ahead of the jobs submitted meanwhile.
  const double since = live_[static_cast<size_t>(job)].deferred ? rec_[static_cast<size_t>(job)].eligible : s.submit;
  return {policy_.orders_by_priority() ? -s.priority : 0, since, job};
}

void FleetState::enqueue(long job, double t)
{
  Live& l = live_[static_cast<size_t>(job)];
  queue_.insert(queue_key(job));
  l.in_queue = true;
  l.queued_since = t;
  rec_[static_cast<size_t>(job)].state = JobState::Waiting;
  demand_ += spec(job).gpus;
}

void FleetState::dequeue(long job)
{
  Live& l = live_[static_cast<size_t>(job)];
  queue_.erase(queue_key(job));
  l.in_queue = false;
  rec_[static_cast<size_t>(job)].waited += now_ - l.queued_since;
  demand_ -= spec(job).gpus;
}

std::vector<long> FleetState::waiting(size_t limit) const
{
  std::vector<long> out;
  for (auto it = queue_.begin(); it != queue_.end() && out.size() < limit; ++it)
    out.push_back(std::get<2>(*it));
  return out;
}

double FleetState::run_estimate(long job) const
{
  const JobSpec& s = spec(job);
  const Segment seg{now_, s.restart_cost, s.checkpoint_interval, s.checkpoint_cost};
  const double remaining = std::max(0.0, s.work - rec_[static_cast<size_t>(job)].committed);
  return finish_time(seg, remaining) - now_;
}

std::vector<RunningView> FleetState::running() const
{
  std::vector<RunningView> out;
  out.reserve(running_.size());
  for (long job : running_) {
    const JobRecord& r = rec_[static_cast<size_t>(job)];
    const Live& l = live_[static_cast<size_t>(job)];
    const JobSpec& s = spec(job);
    RunningView v;
    v.job = job;
    v.priority = s.priority;
    v.preemptible = s.preemptible;
    v.stopping = r.state != JobState::Running;
    v.started = l.alloc_t;
    v.placement = &l.placement;
    if (r.state == JobState::Running)
      v.release = finish_time(l.seg, std::max(0.0, s.work - r.committed));
    else if (r.state == JobState::Detecting)
      v.release = l.stop_t + cfg_.detection.at(static_cast<size_t>(l.failing_cause - kFirstFailureCause));
    else if (r.state == JobState::Checkpointing || r.state == JobState::Restoring)
      v.release = l.stop_t + s.checkpoint_cost + std::max(0.0, s.work - r.committed - l.pending);
    else
      v.release = l.stop_t + s.checkpoint_cost;
    out.push_back(v);
  }
  return out;
}

// ---- scheduling ----

void FleetState::schedule()
{
  if (scheduling_)
    return;  // a policy's try_start/preempt runs inside a pass
  scheduling_ = true;
  for (int pass = 0; pass < 64; ++pass) {
    const size_t before = queue_.size() + static_cast<size_t>(preemptions_);
    policy_.schedule(*this);
    if (queue_.size() + static_cast<size_t>(preemptions_) == before)
      break;
  }
  scheduling_ = false;
  update_levels();
}

bool FleetState::try_start(long job)
{
  Live& l = live_[static_cast<size_t>(job)];
  if (!l.in_queue)
    return false;
  const std::optional<Placement> p = cluster_.place(spec(job).gpus, cfg_.packing);
  if (!p)
    return false;
  dequeue(job);
  hold(job, *p, now_);
  JobRecord& r = rec_[static_cast<size_t>(job)];
  if (r.first_start < 0) {
    r.first_start = now_;
    r.racks = p->racks;
    r.pods = p->pods;
  }
  r.max_racks = std::max(r.max_racks, p->racks);
  start_segment(job, now_, l.restart_cause);
  return true;
}

void FleetState::hold(long job, const Placement& p, double t)
{
  Live& l = live_[static_cast<size_t>(job)];
  cluster_.take(p);
  l.placement = p;
  l.alloc_t = t;
  const long g = p.gpus();
  held_gpus_ += g;
  rec_[static_cast<size_t>(job)].held = g;
  for (const auto& part : p.parts)
    on_node_[static_cast<size_t>(part.first)].push_back(job);
  running_.insert(job);
}

void FleetState::release(long job, double t)
{
  Live& l = live_[static_cast<size_t>(job)];
  JobRecord& r = rec_[static_cast<size_t>(job)];
  const double gs = static_cast<double>(r.held) * (t - l.alloc_t);
  r.time.allocated += gs;
  total_.allocated += gs;
  add_allocated_carbon(job, l.alloc_t, t);
  cluster_.give(l.placement);
  for (const auto& part : l.placement.parts) {
    auto& v = on_node_[static_cast<size_t>(part.first)];
    v.erase(std::find(v.begin(), v.end(), job));
  }
  held_gpus_ -= r.held;
  running_.erase(job);
  l.placement = Placement{};
}

void FleetState::add_allocated_carbon(long job, double a, double b)
{
  if (cfg_.carbon.empty())
    return;
  JobRecord& r = rec_[static_cast<size_t>(job)];
  r.allocated_gpu_s_ci += static_cast<double>(r.held) * cfg_.carbon.integral_hours(a, b) * energy::kSecondsPerHour;
}

void FleetState::start_segment(long job, double t, int restart_cause)
{
  if (stores(job)) {
    start_storing(job, t, restart_cause);
    return;
  }
  Live& l = live_[static_cast<size_t>(job)];
  const JobSpec& s = spec(job);
  JobRecord& r = rec_[static_cast<size_t>(job)];
  l.seg = Segment{t, s.restart_cost, s.checkpoint_interval, s.checkpoint_cost};
  l.restart_cause = restart_cause;
  r.state = JobState::Running;
  set_timer(finish_time(l.seg, std::max(0.0, s.work - r.committed)), TimerKind::Finish, job, ++l.epoch);
}

// ---- accounting ----

void FleetState::charge(long job, int cause, double gpu_seconds)
{
  if (gpu_seconds <= 0)
    return;
  rec_[static_cast<size_t>(job)].time.charge(cause, gpu_seconds);
  total_.charge(cause, gpu_seconds);
}

void FleetState::productive(long job, double gpu_seconds)
{
  if (gpu_seconds <= 0)
    return;
  rec_[static_cast<size_t>(job)].time.productive += gpu_seconds;
  total_.productive += gpu_seconds;
}

void FleetState::add_training(long job, double t_end)
{
  const Live& l = live_[static_cast<size_t>(job)];
  JobRecord& r = rec_[static_cast<size_t>(job)];
  const double g = static_cast<double>(r.held);
  const double a = l.seg.t0 + l.seg.restart;
  const double w = timeline_.interval();
  for (double lo = a; lo < t_end;) {
    const double hi = std::min(t_end, (std::floor(lo / w) + 1) * w);
    const double dw = segment_at(l.seg, hi).work - segment_at(l.seg, lo).work;
    if (hi > lo && dw > 0) {
      timeline_.add(kTraining, lo, hi, g * dw / (hi - lo));
      // The job's share of the row's training, at the row piece's mean intensity (as the timeline,
      // which spreads the piece's work evenly over it).
      r.training_gpu_s += g * dw;
      if (!cfg_.carbon.empty())
        r.training_gpu_s_ci += g * dw * cfg_.carbon.mean(lo, hi);
    }
    lo = hi;
  }
}

void FleetState::stop_progress(long job, double t, int cause)
{
  Live& l = live_[static_cast<size_t>(job)];
  JobRecord& r = rec_[static_cast<size_t>(job)];
  const double g = static_cast<double>(r.held);
  SegmentState st = segment_at(l.seg, t);
  const double remaining = std::max(0.0, spec(job).work - r.committed - l.draining);
  st.work = std::min(st.work, remaining);
  st.committed = std::min(st.committed, st.work);
  charge(job, l.restart_cause, g * st.restart_spent);
  charge(job, kCheckpoint, g * st.checkpointing);
  productive(job, g * st.committed);
  r.committed += st.committed;
  add_training(job, t);
  l.stop_t = t;
  l.pending = st.work - st.committed;
  if (cause >= 0) {  // the uncommitted work is lost to `cause`; else it is pending (a checkpoint)
    charge(job, cause, g * l.pending);
    l.pending = 0;
  }
  ++l.epoch;  // its Finish timer is void
}

void FleetState::set_timer(double t, TimerKind kind, long id, long epoch)
{
  timers_.emplace(t, timer_seq_++, kind, id, epoch);
}

void FleetState::update_levels()
{
  timeline_.level(kAllocated, static_cast<double>(held_gpus_), now_);
  timeline_.level(kIdle, static_cast<double>(cluster_.free_gpus()), now_);
  timeline_.level(kSpare, static_cast<double>(cluster_.spare_gpus()), now_);
  timeline_.level(kDown, static_cast<double>(cluster_.down_gpus()), now_);
  timeline_.level(kDemand, static_cast<double>(demand_), now_);
  timeline_.level(kRunningJobs, static_cast<double>(running_.size()), now_);
  timeline_.level(kWaitingJobs, static_cast<double>(queue_.size()), now_);
  timeline_.level(kIdleWhileWaiting, queue_.empty() ? 0.0 : static_cast<double>(cluster_.free_gpus()), now_);
}

}  // namespace fleetsim::models::fleet
