#include "training_job.hpp"

#include "checkpoint_state.hpp"
#include "storage_channel.hpp"

#include "models/checkpoint/checkpoint_plan.hpp"
#include "models/resilience/run_plan.hpp"

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

Process TrainingJob::operator()()
{
  while (true) {
    auto m = co_await w_.inbox.next(-1);
    if (const auto* start = std::get_if<msg::Start>(&*m))
      co_await run_incarnation(start->epoch, start->memory);
    // Anything else is addressed to an incarnation that is already gone.
  }
}

Task<> TrainingJob::run_incarnation(long epoch, bool from_memory)
{
  // The newest checkpoint a restore could read (the scheduler's reload dropped any found corrupt).
  committed_step_ = w_.history.latest();
  step_ = from_memory ? std::max(memory_step_, committed_step_) : committed_step_;
  memory_step_ = step_;
  trained_s_ = 0;
  snapshot_trained_s_ = 0;
  while (true) {
    // With a token target, the stretch that reaches it is the last: its checkpoint is written as a
    // clean stop's (an asynchronous one drains), and the job has finished once it is committed.
    long steps = stretch_steps();
    const bool last = w_.target_step > 0 && step_ + steps >= w_.target_step;
    if (last)
      steps = std::max(0L, w_.target_step - step_);
    Outcome o = co_await train(epoch, steps);
    demand(epoch, false);
    if (last && o == Outcome::Continue && !w_.checkpoint_at_target) {
      // Done without a last checkpoint (a fleet's work job): its work counts as the window's end's.
      w_.scheduler.post(msg::Stopped{epoch, true, true});
      co_return;
    }
    if (o == Outcome::Continue)
      o = co_await checkpoint(epoch, last);
    if (o == Outcome::Interrupted) {
      stopped(epoch, false);
      co_return;
    }
    if (last && committed_step_ >= w_.target_step) {
      w_.scheduler.post(msg::Stopped{epoch, true, true});
      co_return;
    }
    if (o == Outcome::PlannedStop) {
      stopped(epoch, true);
      co_return;
    }
  }
}

long TrainingJob::stretch_steps()
{
  if (w_.interval.fixed())
    return w_.shape.steps_per_checkpoint;
  return models::steps_per_checkpoint(units::Seconds(w_.interval.interval(now())), units::Seconds(w_.shape.step_time));
}

