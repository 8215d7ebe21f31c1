// FleetState's replayed jobs (JobSpec::replayed): their runtimes live in the simulator, and the
// nodes the simulator's node keeper keeps for them and for the spares are seen here by count only.
// Kept nodes are shown as spares (the reserve's), taken whole (the living replayed jobs' GPUs), or
// down (nodes the keeper owes the scheduler back, in repair): which node is where is the keeper's.
#include "fleet_state.hpp"

#include "models/core/invariant.hpp"

#include <algorithm>

namespace fleetsim::models::fleet {

bool FleetState::replayed_node(long n) const { return kept_.count(n) > 0; }

void FleetState::keep_placement(long job)
{
  for (const auto& part : live(job).placement.parts)
    kept_.insert(part.first);
}

void FleetState::leave(long job, double t)
{
  JobRecord& r = record(job);
  Live& l = live(job);
  accounts_.allocated(r, l.alloc_t, t);
  for (const auto& part : l.placement.parts) {
    auto& v = on_node_[static_cast<size_t>(part.first)];
    // (A node the keeper gave back while the job lived no longer lists it.)
    if (const auto it = std::find(v.begin(), v.end(), job); it != v.end())
      v.erase(it);
  }
  held_gpus_ -= r.held;
  running_.erase(job);
  l.placement = Placement{};
  placement_changes_.push_back(job);
}

void FleetState::end_replayed(long job, double t)
{
  now_ = std::max(now_, t);
  JobRecord& r = record(job);
  check_invariant(spec(job).replayed && running_.count(job) == 1, "a replayed job ends once, while it runs",
                  [&] { return "job " + spec(job).id; });
  leave_kept(job, t);
  r.state = JobState::Done;
  r.end = t;
  update_levels();
}

void FleetState::requeue_replayed(long job, double t)
{
  now_ = std::max(now_, t);
  check_invariant(spec(job).replayed && running_.count(job) == 1, "a replayed job is requeued while it runs",
                  [&] { return "job " + spec(job).id; });
  leave_kept(job, t);
  live(job).requeued = true;
  ++requeues_;
  enqueue(job, t);
  update_levels();
}

void FleetState::leave_kept(long job, double t)
{
  const JobRecord& r = record(job);
  const Placement p = live(job).placement;
  leave(job, t);
  // The keeper owes the scheduler as many nodes as the job brought: shown down until they come back
  // (reclaim), the job's own first, then nodes that stood in for it (no job lists them).
  const long gpn = cluster_.gpus_per_node();
  long owed = (r.held + gpn - 1) / gpn;  // (its placement lists those the keeper has not given back)
  const auto owe = [&](long n) {
    if (owed > 0 && kept_.count(n) > 0 && kept_down_.count(n) == 0 && !cluster_.spare(n) &&
        on_node_[static_cast<size_t>(n)].empty()) {
      cluster_.keep(n, Cluster::Kept::Down);
      kept_down_.insert(n);
      --owed;
    }
  };
  for (const auto& part : p.parts)
    owe(part.first);
  for (auto it = kept_.begin(); owed > 0 && it != kept_.end();)
    owe(*it++);
  check_invariant(owed == 0, "the nodes a replayed job leaves are kept until given back",
                  [&] { return "job " + spec(job).id + ": " + std::to_string(owed) + " nodes not found"; });
}

void FleetState::reclaim(const std::vector<long>& nodes, double t)
{
  now_ = std::max(now_, t);
  for (long n : nodes) {
    check_invariant(kept_.count(n) == 1 && !kept_down_.empty(), "a node given back was kept and owed",
                    [&] { return "node " + std::to_string(n); });
    if (kept_down_.erase(n) == 0) {
      // A node shown down stands in for it from now on, shown as it was.
      const long stand_in = *kept_down_.begin();
      kept_down_.erase(kept_down_.begin());
      cluster_.keep(stand_in, cluster_.spare(n) ? Cluster::Kept::Spare : Cluster::Kept::Taken);
    }
    cluster_.reclaim(n);
    kept_.erase(n);
    // A living replayed job placed on it holds it no more (a node that came back to the reserve).
    for (long job : on_node_[static_cast<size_t>(n)]) {
      auto& parts = live(job).placement.parts;
      parts.erase(std::remove_if(parts.begin(), parts.end(), [n](const auto& part) { return part.first == n; }),
                  parts.end());
    }
    on_node_[static_cast<size_t>(n)].clear();
  }
  schedule();
}

void FleetState::close_replayed(long job, const ReplayedTime& time, double horizon)
{
  JobRecord& r = record(job);
  const bool ended = r.state == JobState::Done;
  const bool holds = running_.count(job) == 1;  // (not: ended, or requeued and waiting at the window's end)
  if (!ended)
    now_ = horizon;  // (a job that ended is closed then)
  check_invariant(spec(job).replayed && (holds || ended || live(job).in_queue),
                  "a replayed job is closed once, while it runs, waits in the queue, or once it ended",
                  [&] { return "job " + spec(job).id; });
  const double g = static_cast<double>(r.held);
  productive(job, g * time.productive_s);
  for (const auto& lost : time.lost_s) {
    const std::string& name = lost.first;  // (a structured binding cannot be captured with clang 14)
    const int cause = name == kReplayStartup ? kStartup : loss_cause(name);
    check_invariant(cause >= 0, "a replayed job's losses have a fleet cause",
                    [&] { return "job " + spec(job).id + " lost time to '" + name + "'"; });
    // Its time in the queue after a requeue held no GPU: the fleet's idle GPUs, not the job's.
    double held = lost.second;
    for (const auto& queued : time.queued_s)
      if (queued.first == name)
        held -= queued.second;
    charge(job, cause, g * held);
  }
  for (const TrainingSpan& span : time.training)
    accounts_.training_span(r, span.t_begin, span.t_end, static_cast<double>(span.gpus));
  r.interruptions += time.interruptions;
  interruptions_ += time.interruptions;
  failures_ += time.interruptions;
  r.committed = time.progress_s;
  if (holds)
    leave(job, horizon);  // its nodes stay the keeper's: the window ends
  update_levels();
}

}  // namespace fleetsim::models::fleet
