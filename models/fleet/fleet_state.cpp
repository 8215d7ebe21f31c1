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
      cluster_(cfg_.nodes, cfg_.gpus_per_node, cfg_.nodes_per_rack, cfg_.nodes_per_pod, cfg_.spare_nodes,
               cfg_.placement_seed),
      on_node_(static_cast<size_t>(cluster_.nodes())),
      accounts_(loss_causes(), cfg_.horizon, cfg_.timeline_interval, cfg_.carbon)
{
  for (auto& r : rec_)
    accounts_.open(r);
  if (cfg_.spares_replayed)  // the spare reserve is the keeper's (the cluster's last nodes)
    for (long n = cluster_.nodes() - std::min(cfg_.spare_nodes, cluster_.nodes()); n < cluster_.nodes(); ++n)
      kept_.insert(n);
  contention_ = loss_cause("contention");
  data_stall_ = loss_cause("data_stall");
  update_levels();
}

std::string FleetState::loss_cause_name(int cause) const
{
  switch (cause) {
    case kCheckpoint: return "checkpoint";
    case kStartup: return "startup";
    case kPreemption: return "preemption";
    default: break;
  }
  const auto i = static_cast<size_t>(cause - kFirstFailureCause);
  return i < cfg_.causes.size() ? cfg_.causes[i] : cfg_.extra_causes.at(i - cfg_.causes.size());
}

int FleetState::loss_cause(const std::string& name) const
{
  for (int c = 0; c < loss_causes(); ++c)
    if (loss_cause_name(c) == name)
      return c;
  return -1;
}

// ---- the queue ----

JobQueue::Key FleetState::queue_key(long job) const
{
  const JobSpec& s = spec(job);
  // A deferred job queues from when it became eligible, not ahead of the jobs submitted meanwhile.
  const double since = live_[static_cast<size_t>(job)].deferred ? rec_[static_cast<size_t>(job)].eligible : s.submit;
  return {policy_.orders_by_priority() ? -s.priority : 0, since, job};
}

void FleetState::enqueue(long job, double t)
{
  Live& l = live_[static_cast<size_t>(job)];
  queue_.insert(queue_key(job), spec(job).gpus);
  l.in_queue = true;
  l.queued_since = t;
  rec_[static_cast<size_t>(job)].state = JobState::Waiting;
}

void FleetState::dequeue(long job)
{
  Live& l = live_[static_cast<size_t>(job)];
  queue_.erase(queue_key(job), spec(job).gpus);
  l.in_queue = false;
  rec_[static_cast<size_t>(job)].waited += now_ - l.queued_since;
}

std::vector<long> FleetState::waiting(size_t limit) const { return queue_.first(limit); }

double FleetState::run_estimate(long job) const
{
  const JobSpec& s = spec(job);
  const Live& l = live_[static_cast<size_t>(job)];
  // A work job as the closed-form one, from its start (its runtime's progress is its own: the whole
  // work, again after a requeue).
  if (s.work_job)
    return std::max(0.0, finish_time(Segment{l.in_queue ? now_ : l.alloc_t, s.restart_cost, s.checkpoint_interval,
                                             s.checkpoint_cost},
                                     s.work) -
                             now_);
  if (s.replayed)  // its tokens at the nominal rate from its start (now, if queued), or the window
    return s.work > 0 ? std::max(0.0, (l.in_queue ? now_ : l.alloc_t) + s.work - now_) : cfg_.horizon - now_;
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
    if (s.work_job)
      v.release = now_ + run_estimate(job);
    else if (s.replayed)
      v.release = cfg_.horizon;  // it holds its nodes for the whole window
    else if (r.state == JobState::Running)
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
  placement_changes_.push_back(job);
}

