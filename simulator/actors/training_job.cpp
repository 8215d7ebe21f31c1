#include "training_job.hpp"

#include "storage_channel.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::sim {

using models::Phase;

namespace {

// The message if it is a T for incarnation `epoch`, else nullptr.
template <class T>
const T* for_epoch(const JobMessage& m, long epoch)
{
  const T* t = std::get_if<T>(&m);
  return t != nullptr && t->epoch == epoch ? t : nullptr;
}

// Whole steps in a fractional count; the tolerance absorbs the rounding of elapsed / step time.
long whole(double steps) { return static_cast<long>(std::floor(steps + 1e-6)); }

}  // namespace

void TrainingJob::operator()()
{
  while (true) {
    auto m = w_.inbox.wait(-1);
    if (const auto* start = std::get_if<msg::Start>(&*m))
      run_incarnation(start->epoch, start->memory);
    // Anything else is addressed to an incarnation that is already gone.
  }
}

void TrainingJob::run_incarnation(long epoch, bool from_memory)
{
  step_ = from_memory ? std::max(memory_step_, committed_step_) : committed_step_;
  memory_step_ = step_;
  while (true) {
    Outcome o = train(epoch, w_.shape.steps_per_checkpoint);
    if (o == Outcome::Continue)
      o = checkpoint(epoch);
    if (o == Outcome::Interrupted) {
      stopped(epoch, false);
      return;
    }
    if (o == Outcome::PlannedStop) {
      stopped(epoch, true);
      return;
    }
  }
}

void TrainingJob::interrupted(const msg::Interrupt& m, long done)
{
  const long k = w_.shape.steps_per_snapshot;
  if (!m.memory || k <= 0)
    return;
  const long snap = done / k * k;
  memory_step_ = stretch_step_ + snap;
  models::CheckpointCommitted rec;
  rec.t = now();
  rec.step = memory_step_;
  rec.memory = true;
  rec.uncommitted_steps = done - snap;
  // Training since the snapshot (at the current step time if it changed since).
  rec.uncommitted_s = std::max(0.0, (progress_ - static_cast<double>(snap)) * step_time_);
  w_.trace.commit(rec);
}

void TrainingJob::advance()
{
  progress_ += (now() - segment_t_) / step_time_;
  segment_t_ = now();
}

void TrainingJob::close_segment(bool interrupted, long steps_done)
{
  w_.trace.close(now(), interrupted, steps_done - reported_);
  reported_ = steps_done;
}

TrainingJob::Outcome TrainingJob::train(long epoch, long steps)
{
  stretch_step_ = step_;
  progress_ = 0;
  reported_ = 0;
  step_time_ = w_.shape.step_time;
  segment_t_ = now();
  w_.trace.open(Phase::Training, segment_t_);
  while (true) {
    auto m = w_.inbox.wait(segment_t_ + (static_cast<double>(steps) - progress_) * step_time_);
    if (!m) {
      close_segment(false, steps);
      step_ += steps;
      return Outcome::Continue;
    }
    if (for_epoch<msg::Retime>(*m, epoch) != nullptr) {
      // A new segment at the new step time; the stretch keeps its progress.
      advance();
      close_segment(false, std::min(steps, whole(progress_)));
      step_time_ = w_.shape.step_time;
      w_.trace.open(Phase::Training, segment_t_);
    } else if (const auto* kill = for_epoch<msg::Interrupt>(*m, epoch)) {
      advance();
      const long done = std::min(steps, whole(progress_));
      close_segment(true, done);
      step_ += done;
      interrupted(*kill, done);
      return Outcome::Interrupted;
    } else if (const auto* stop = for_epoch<msg::PlanStop>(*m, epoch)) {
      return finish_step_then_stop(epoch, stop->checkpoint_first);
    }
  }
}

TrainingJob::Outcome TrainingJob::finish_step_then_stop(long epoch, bool checkpoint_first)
{
  // Stop at the next step boundary: a step in flight is finished, not thrown away. (A step time
  // change during this last step is ignored.)
  advance();
  const long target = std::max(whole(progress_), static_cast<long>(std::ceil(progress_ - 1e-6)));
  const double until = segment_t_ + (static_cast<double>(target) - progress_) * step_time_;
  while (true) {
    auto m = w_.inbox.wait(until);
    if (!m)
      break;
    if (const auto* kill = for_epoch<msg::Interrupt>(*m, epoch)) {
      advance();
      const long partial = std::min(target, whole(progress_));
      close_segment(true, partial);
      step_ += partial;
      interrupted(*kill, partial);
      return Outcome::Interrupted;
    }
  }
  progress_ = static_cast<double>(target);
  close_segment(false, target);
  step_ += target;
  // Nothing to save only when nothing happened since the last checkpoint (a job restored from host
  // memory has work past it even before its first step).
  if (!checkpoint_first || step_ == committed_step_)
    return Outcome::PlannedStop;
  return checkpoint(epoch) == Outcome::Interrupted ? Outcome::Interrupted : Outcome::PlannedStop;
}

TrainingJob::Outcome TrainingJob::checkpoint(long epoch)
{
  w_.trace.open(Phase::Checkpoint, now());
  bool plan_stop = false;
  // The fixed part (device-to-host copy, barrier, metadata) is the job's own time ...
  const double overhead_until = now() + w_.write_overhead;
  while (auto m = w_.inbox.wait(overhead_until)) {
    if (const auto* kill = for_epoch<msg::Interrupt>(*m, epoch)) {
      w_.trace.close(now(), true);
      snapshot_complete_stretch(*kill);
      return Outcome::Interrupted;
    }
    plan_stop = plan_stop || for_epoch<msg::PlanStop>(*m, epoch) != nullptr;
  }
  // ... the transfer is the storage service's.
  const long request = next_request_++;
  Inbox<JobMessage>& inbox = w_.inbox;
  w_.storage.requests.post(
      {request, true, w_.checkpoint_bytes, w_.checkpoint_files, [&inbox](msg::IoDone done) { inbox.post(done); }});
  while (true) {
    auto m = w_.inbox.wait(-1);
    if (const auto* done = std::get_if<msg::IoDone>(&*m); done != nullptr && done->id == request) {
      w_.trace.close(now(), false);
      committed_step_ = step_;
      memory_step_ = step_;
      w_.trace.commit({now(), step_, w_.checkpoint_bytes});
      return plan_stop ? Outcome::PlannedStop : Outcome::Continue;
    }
    if (for_epoch<msg::PlanStop>(*m, epoch) != nullptr)
      plan_stop = true;  // stop right after this checkpoint: nothing left to lose
    if (const auto* kill = for_epoch<msg::Interrupt>(*m, epoch)) {
      w_.storage.abort(request);
      w_.trace.close(now(), true);
      snapshot_complete_stretch(*kill);
      return Outcome::Interrupted;
    }
  }
}

void TrainingJob::stopped(long epoch, bool clean) const { w_.scheduler.post(msg::Stopped{epoch, clean}); }

void TrainingJob::snapshot_complete_stretch(const msg::Interrupt& m)
{
  // A checkpoint starts where a stretch ends, with its last snapshot taken.
  if (!m.memory || w_.shape.steps_per_snapshot <= 0)
    return;
  memory_step_ = step_;
  models::CheckpointCommitted rec;
  rec.t = now();
  rec.step = step_;
  rec.memory = true;
  w_.trace.commit(rec);
}

}  // namespace fleetsim::sim
