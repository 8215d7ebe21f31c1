#include "training_job.hpp"

#include "checkpoint_coordinator.hpp"

#include <algorithm>

namespace fleetsim::sim {

using models::Phase;

void TrainingJob::operator()()
{
  Inbox& inbox = *ctx_.job;
  while (true) {
    auto m = inbox.wait(-1);
    if (m && m->type == MessageType::Start)
      run_incarnation(inbox, m->id);
    // Anything else is addressed to an incarnation that is already gone.
  }
}

void TrainingJob::run_incarnation(Inbox& inbox, long epoch)
{
  step_ = committed_step_;
  while (true) {
    Outcome o = train(inbox, epoch, ctx_.steps_per_checkpoint);
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

TrainingJob::Outcome TrainingJob::train(Inbox& inbox, long epoch, long steps)
{
  const double t0 = ctx_.now();
  const double until = t0 + static_cast<double>(steps) * ctx_.step_time;
  ctx_.trace->open(Phase::Training, t0);
  while (true) {
    auto m = inbox.wait(until);
    if (!m) {
      ctx_.trace->close(ctx_.now(), false, steps);
      step_ += steps;
      return Outcome::Continue;
    }
    if (m->id != epoch)
      continue;
    if (m->type == MessageType::Interrupt) {
      const long done = std::min(steps, ctx_.trace->steps_in(t0, ctx_.now()));
      step_ += done;
      ctx_.trace->close(ctx_.now(), true, done);
      return Outcome::Interrupted;
    }
    if (m->type == MessageType::PlanStop)
      return finish_step_then_stop(inbox, epoch, t0);
  }
}

TrainingJob::Outcome TrainingJob::finish_step_then_stop(Inbox& inbox, long epoch, double t0)
{
  // Stop at the next step boundary: a step in flight is finished, not thrown away.
  const long done = ctx_.trace->steps_in(t0, ctx_.now());
  const long target = ctx_.trace->on_step_boundary(t0, ctx_.now()) ? done : done + 1;
  const double until = t0 + static_cast<double>(target) * ctx_.step_time;
  while (true) {
    auto m = inbox.wait(until);
    if (!m)
      break;
    if (m->id == epoch && m->type == MessageType::Interrupt) {
      const long partial = std::min(target, ctx_.trace->steps_in(t0, ctx_.now()));
      step_ += partial;
      ctx_.trace->close(ctx_.now(), true, partial);
      return Outcome::Interrupted;
    }
  }
  step_ += target;
  ctx_.trace->close(ctx_.now(), false, target);
  if (!ctx_.scenario->planned.checkpoint_before || target == 0)
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
      ctx_.trace->commit({ctx_.now(), step_, ctx_.checkpoint_bytes});
      return plan_stop ? Outcome::PlannedStop : Outcome::Continue;
    }
    if (m->type == MessageType::PlanStop && m->id == epoch)
      plan_stop = true;  // stop right after this checkpoint: nothing left to lose
    if (m->type == MessageType::Interrupt && m->id == epoch) {
      ctx_.coordinator->abort(request);
      ctx_.trace->close(ctx_.now(), true);
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

}  // namespace fleetsim::sim
