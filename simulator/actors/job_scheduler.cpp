#include "job_scheduler.hpp"

#include "checkpoint_coordinator.hpp"

#include "models/run_plan.hpp"

namespace fleetsim::sim {

using models::Phase;

void JobScheduler::operator()()
{
  Inbox& inbox = *ctx_.scheduler;
  start_job();
  while (true) {
    std::optional<Message> m;
    if (deferred_planned_ > 0) {
      --deferred_planned_;
      m = Message{};
      m->type = MessageType::Planned;
    } else {
      m = inbox.wait(-1);
    }
    if (m->type == MessageType::Failure) {
      const Phase during = job_phase();
      std::optional<Message> unused;
      stop_job(inbox, MessageType::Interrupt, unused);
      record_failure(*m, during);
      recover(inbox, *m);
    } else if (m->type == MessageType::Planned) {
      std::optional<Message> failure;
      stop_job(inbox, MessageType::PlanStop, failure);
      if (failure) {
        // A failure hit while the job was getting ready for maintenance (or at the very instant
        // it stopped cleanly): recover first, then run the maintenance.
        record_failure(*failure, failure_during_);
        ++deferred_planned_;
        recover(inbox, *failure);
        continue;
      }
      if (auto f = planned(inbox))
        recover(inbox, *f);
      else
        start_job();
    }
  }
}

Phase JobScheduler::job_phase() const
{
  return ctx_.trace->is_open() ? ctx_.trace->open_phase() : Phase::Training;
}

void JobScheduler::start_job()
{
  Message m;
  m.type = MessageType::Start;
  m.id = ++epoch_;
  ctx_.job->post(std::move(m));
}

bool JobScheduler::stop_job(Inbox& inbox, MessageType how, std::optional<Message>& failure)
{
  Message order;
  order.type = how;
  order.id = epoch_;
  ctx_.job->post(std::move(order));
  std::vector<Message> later;
  bool clean = false;
  while (true) {
    auto m = inbox.wait(-1);
    if (m->type == MessageType::Stopped && m->id == epoch_) {
      clean = m->clean;
      break;
    }
    if (m->type == MessageType::Failure && how == MessageType::PlanStop && !failure) {
      // The job dies while it checkpoints for maintenance.
      failure_during_ = job_phase();
      Message kill;
      kill.type = MessageType::Interrupt;
      kill.id = epoch_;
      ctx_.job->post(std::move(kill));
      failure = std::move(*m);
      continue;
    }
    later.push_back(std::move(*m));
  }
  for (auto& m : later)
    inbox.keep(std::move(m));
  return clean;
}

void JobScheduler::record_failure(const Message& failure, Phase during) const
{
  models::Interruption rec;
  rec.t = ctx_.now();
  rec.planned = false;
  rec.cause = ctx_.scenario->causes.at(static_cast<size_t>(failure.cause)).name;
  rec.component = failure.component;
  rec.first_gpu = failure.first_gpu;
  rec.gpus_down = failure.gpus_down;
  rec.during = during;
  ctx_.trace->interruption(std::move(rec));
}

void JobScheduler::recover(Inbox& inbox, Message failure)
{
  const auto& rec = ctx_.scenario->recovery;
  while (true) {
    const auto& cause = ctx_.scenario->causes.at(static_cast<size_t>(failure.cause));
    std::optional<Message> next = timed_phase(inbox, Phase::Detection,
                                              models::detection_delay(cause, rec.detection).si());
    if (!next)
      next = timed_phase(inbox, Phase::Restart, rec.restart.si());
    if (!next)
      next = reload_phase(inbox);
    if (!next)
      next = timed_phase(inbox, Phase::Warmup, rec.warmup.si());
    if (!next) {
      start_job();
      return;
    }
    failure = std::move(*next);
  }
}

std::optional<Message> JobScheduler::timed_phase(Inbox& inbox, Phase phase, double duration)
{
  ctx_.trace->open(phase, ctx_.now());
  const double until = ctx_.now() + duration;
  while (true) {
    auto m = inbox.wait(until);
    if (!m) {
      ctx_.trace->close(ctx_.now(), false);
      return std::nullopt;
    }
    if (m->type == MessageType::Failure) {
      ctx_.trace->close(ctx_.now(), true);
      record_failure(*m, phase);
      return m;
    }
    if (m->type == MessageType::Planned)
      ++deferred_planned_;
  }
}

std::optional<Message> JobScheduler::reload_phase(Inbox& inbox)
{
  Message req;
  req.type = MessageType::ReadRequest;
  req.id = next_request_++;
  req.bytes = ctx_.checkpoint_bytes;
  req.reply_to = ctx_.scheduler;
  const long id = req.id;
  ctx_.coordinator->requests.post(std::move(req));
  ctx_.trace->open(Phase::Reload, ctx_.now());
  while (true) {
    auto m = inbox.wait(-1);
    if (m->type == MessageType::IoDone && m->id == id) {
      ctx_.trace->close(ctx_.now(), false);
      return std::nullopt;
    }
    if (m->type == MessageType::Failure) {
      ctx_.coordinator->abort(id);
      ctx_.trace->close(ctx_.now(), true);
      record_failure(*m, Phase::Reload);
      return m;
    }
    if (m->type == MessageType::Planned)
      ++deferred_planned_;
  }
}

std::optional<Message> JobScheduler::planned(Inbox& inbox)
{
  models::Interruption rec;
  rec.t = ctx_.now();
  rec.planned = true;
  rec.cause = "planned";
  rec.component = "job";
  rec.during = Phase::Training;
  ctx_.trace->interruption(std::move(rec));
  return timed_phase(inbox, Phase::Planned, ctx_.scenario->planned.duration.si());
}

}  // namespace fleetsim::sim
