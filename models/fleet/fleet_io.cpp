// FleetState for jobs whose checkpoints go through the shared storage system (checkpoint_bytes > 0).
// Their progress is still closed-form between events, but each checkpoint and restore is an event
// pair: the state asks the simulator for the transfer (take_io) and resumes the job when it reports
// the transfer done (io_done), however long the storage's sharing made it.
//
//   start -> restart (restart_cost) -> [Restoring: read the checkpoint] -> Running
//   Running -> interval of training -> Checkpointing (write) -> Running ... -> Done
// A failure while a transfer runs aborts it: a write's checkpoint is lost with the work it saved.

#include "fleet_state.hpp"

#include <algorithm>

namespace fleetsim::models::fleet {

void FleetState::start_storing(long job, double t, int restart_cause)
{
  Live& l = live_[static_cast<size_t>(job)];
  JobRecord& r = rec_[static_cast<size_t>(job)];
  l.seg = Segment{t, spec(job).restart_cost, 0, 0};  // no checkpoint inside: each one is an event
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
  const double remaining = std::max(0.0, s.work - rec_[static_cast<size_t>(job)].committed);
  const double start = l.seg.t0 + l.seg.restart;
  if (s.checkpoint_interval > 0 && remaining > s.checkpoint_interval)
    set_timer(start + s.checkpoint_interval, TimerKind::CheckpointDue, job, l.epoch);
  else
    set_timer(start + remaining, TimerKind::Finish, job, l.epoch);
}

void FleetState::ask_io(long job, bool write)
{
  const JobSpec& s = spec(job);
  io_.push_back({job, live_[static_cast<size_t>(job)].epoch, write, false, s.checkpoint_bytes, s.checkpoint_files});
}

void FleetState::storage_timer(long job, TimerKind kind)
{
  Live& l = live_[static_cast<size_t>(job)];
  JobRecord& r = rec_[static_cast<size_t>(job)];
  if (kind == TimerKind::CheckpointDue) {
    stop_progress(job, now_, -1);  // the interval's work is pending until the write completes
    r.state = JobState::Checkpointing;
    ask_io(job, true);
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
  if (epoch != l.epoch || (r.state != JobState::Checkpointing && r.state != JobState::Restoring))
    return;  // overtaken by a failure
  const double g = static_cast<double>(r.held);
  if (r.state == JobState::Checkpointing) {
    charge(job, kCheckpoint, g * (now_ - l.stop_t));
    productive(job, g * l.pending);
    r.committed += l.pending;
    l.pending = 0;
  } else {
    charge(job, l.restart_cause, g * (now_ - l.stop_t));
  }
  l.seg = Segment{now_, 0, 0, 0};
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
  io_.push_back({job, l.epoch, false, true, 0, 0});
  ++l.epoch;
}

}  // namespace fleetsim::models::fleet