void TrainingJob::interrupted(const msg::Interrupt& m, long done)
{
  if (multi_level()) {
    memory_commit(m, stretch_step_ + done);
    return;
  }
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

void TrainingJob::open_training()
{
  open_t_ = now();
  w_.trace.open(Phase::Training, open_t_);
}

void TrainingJob::close_segment(bool interrupted, long steps_done)
{
  trained_s_ += now() - open_t_;
  w_.trace.close(now(), interrupted, steps_done - reported_);
  reported_ = steps_done;
}

Task<TrainingJob::Outcome> TrainingJob::train(long epoch, long steps)
{
  stretch_step_ = step_;
  progress_ = 0;
  reported_ = 0;
  step_time_ = w_.shape.step_time;
  segment_t_ = now();
  open_training();
  demand(epoch, true);
  while (true) {
    auto m = co_await w_.inbox.next(segment_t_ + (static_cast<double>(steps) - progress_) * step_time_);
    if (!m) {
      close_segment(false, steps);
      step_ += steps;
      co_return Outcome::Continue;
    }
    if (for_epoch<msg::Retime>(*m, epoch) != nullptr) {
      // A new segment at the new step time; the stretch keeps its progress.
      advance();
      close_segment(false, std::min(steps, whole(progress_)));
      step_time_ = w_.shape.step_time;
      open_training();
      demand(epoch, true);
    } else if (for_epoch<msg::Starved>(*m, epoch) != nullptr) {
      // The loader has not delivered the next batch: training stalls until it has.
      advance();
      close_segment(false, std::min(steps, whole(progress_)));
      bool plan_stop = false;
      if (auto o = co_await stall(epoch, plan_stop))
        co_return *o;
      segment_t_ = now();
      open_training();
      if (plan_stop)
        co_return co_await finish_step_then_stop(epoch, plan_checkpoint_);
    } else if (const auto* kill = for_epoch<msg::Interrupt>(*m, epoch)) {
      advance();
      const long done = std::min(steps, whole(progress_));
      close_segment(true, done);
      step_ += done;
      interrupted(*kill, done);
      abort_drains();
      co_return Outcome::Interrupted;
    } else if (const auto* stop = for_epoch<msg::PlanStop>(*m, epoch)) {
      co_return co_await finish_step_then_stop(epoch, stop->checkpoint_first);
    } else if (const auto* done = std::get_if<msg::IoDone>(&*m)) {
      drained(*done, true, steps);
    }
  }
}

Task<TrainingJob::Outcome> TrainingJob::finish_step_then_stop(long epoch, bool checkpoint_first)
{
  // Stop at the next step boundary: a step in flight is finished, not thrown away. (A step time
  // change during this last step is ignored.)
  advance();
  const long target = std::max(whole(progress_), static_cast<long>(std::ceil(progress_ - 1e-6)));
  const double until = segment_t_ + (static_cast<double>(target) - progress_) * step_time_;
  while (true) {
    auto m = co_await w_.inbox.next(until);
    if (!m)
      break;
    if (const auto* kill = for_epoch<msg::Interrupt>(*m, epoch)) {
      advance();
      const long partial = std::min(target, whole(progress_));
      close_segment(true, partial);
      step_ += partial;
      interrupted(*kill, partial);
      abort_drains();
      co_return Outcome::Interrupted;
    }
    if (const auto* done = std::get_if<msg::IoDone>(&*m))
      drained(*done, true, target);
  }
  progress_ = static_cast<double>(target);
  close_segment(false, target);
  step_ += target;
  if (!checkpoint_first) {
    abort_drains();  // stopped without a checkpoint: writes still draining are cut off
    co_return Outcome::PlannedStop;
  }
  // Nothing to save only when nothing happened since the last checkpoint (a job restored from host
  // memory has work past it even before its first step); drains in flight still finish first.
  if (step_ == committed_step_ || (!draining_.empty() && draining_.back().step == step_))
    co_return co_await drain_all(epoch);
  co_return co_await checkpoint(epoch, true) == Outcome::Interrupted ? Outcome::Interrupted : Outcome::PlannedStop;
}

Task<TrainingJob::Outcome> TrainingJob::checkpoint(long epoch, bool stopping)
{
  if (w_.plan.strategy == scenario::CheckpointStrategy::Sync)
    co_return co_await checkpoint_sync(epoch);
  co_return co_await checkpoint_async(epoch, stopping);
}

Task<TrainingJob::Outcome> TrainingJob::checkpoint_sync(long epoch)
{
  w_.trace.open(Phase::Checkpoint, now());
  bool plan_stop = false;
  // The fixed part (device-to-host copy, barrier, metadata) is the job's own time ...
  const double overhead_until = now() + w_.plan.write_overhead;
  while (auto m = co_await w_.inbox.next(overhead_until)) {
    if (const auto* kill = for_epoch<msg::Interrupt>(*m, epoch)) {
      w_.trace.close(now(), true);
      snapshot_complete_stretch(*kill);
      co_return Outcome::Interrupted;
    }
    plan_stop = plan_stop || for_epoch<msg::PlanStop>(*m, epoch) != nullptr;
  }
  // ... the transfer is the storage service's.
  const long request = next_request_++;
  Inbox<JobMessage>& inbox = w_.inbox;
  w_.storage.requests.post(
      {request, true, w_.plan.bytes, w_.plan.files, [&inbox](msg::IoDone done) { inbox.post(done); }});
  while (true) {
    auto m = co_await w_.inbox.next(-1);
    if (const auto* done = std::get_if<msg::IoDone>(&*m); done != nullptr && done->id == request) {
      w_.trace.close(now(), false);
      committed(step_);
      w_.trace.commit({now(), step_, w_.plan.bytes});
      co_return plan_stop ? Outcome::PlannedStop : Outcome::Continue;
    }
    if (for_epoch<msg::PlanStop>(*m, epoch) != nullptr)
      plan_stop = true;  // stop right after this checkpoint: nothing left to lose
    if (const auto* kill = for_epoch<msg::Interrupt>(*m, epoch)) {
      w_.storage.abort(request);
      w_.trace.close(now(), true);
      snapshot_complete_stretch(*kill);
      co_return Outcome::Interrupted;
    }
  }
}

Task<TrainingJob::Outcome> TrainingJob::checkpoint_async(long epoch, bool stopping)
{
  w_.trace.open(Phase::Checkpoint, now());
  bool plan_stop = stopping;
  // Host memory holds host_buffers snapshots that drain: with every one still draining, a checkpoint
  // that drains waits (multi_level's in-memory snapshots have their own place, beside the peers').
  const bool drains = !multi_level() || (snapshots_ + 1) % w_.plan.remote_every == 0 || stopping;
  while (drains && static_cast<int>(draining_.size()) >= w_.plan.host_buffers) {
    auto m = co_await w_.inbox.next(-1);
    if (auto o = during_pause(*m, epoch, plan_stop))
      co_return *o;
  }
  // The pause: the device-to-host snapshot (the fixed part, barrier and commit, is the drain's).
  const double until = now() + w_.plan.snapshot_s;
  while (auto m = co_await w_.inbox.next(until))
    if (auto o = during_pause(*m, epoch, plan_stop))
      co_return *o;
  w_.trace.close(now(), false);
  if (multi_level()) {
    // The snapshot is in host memory (and a peer's): a restore from memory starts here. Only every
    // remote_every-th one, and the one before a planned stop, also drains to remote storage.
    memory_step_ = step_;
    snapshot_trained_s_ = trained_s_;
    if (++snapshots_ % w_.plan.remote_every != 0 && !plan_stop)
      co_return Outcome::Continue;
  }
  // The write drains in the background through the job's storage channel.
  const long request = next_request_++;
  draining_.push_back({request, step_, trained_s_, now()});
  Inbox<JobMessage>& inbox = w_.inbox;
  w_.storage.requests.post({request, true, w_.plan.bytes, w_.plan.files,
                            [&inbox](msg::IoDone done) { inbox.post(done); }, w_.plan.write_overhead});
  if (plan_stop)
    co_return co_await drain_all(epoch);
  co_return Outcome::Continue;
}

std::optional<TrainingJob::Outcome> TrainingJob::during_pause(const JobMessage& m, long epoch, bool& plan_stop)
{
  if (const auto* kill = for_epoch<msg::Interrupt>(m, epoch)) {
    w_.trace.close(now(), true);
    if (multi_level())
      memory_commit(*kill, step_);  // the snapshot in progress is not there yet: the one before is
    else
      snapshot_complete_stretch(*kill);
    abort_drains();
    return Outcome::Interrupted;
  }
  if (const auto* done = std::get_if<msg::IoDone>(&m))
    drained(*done, false, 0);
  plan_stop = plan_stop || for_epoch<msg::PlanStop>(m, epoch) != nullptr;
  return std::nullopt;
}

Task<TrainingJob::Outcome> TrainingJob::drain_all(long epoch)
{
  if (draining_.empty())
    co_return Outcome::PlannedStop;
  w_.trace.open(Phase::Checkpoint, now());
  bool unused = true;
  while (!draining_.empty()) {
    auto m = co_await w_.inbox.next(-1);
    if (auto o = during_pause(*m, epoch, unused))
      co_return *o;
  }
  w_.trace.close(now(), false);
  co_return Outcome::PlannedStop;
}

bool TrainingJob::drained(const msg::IoDone& done, bool training, long steps_cap)
{
  auto it = std::find_if(draining_.begin(), draining_.end(), [&](const Drain& d) { return d.id == done.id; });
  if (it == draining_.end())
    return false;
  const Drain d = *it;
  draining_.erase(it);
  if (training) {
    // Split the training segment: the commit follows the training it saves in the trace.
    advance();
    close_segment(false, std::min(steps_cap, whole(progress_)));
    segment_t_ = now();
    open_training();
  }
  committed(d.step);
  models::CheckpointCommitted rec;
  rec.t = now();
  rec.step = d.step;
  rec.bytes = w_.plan.bytes;
  rec.uncommitted_s = std::max(0.0, trained_s_ - d.trained_s);  // trained after the snapshot
  rec.uncommitted_steps = std::max(0L, stretch_step_ + reported_ - d.step);
  rec.drain_s = now() - d.t;
  w_.trace.commit(rec);
  return true;
}

void TrainingJob::abort_drains()
{
  for (const Drain& d : draining_)
    w_.storage.abort(d.id);
  draining_.clear();
}

void TrainingJob::demand(long epoch, bool on)
{
  if (w_.loader == nullptr)
    return;
  *w_.demand = DataDemand{on, epoch, step_time_, w_.demand->following};
  if (!w_.demand->following)
    return;
  if (on)
    w_.loader->post(msg::DemandOn{epoch, step_time_});
  else
    w_.loader->post(msg::DemandOff{});
}

Task<std::optional<TrainingJob::Outcome>> TrainingJob::stall(long epoch, bool& plan_stop)
{
  w_.trace.open(Phase::DataStall, now());
  while (true) {
    auto m = co_await w_.inbox.next(-1);
    if (for_epoch<msg::Fed>(*m, epoch) != nullptr) {
      w_.trace.close(now(), false);
      co_return std::nullopt;
    }
    if (const auto* kill = for_epoch<msg::Interrupt>(*m, epoch)) {
      w_.trace.close(now(), true);
      step_ += reported_;
      interrupted(*kill, reported_);
      abort_drains();
      co_return Outcome::Interrupted;
    }
    if (const auto* stop = for_epoch<msg::PlanStop>(*m, epoch)) {
      plan_stop = true;  // once the batch is there, the step in flight finishes and the job stops
      plan_checkpoint_ = stop->checkpoint_first;
    }
    if (const auto* done = std::get_if<msg::IoDone>(&*m))
      drained(*done, false, 0);
    if (for_epoch<msg::Retime>(*m, epoch) != nullptr)
      step_time_ = w_.shape.step_time;
  }
}

void TrainingJob::memory_commit(const msg::Interrupt& m, long steps_done)
{
  if (!m.memory)
    return;  // the failure took a snapshot's every copy: the restore reads remote storage
  models::CheckpointCommitted rec;
  rec.t = now();
  rec.step = memory_step_;
  rec.memory = true;
  rec.uncommitted_steps = std::max(0L, steps_done - memory_step_);
  rec.uncommitted_s = std::max(0.0, trained_s_ - snapshot_trained_s_);
  w_.trace.commit(rec);
}

void TrainingJob::committed(long step)
{
  committed_step_ = step;
  memory_step_ = std::max(memory_step_, step);
  w_.history.commit(step);
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
