#include "training_job.hpp"

#include "checkpoint_coordinator.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::sim {

using models::Phase;

void TrainingJob::operator()()
{
  Inbox& inbox = *ctx_.job;
  while (true) {
    auto m = inbox.wait(-1);
    if (m && m->type == MessageType::Start)
      run_incarnation(inbox, m->id, m->memory);
    // Anything else is addressed to an incarnation that is already gone.
  }
}

void TrainingJob::run_incarnation(Inbox& inbox, long epoch, bool from_memory)
{
  step_ = from_memory ? std::max(memory_step_, committed_step_) : committed_step_;
  memory_step_ = step_;
  while (true) {
    Outcome o = train(inbox, epoch, ctx_.shape->steps_per_checkpoint);
    if (o == Outcome::Continue)
      o = checkpoint(inbox, epoch);
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

void TrainingJob::interrupted(const Message& m, long done)
{
  const long k = ctx_.shape->steps_per_snapshot;
  if (!m.memory || k <= 0)
    return;
  const long snap = done / k * k;
  memory_step_ = stretch_step_ + snap;
  models::CheckpointCommitted rec;
  rec.t = ctx_.now();
  rec.step = memory_step_;
  rec.memory = true;
  rec.uncommitted_steps = done - snap;
  // Training since the snapshot (at the current step time if it changed since).
  rec.uncommitted_s = std::max(0.0, (progress_ - static_cast<double>(snap)) * step_time_);
  ctx_.trace->commit(rec);
}

namespace {

// Whole steps in a fractional count; the tolerance absorbs the rounding of elapsed / step time.
long whole(double steps) { return static_cast<long>(std::floor(steps + 1e-6)); }

}  // namespace

void TrainingJob::advance()
{
  progress_ += (ctx_.now() - segment_t_) / step_time_;
  segment_t_ = ctx_.now();
}

void TrainingJob::close_segment(bool interrupted, long steps_done)
{
  ctx_.trace->close(ctx_.now(), interrupted, steps_done - reported_);
  reported_ = steps_done;
}

TrainingJob::Outcome TrainingJob::train(Inbox& inbox, long epoch, long steps)
{
  stretch_step_ = step_;
  progress_ = 0;
  reported_ = 0;
  step_time_ = ctx_.shape->step_time;
  segment_t_ = ctx_.now();
  ctx_.trace->open(Phase::Training, segment_t_);
  while (true) {
    auto m = inbox.wait(segment_t_ + (static_cast<double>(steps) - progress_) * step_time_);
    if (!m) {
      close_segment(false, steps);
      step_ += steps;
      return Outcome::Continue;
    }
    if (m->id != epoch)
      continue;
    if (m->type == MessageType::Retime) {
      // A new segment at the new step time; the stretch keeps its progress.
      advance();
      close_segment(false, std::min(steps, whole(progress_)));
      step_time_ = ctx_.shape->step_time;
      ctx_.trace->open(Phase::Training, segment_t_);
      continue;
    }
    if (m->type == MessageType::Interrupt) {
      advance();
      const long done = std::min(steps, whole(progress_));
      close_segment(true, done);
      step_ += done;
      interrupted(*m, done);
      return Outcome::Interrupted;
    }
    if (m->type == MessageType::PlanStop)
      return finish_step_then_stop(inbox, epoch, m->clean);
  }
}

TrainingJob::Outcome TrainingJob::finish_step_then_stop(Inbox& inbox, long epoch, bool checkpoint_first)
{
  // Stop at the next step boundary: a step in flight is finished, not thrown away. (A step time
  // change during this last step is ignored.)
  advance();
  const long target = std::max(whole(progress_), static_cast<long>(std::ceil(progress_ - 1e-6)));
  const double until = segment_t_ + (static_cast<double>(target) - progress_) * step_time_;
  while (true) {
    auto m = inbox.wait(until);
    if (!m)
      break;
    if (m->id == epoch && m->type == MessageType::Interrupt) {
      advance();
      const long partial = std::min(target, whole(progress_));
      close_segment(true, partial);
      step_ += partial;
      interrupted(*m, partial);
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
  return checkpoint(inbox, epoch) == Outcome::Interrupted ? Outcome::Interrupted : Outcome::PlannedStop;
}

TrainingJob::Outcome TrainingJob::checkpoint(Inbox& inbox, long epoch)
{
  ctx_.trace->open(Phase::Checkpoint, ctx_.now());
  bool plan_stop = false;
  // The fixed part (device-to-host copy, barrier, metadata) is the job's own time ...
  const double overhead_until = ctx_.now() + ctx_.scenario->checkpoint.write_overhead.si();
  while (auto m = inbox.wait(overhead_until)) {
    if (m->id != epoch)
      continue;
    if (m->type == MessageType::Interrupt) {
      ctx_.trace->close(ctx_.now(), true);
      snapshot_complete_stretch(*m);
      return Outcome::Interrupted;
    }
    plan_stop = plan_stop || m->type == MessageType::PlanStop;
  }
  // ... the transfer is the storage service's.
  const long request = next_request_++;
  Message req;
  req.type = MessageType::WriteRequest;
  req.id = request;
  req.bytes = ctx_.checkpoint_bytes;
  req.reply_to = ctx_.job;
  ctx_.coordinator->requests.post(std::move(req));
  while (true) {
    auto m = inbox.wait(-1);
    if (m->type == MessageType::IoDone && m->id == request) {
      ctx_.trace->close(ctx_.now(), false);
      committed_step_ = step_;
      memory_step_ = step_;
      ctx_.trace->commit({ctx_.now(), step_, ctx_.checkpoint_bytes});
      return plan_stop ? Outcome::PlannedStop : Outcome::Continue;
    }
    if (m->type == MessageType::PlanStop && m->id == epoch)
      plan_stop = true;  // stop right after this checkpoint: nothing left to lose
    if (m->type == MessageType::Interrupt && m->id == epoch) {
      ctx_.coordinator->abort(request);
      ctx_.trace->close(ctx_.now(), true);
      snapshot_complete_stretch(*m);
      return Outcome::Interrupted;
    }
  }
}

void TrainingJob::stopped(long epoch, bool clean) const
{
  Message m;
  m.type = MessageType::Stopped;
  m.id = epoch;
  m.clean = clean;
  ctx_.scheduler->post(std::move(m));
}

void TrainingJob::snapshot_complete_stretch(const Message& m)
{
  // A checkpoint starts where a stretch ends, with its last snapshot taken.
  if (!m.memory || ctx_.shape->steps_per_snapshot <= 0)
    return;
  memory_step_ = step_;
  models::CheckpointCommitted rec;
  rec.t = ctx_.now();
  rec.step = step_;
  rec.memory = true;
  ctx_.trace->commit(rec);
}

}  // namespace fleetsim::sim
