#include "job_scheduler.hpp"

#include "checkpoint_state.hpp"
#include "node_keeper.hpp"
#include "simulator/platform/storage_system.hpp"
#include "storage_channel.hpp"

#include "models/core/invariant.hpp"
#include "models/resilience/run_plan.hpp"

#include <algorithm>

namespace fleetsim::sim {

using models::Phase;

Process JobScheduler::operator()()
{
  set_shape(w_.scenario.step.layout.dp);
  stragglers_.start();
  // A fleet's work job launches first (RecoverySpec::startup): a failure meanwhile is recovered from.
  if (const double startup = w_.scenario.recovery.startup.si(); startup > 0) {
    if (auto f = co_await timed_phase(Phase::Restart, startup))
      co_await recover(*f);
    else
      start_job();
  } else {
    start_job();
  }
  while (!finished_) {
    // Elastic: nodes that came back while the job was recovering make room for more replicas now.
    if (const auto grow = w_.policy.grow_width(view())) {
      if (auto f = co_await regrow(*grow))
        co_await recover(*f);
      continue;
    }
    if (deferred_planned_ > 0) {
      --deferred_planned_;
      co_await on_planned();
      continue;
    }
    const auto m = co_await w_.inbox.next(-1);
    // Every kind of message is named: a new one does not compile until it is handled here. Those
    // that start a stop or a recovery are awaited here (a visitor cannot wait).
    enum class Act { None, Failure, Planned, DrainCheck };
    const auto state = [this, &m](const auto&) {
      state_message(*m);
      return Act::None;
    };
    const Act act = std::visit(Overloaded{
                                   [](const msg::Failure&) { return Act::Failure; },
                                   [](const msg::Planned&) { return Act::Planned; },
                                   [](const msg::DrainCheck&) { return Act::DrainCheck; },
                                   // A repaired node may let an elastic job grow: see the top of the loop.
                                   [&state](const msg::Repaired& r) { return state(r); },
                                   [&state](const msg::SlowStart& e) { return state(e); },
                                   [&state](const msg::SlowEnd& e) { return state(e); },
                                   [&state](const msg::Tick& t) { return state(t); },
                                   // Left over from an incarnation or a request that is gone: nothing to do.
                                   [this](const msg::Stopped& e) {
                                     finished_ = finished_ || (e.finished && e.epoch == epoch_);
                                     return Act::None;
                                   },
                                   [](const msg::IoDone&) { return Act::None; },
                                   [](const msg::Placed&) { return Act::None; },
                               },
                               *m);
    if (act == Act::Failure)
      co_await on_failure(std::get<msg::Failure>(*m));
    else if (act == Act::Planned)
      co_await on_planned();
    else if (act == Act::DrainCheck)
      co_await on_drain_check(std::get<msg::DrainCheck>(*m));
  }
  // The job reached its token target: its host ends its processes (JobRuntime::on_finished).
  if (w_.finished != nullptr && *w_.finished)
    (*w_.finished)();
}

Task<> JobScheduler::on_failure(msg::Failure f)
{
  const Phase during = job_phase();
  if (!strikes_job(f))
    co_return;
  MaybeFailure unused;
  (void)co_await stop_job(false, false, unused);
  record_failure(f, during);
  co_await recover(f);
}

Task<> JobScheduler::on_drain_check(msg::DrainCheck c)
{
  if (!stragglers_.drain_due(c))
    co_return;
  if (w_.pool.job_of(c.node) != w_.pool_job) {
    // Another job's node (a node back from repair is announced to every job): its own checks
    // drain it.
    if (w_.pool.state(c.node) != models::NodeState::Idle)
      co_return;
    // An idle node: take it out of the pool without touching the job.
    ++w_.counters.drains;
    (void)w_.pool.fail(c.node, 1, now(), false);
    w_.pool.heal_on_return(c.node);
    send_to_repair(c.node, stragglers_.drain_repair(), true);
    fleet_changed();
  } else if (auto f = co_await drain(c.node)) {
    // The drain was cut short by a failure: look at the node again later.
    if (w_.pool.job_of(c.node) == w_.pool_job)
      stragglers_.check_later(c);
    co_await recover(*f);
  }
}

Phase JobScheduler::job_phase() const { return w_.trace.is_open() ? w_.trace.open_phase() : Phase::Training; }

void JobScheduler::start_job(bool from_storage)
{
  if (finished_)
    return;  // it reached its target as a stop began: nothing more to train
  models::check_invariant(w_.pool.empty_slots(w_.pool_job) == 0, "the job starts with every slot it uses held",
                          [&] { return std::to_string(w_.pool.empty_slots(w_.pool_job)) + " job slots are empty"; });
  const bool memory = !from_storage && memory_restore();
  lost_slots_.clear();
  w_.job.post(msg::Start{++epoch_, memory});
}

bool JobScheduler::memory_restore() const { return w_.policy.restores_from_memory(view()); }

models::RecoveryView JobScheduler::view() const
{
  const auto& l = w_.scenario.step.layout;
  return {w_.pool,
          w_.pool_job,
          w_.scenario.recovery,
          static_cast<long>(l.tp) * l.cp * l.pp,
          w_.scenario.fleet.gpus_per_node,
          l.dp,
          shape_.dp,
          lost_slots_};
}

long JobScheduler::slots_for(int dp) const
{
  const auto& l = w_.scenario.step.layout;
  return models::nodes_for_replicas(dp, static_cast<long>(l.tp) * l.cp * l.pp, w_.scenario.fleet.gpus_per_node,
                                    w_.pool.job_slots(w_.pool_job));
}

void JobScheduler::set_shape(int dp)
{
  if (dp != shape_.dp || shape_.step_time == 0)
    shape_ = shape_for_(dp);
  w_.trace.set_job(shape_.step_time, shape_.tokens_per_step, shape_.straggler_factor);
  // (fleet_changed below replaces the expected straggler factor by the fleet's actual state.)
  if (w_.counters.min_dp == 0 || dp < w_.counters.min_dp)
    w_.counters.min_dp = dp;
  fleet_changed();
}

void JobScheduler::fleet_changed()
{
  w_.trace.set_active_gpus(std::min(shape_.gpus, w_.pool.active(w_.pool_job) * w_.scenario.fleet.gpus_per_node));
  refresh_speed();
}

void JobScheduler::refresh_speed()
{
  if (!stragglers_.refresh(shape_, slots_for(1)))
    return;
  w_.trace.set_job(shape_.step_time, shape_.tokens_per_step, shape_.straggler_factor);
  if (w_.trace.is_open() && w_.trace.open_phase() == Phase::Training)
    w_.job.post(msg::Retime{epoch_});
}

void JobScheduler::send_to_repair(long node, double mean, bool idle)
{
  ++w_.counters.repairs;
  w_.nodes.send(node, mean, idle ? -1 : w_.pool_job);
}

void JobScheduler::state_message(const SchedulerMessage& m)
{
  if (const auto* r = std::get_if<msg::Repaired>(&m)) {
    if (!r->returned) {
      w_.pool.repaired(r->node);
      w_.nodes.taken_back(r->node, w_.pool_job);  // the other jobs may take it
    }
    stragglers_.repaired(r->node);
  } else if (!stragglers_.apply(m)) {
    return;
  }
  fleet_changed();
}

bool JobScheduler::strikes_job(const msg::Failure& failure)
{
  const auto& cause = w_.scenario.causes.at(static_cast<size_t>(failure.cause));
  const models::FailureScopeModel& scope = cause.scope.model();
  if (scope.effect() == models::ScopeEffect::WholeJob)
    return true;
  if (scope.effect() == models::ScopeEffect::StorageOutage) {
    // The storage service is down for the cause's repair time: the job's I/O fails, and no
    // checkpoint can be read until it is back (host-memory snapshots do not need it).
    const double back = now() + cause.repair.value_or(w_.scenario.capacity.repair_time).si();
    w_.storage_system.back_at = std::max(w_.storage_system.back_at, back);
    return true;
  }
  // The run's node keeper took the nodes down and sent them to repair (node_keeper.hpp); it keeps
  // which of the job's slots they held, under the strike's number.
  const std::vector<long> lost = w_.nodes.take_lost(w_.pool_job, failure.strike);
  lost_slots_.insert(lost_slots_.end(), lost.begin(), lost.end());
  // Only the GPU count: a job struck is about to stop, so a new step time now would only cut its
  // last training segment in two. Recovery sets the step time of the fleet it restarts on.
  w_.trace.set_active_gpus(std::min(shape_.gpus, w_.pool.active(w_.pool_job) * w_.scenario.fleet.gpus_per_node));
  return !lost.empty();
}

JobScheduler::MaybeFailure JobScheduler::background(const SchedulerMessage& m)
{
  if (const auto* f = std::get_if<msg::Failure>(&m)) {
    if (strikes_job(*f))
      return *f;
    return std::nullopt;
  }
  if (std::holds_alternative<msg::Planned>(m)) {
    ++deferred_planned_;
    return std::nullopt;
  }
  if (const auto* c = std::get_if<msg::DrainCheck>(&m)) {
    // The job is not training: look again later.
    if (stragglers_.drain_due(*c))
      stragglers_.check_later(*c);
    return std::nullopt;
  }
  state_message(m);
  return std::nullopt;
}

Task<bool> JobScheduler::stop_job(bool planned, bool checkpoint_first, MaybeFailure& failure)
{
  if (planned)
    w_.job.post(msg::PlanStop{epoch_, checkpoint_first});
  else
    w_.job.post(msg::Interrupt{epoch_, memory_restore()});
  std::vector<SchedulerMessage> later;
  bool clean = false;
  while (true) {
    auto m = co_await w_.inbox.next(-1);
    if (const auto* s = std::get_if<msg::Stopped>(&*m); s != nullptr && s->epoch == epoch_) {
      clean = s->clean;
      finished_ = s->finished;
      break;
    }
    if (const auto* f = std::get_if<msg::Failure>(&*m); f != nullptr && planned && !failure) {
      // The job may die while it checkpoints for maintenance.
      const Phase during = job_phase();
      if (!strikes_job(*f))
        continue;
      failure_during_ = during;
      w_.job.post(msg::Interrupt{epoch_, memory_restore()});
      failure = *f;
      continue;
    }
    later.push_back(std::move(*m));
  }
  for (auto& m : later)
    w_.inbox.keep(std::move(m));
  co_return clean;
}

void JobScheduler::record_failure(const msg::Failure& failure, Phase during) const
{
  models::Interruption rec;
  rec.t = now();
  rec.planned = false;
  const auto& cause = w_.scenario.causes.at(static_cast<size_t>(failure.cause));
  rec.cause = cause.name;
  rec.component = models::component_label(cause.scope, failure.component);
  rec.first_gpu = failure.first_gpu;
  rec.gpus_down = failure.gpus_down;
  rec.during = during;
  rec.from_memory = memory_restore();
  w_.trace.interruption(std::move(rec));
  w_.interval.failure(now());
}

}  // namespace fleetsim::sim