void FleetState::release(long job, double t)
{
  Live& l = live_[static_cast<size_t>(job)];
  JobRecord& r = rec_[static_cast<size_t>(job)];
  accounts_.allocated(r, l.alloc_t, t);
  cluster_.give(l.placement);
  for (const auto& part : l.placement.parts) {
    auto& v = on_node_[static_cast<size_t>(part.first)];
    v.erase(std::find(v.begin(), v.end(), job));
  }
  held_gpus_ -= r.held;
  running_.erase(job);
  l.placement = Placement{};
  l.speed = 1;
  l.data = 1;
  placement_changes_.push_back(job);
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
  if (s.replayed) {
    // Its runtime replays it from now on (its recoveries are its own): it starts once, and again
    // each time it is placed after a requeue (requeue_replayed), when its runtime goes on.
    check_invariant(t >= s.submit && (r.first_start == t || l.requeued), "a replayed job starts once",
                    [&] { return "job " + s.id + " starts at " + std::to_string(t) + " s"; });
    r.state = JobState::Running;
    keep_placement(job);
    started_replayed_.push_back(job);
    return;
  }
  // A job with a checkpoint to read cannot restore while the storage is out: its restart (launch,
  // initialisation and reload in one cost) waits for the storage's return.
  const double wait = r.committed > 0 ? std::max(0.0, storage_back_ - t) : 0.0;
  l.seg = segment(job, t, wait + s.restart_cost, s.checkpoint_interval, s.checkpoint_cost);
  l.restart_cause = restart_cause;
  r.state = JobState::Running;
  set_timer(finish_time(l.seg, std::max(0.0, s.work - r.committed)), TimerKind::Finish, job, ++l.epoch);
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
  charge_segment(job, st);
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

void FleetState::charge_segment(long job, const SegmentState& st)
{
  const Live& l = live_[static_cast<size_t>(job)];
  const double g = static_cast<double>(rec_[static_cast<size_t>(job)].held);
  charge(job, l.restart_cause, g * st.restart_spent);
  charge(job, kCheckpoint, g * st.checkpointing);
  charge_slow(job, l.seg, st.work - l.seg.carried, st.training);
}

void FleetState::charge_slow(long job, const Segment& seg, double work, double training)
{
  // Training at a speed below 1: of each second, 1 - speed trained nothing. At the fabric's speed
  // the work would have taken work / fabric; the rest is the data loading's.
  const double slow = training - work;
  if (!(slow > 0))
    return;
  const double g = static_cast<double>(rec_[static_cast<size_t>(job)].held);
  const double data = seg.speed < seg.fabric ? std::min(slow, work / seg.speed - work / seg.fabric) : 0.0;
  if (data > 0) {
    check_invariant(data_stall_ >= 0, "a job waits for its data only when it loads some (the data_stall cause)",
                    [&] { return "job " + spec(job).id; });
    charge(job, data_stall_, g * data);
  }
  if (slow - data > 0) {
    check_invariant(contention_ >= 0, "a job slows only on a shared fabric (the contention cause)",
                    [&] { return "job " + spec(job).id; });
    charge(job, contention_, g * (slow - data));
  }
}

void FleetState::set_speed(long job, double speed, double t)
{
  Live& l = live_[static_cast<size_t>(job)];
  if (l.speed == speed || l.placement.parts.empty())
    return;
  l.speed = speed;
  retime(job, t);
}

void FleetState::set_data_ratio(long job, double ratio, double t)
{
  Live& l = live_[static_cast<size_t>(job)];
  if (l.data == ratio || l.placement.parts.empty())
    return;
  l.data = ratio;
  retime(job, t);
}

void FleetState::retime(long job, double t)
{
  now_ = std::max(now_, t);
  Live& l = live_[static_cast<size_t>(job)];
  JobRecord& r = rec_[static_cast<size_t>(job)];
  const double speed = std::min(l.speed, l.data);
  if (speed == l.seg.speed && l.speed == l.seg.fabric)
    return;
  // Not training now (detecting, checkpointing, restoring, preempting; a replayed job has its own
  // runtime): the speed applies from its next segment. Nor in a storing job's restart before its
  // restore (the restore's timer stands).
  if (spec(job).replayed || r.state != JobState::Running ||
      (stores(job) && r.committed > 0 && t < l.seg.t0 + l.seg.restart))
    return;
  const Segment old = l.seg;
  SegmentState st = segment_at(old, t);
  const double remaining = std::max(0.0, spec(job).work - r.committed - l.draining);
  st.work = std::min(st.work, remaining);
  st.committed = std::min(st.committed, st.work);
  charge_segment(job, st);
  productive(job, static_cast<double>(r.held) * st.committed);
  r.committed += st.committed;
  add_training(job, t);
  l.seg = rebase(old, t, speed);
  l.seg.fabric = l.speed;
  l.seg.carried = st.work - st.committed;  // (as clamped)
  ++l.epoch;
  if (stores(job))
    schedule_progress(job);
  else
    set_timer(finish_time(l.seg, std::max(0.0, spec(job).work - r.committed)), TimerKind::Finish, job, l.epoch);
}

void FleetState::update_levels()
{
  FleetTimeline& tl = accounts_.timeline();
  tl.level(kAllocated, static_cast<double>(held_gpus_), now_);
  tl.level(kIdle, static_cast<double>(cluster_.free_gpus()), now_);
  tl.level(kSpare, static_cast<double>(cluster_.spare_gpus()), now_);
  tl.level(kDown, static_cast<double>(cluster_.down_gpus()), now_);
  tl.level(kDemand, static_cast<double>(queue_.demand()), now_);
  tl.level(kRunningJobs, static_cast<double>(running_.size()), now_);
  tl.level(kWaitingJobs, static_cast<double>(queue_.size()), now_);
  tl.level(kIdleWhileWaiting, queue_.empty() ? 0.0 : static_cast<double>(cluster_.free_gpus()), now_);
}

}  // namespace fleetsim::models::fleet
