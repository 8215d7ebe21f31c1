// FleetState for jobs whose checkpoints go through the shared storage system (checkpoint_bytes > 0).
// Their progress is still closed-form between events, but each checkpoint and restore is an event
// pair: the state asks the simulator for the transfer (take_io) and resumes the job when it reports
// the transfer done (io_done), however long the storage's sharing made it.
//
//   start -> restart (restart_cost) -> [Restoring: read the checkpoint] -> Running
//   Running -> interval of training -> Checkpointing (write) -> Running ... -> Done
// An asynchronous job (checkpoint_async) stalls for its snapshot only, then trains on while the
// write drains; the next checkpoint waits if the drain is still in flight (one host buffer).
// A failure while a transfer runs aborts it: a write's checkpoint is lost with the work it saved.

#include "fleet_state.hpp"

#include <algorithm>

namespace fleetsim::models::fleet {

void FleetState::start_storing(long job, double t, int restart_cause)
{
  Live& l = live_[static_cast<size_t>(job)];
  JobRecord& r = rec_[static_cast<size_t>(job)];
  l.seg = segment(job, t, spec(job).restart_cost, 0, 0);  // no checkpoint inside: each one is an event
  l.restart_cause = restart_cause;
  r.state = JobState::Running;
  ++l.epoch;
  if (r.committed > 0)
    set_timer(t + l.seg.restart, TimerKind::RestoreDue, job, l.epoch);
  else
    schedule_progress(job);
}

void FleetState::schedule_progress(long job)
{
  const Live& l = live_[static_cast<size_t>(job)];
  const JobSpec& s = spec(job);
  const double remaining = std::max(0.0, s.work - rec_[static_cast<size_t>(job)].committed - l.draining);
  // (Work counts from its last checkpoint: the segment may carry some, and train below speed 1.)
  const double start = l.seg.t0 + l.seg.restart;
  if (s.checkpoint_interval > 0 && remaining > s.checkpoint_interval)
    set_timer(start + (s.checkpoint_interval - l.seg.carried) / l.seg.speed, TimerKind::CheckpointDue, job, l.epoch);
  else
    set_timer(start + (remaining - l.seg.carried) / l.seg.speed, TimerKind::Finish, job, l.epoch);
}

void FleetState::ask_io(long job, bool write)
{
  const JobSpec& s = spec(job);
  Live& l = live_[static_cast<size_t>(job)];
  l.io_token = ++io_seq_;
  io_.push_back({job, l.io_token, write, false, s.checkpoint_bytes, s.checkpoint_files});
}

void FleetState::drop_drain(long job, int cause, bool done)
{
  Live& l = live_[static_cast<size_t>(job)];
  if (!l.drain_in_flight)
    return;
  const double g = static_cast<double>(rec_[static_cast<size_t>(job)].held);
  if (done) {
    productive(job, g * l.draining);
    rec_[static_cast<size_t>(job)].committed += l.draining;
  } else if (cause >= 0) {
    charge(job, cause, g * l.draining);
  } else {
    l.pending += l.draining;
  }
  l.draining = 0;
  l.drain_in_flight = false;
  l.waits_drain = false;
  io_.push_back({job, l.io_token, false, true, 0, 0});
  l.io_token = 0;
}

void FleetState::snapshot_done(long job)
{
  Live& l = live_[static_cast<size_t>(job)];
  JobRecord& r = rec_[static_cast<size_t>(job)];
  charge(job, kCheckpoint, static_cast<double>(r.held) * (now_ - l.stop_t));
  l.draining = l.pending;
  l.pending = 0;
  ask_io(job, true);
  l.drain_in_flight = true;
  l.seg = segment(job, now_, 0, 0, 0);
  r.state = JobState::Running;
  ++l.epoch;
  schedule_progress(job);
}

void FleetState::storage_timer(long job, TimerKind kind)
{
  Live& l = live_[static_cast<size_t>(job)];
  JobRecord& r = rec_[static_cast<size_t>(job)];
  if (kind == TimerKind::SnapshotDone) {
    snapshot_done(job);
    return;
  }
  if (kind == TimerKind::CheckpointDue) {
    stop_progress(job, now_, -1);  // the interval's work is pending until the write completes
    r.state = JobState::Checkpointing;
    if (!spec(job).checkpoint_async)
      ask_io(job, true);
    else if (l.drain_in_flight)
      l.waits_drain = true;  // the host buffer still drains the last one
    else
      set_timer(now_ + spec(job).snapshot_cost, TimerKind::SnapshotDone, job, l.epoch);
    return;
  }
  // RestoreDue: the restart is done; the checkpoint is read next.
  charge(job, l.restart_cause, static_cast<double>(r.held) * l.seg.restart);
  r.state = JobState::Restoring;
  l.stop_t = now_;
  ++l.epoch;
  ask_io(job, false);
}

void FleetState::io_done(long job, long epoch, double t)
{
  now_ = std::max(now_, t);
  Live& l = live_[static_cast<size_t>(job)];
  JobRecord& r = rec_[static_cast<size_t>(job)];
  if (epoch != l.io_token)
    return;  // overtaken by a failure
  l.io_token = 0;
  const double g = static_cast<double>(r.held);
  if (l.drain_in_flight) {  // an asynchronous checkpoint drained: it counts
    productive(job, g * l.draining);
    r.committed += l.draining;
    l.draining = 0;
    l.drain_in_flight = false;
    if (l.waits_drain) {  // the checkpoint that waited for the host buffer takes its snapshot
      l.waits_drain = false;
      set_timer(now_ + spec(job).snapshot_cost, TimerKind::SnapshotDone, job, l.epoch);
    }
    return;
  }
  if (r.state != JobState::Checkpointing && r.state != JobState::Restoring)
    return;
  if (r.state == JobState::Checkpointing) {
    charge(job, kCheckpoint, g * (now_ - l.stop_t));
    productive(job, g * l.pending);
    r.committed += l.pending;
    l.pending = 0;
  } else {
    charge(job, l.restart_cause, g * (now_ - l.stop_t));
  }
  l.seg = segment(job, now_, 0, 0, 0);
  r.state = JobState::Running;
  ++l.epoch;
  schedule_progress(job);
}

void FleetState::strike_during_io(long job, int cause, double t)
{
  Live& l = live_[static_cast<size_t>(job)];
  JobRecord& r = rec_[static_cast<size_t>(job)];
  const double g = static_cast<double>(r.held);
  if (r.state == JobState::Checkpointing) {
    charge(job, kCheckpoint, g * (t - l.stop_t));
    charge(job, cause, g * l.pending);  // the checkpoint it was writing is lost, and its work
    l.pending = 0;
  } else {
    charge(job, l.restart_cause, g * (t - l.stop_t));
  }
  io_.push_back({job, l.io_token, false, true, 0, 0});
  l.io_token = 0;
  ++l.epoch;
}

}  // namespace fleetsim::models::fleet
