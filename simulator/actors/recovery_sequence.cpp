// The scheduler's recovery sequence and planned restarts, phase by phase; what differs between
// policies is the policy's (models/resilience/recovery_policy.hpp).
#include "job_scheduler.hpp"

#include "checkpoint_state.hpp"
#include "simulator/platform/storage_system.hpp"
#include "storage_channel.hpp"

#include "models/resilience/run_plan.hpp"

#include <algorithm>

namespace fleetsim::sim {

using models::Phase;

Task<> JobScheduler::recover(msg::Failure failure)
{
  const auto& rec = w_.scenario.recovery;
  const double restart = w_.policy.restart_seconds(rec);
  while (true) {
    const auto& cause = w_.scenario.causes.at(static_cast<size_t>(failure.cause));
    MaybeFailure next = co_await timed_phase(
        Phase::Detection, models::detection_delay(cause, rec.detection, rec.watchdog_timeout).si());
    // (A drain's restart, planned, keeps its nodes: drain() acquires them in place.) No co_await in
    // a conditional expression: GCC 12 miscompiles it.
    if (!next && w_.policy.requeues())
      next = co_await requeue();
    else if (!next)
      next = co_await acquire_nodes();
    if (!next)
      next = co_await timed_phase(Phase::Restart, restart);
    if (!next)
      next = co_await reload_phase();
    if (!next)
      next = co_await timed_phase(Phase::Warmup, rec.warmup.si());
    if (!next) {
      ++(memory_restore() ? w_.counters.memory_restores : w_.counters.storage_restores);
      start_job();
      co_return;
    }
    failure = std::move(*next);
  }
}

Task<JobScheduler::MaybeFailure> JobScheduler::acquire_nodes()
{
  models::NodePool& pool = w_.pool;
  auto ready = [&] { return w_.policy.restart_width(view()).has_value(); };
  if (!ready()) {
    // Not enough healthy nodes: wait for the repair pipeline. A failure that strikes the job's
    // surviving nodes meanwhile is an interruption like any during recovery (it may destroy the
    // last host-memory copies): recovery starts again.
    ++w_.counters.spares_exhausted;
    w_.trace.open(Phase::Waiting, now());
    while (!ready()) {
      auto m = co_await w_.inbox.next(-1);
      if (auto f = background(*m)) {
        w_.trace.close(now(), true);
        record_failure(*f, Phase::Waiting);
        co_return f;
      }
    }
    w_.trace.close(now(), false);
  }
  const long before = pool.active(w_.pool_job);
  if (w_.policy.resizes()) {
    const int dp = *w_.policy.restart_width(view());
    if (dp < shape_.dp)
      ++w_.counters.shrinks;
    pool.fill(w_.pool_job, slots_for(dp));
    set_shape(dp);
  } else {
    pool.fill(w_.pool_job, pool.job_slots(w_.pool_job));
  }
  fleet_changed();
  w_.counters.swaps += std::max(0L, pool.active(w_.pool_job) - before);
  co_return std::nullopt;
}

Task<JobScheduler::MaybeFailure> JobScheduler::requeue()
{
  models::NodePool& pool = w_.pool;
  for (long slot = 0; slot < pool.job_slots(w_.pool_job); ++slot)
    if (const long node = pool.node_in(w_.pool_job, slot); node >= 0)
      pool.let_go(node);
  ++w_.counters.requeues;
  w_.trace.set_active_gpus(0);
  const bool queue = w_.requeue != nullptr && *w_.requeue;
  const auto ready = [&] { return !queue && w_.policy.restart_width(view()).has_value(); };
  if (!ready()) {
    w_.trace.open(Phase::Waiting, now(), true);
    if (queue)
      (*w_.requeue)();
    bool placed = false;
    while (!placed && !ready()) {
      auto m = co_await w_.inbox.next(-1);
      if (std::holds_alternative<msg::Placed>(*m))
        placed = true;
      else if (!std::holds_alternative<msg::Planned>(*m))  // (no maintenance for a job on no node)
        (void)background(*m);                              // (it holds no node: a failure strikes nothing)
    }
    w_.trace.close(now(), false);
  }
  if (!queue)
    pool.fill(w_.pool_job, pool.job_slots(w_.pool_job));
  fleet_changed();
  co_return std::nullopt;
}

Task<JobScheduler::MaybeFailure> JobScheduler::timed_phase(Phase phase, double duration)
{
  w_.trace.open(phase, now());
  const double until = now() + duration;
  while (true) {
    auto m = co_await w_.inbox.next(until);
    if (!m) {
      w_.trace.close(now(), false);
      co_return std::nullopt;
    }
    if (auto f = background(*m)) {
      w_.trace.close(now(), true);
      record_failure(*f, phase);
      co_return f;
    }
  }
}

Task<JobScheduler::MaybeFailure> JobScheduler::reload_phase()
{
  if (memory_restore())
    co_return co_await timed_phase(Phase::Reload, w_.scenario.recovery.memory_reload.si());
  if (const double back = w_.storage_system.back_at; now() < back) {
    // The checkpoints are out of reach until the storage service is back.
    if (auto f = co_await timed_phase(Phase::Waiting, back - now()))
      co_return f;
  }
  w_.trace.open(Phase::Reload, now());
  while (true) {
    if (auto f = co_await read_checkpoint())
      co_return f;
    if (!w_.history.latest_corrupt())
      break;
    // The checkpoint read back corrupt: fall back to the one before, and read that.
    models::CheckpointDiscarded gone;
    gone.t = now();
    gone.step = w_.history.latest();
    w_.history.discard_latest();
    gone.fallback_step = w_.history.latest();
    w_.trace.discard(gone);
    if (w_.history.latest() == 0)
      break;  // nothing older: the job starts over
  }
  w_.trace.close(now(), false);
  co_return std::nullopt;
}

Task<JobScheduler::MaybeFailure> JobScheduler::read_checkpoint()
{
  const long id = next_request_++;
  Inbox<SchedulerMessage>& inbox = w_.inbox;
  w_.storage.requests.post(
      {id, false, w_.checkpoint_bytes, w_.checkpoint_files, [&inbox](msg::IoDone done) { inbox.post(done); }});
  while (true) {
    auto m = co_await w_.inbox.next(-1);
    if (const auto* done = std::get_if<msg::IoDone>(&*m); done != nullptr && done->id == id)
      co_return std::nullopt;
    if (auto f = background(*m)) {
      w_.storage.abort(id);
      w_.trace.close(now(), true);
      record_failure(*f, Phase::Reload);
      co_return f;
    }
  }
}

Task<JobScheduler::MaybeFailure> JobScheduler::regrow(int dp)
{
  co_return co_await planned_restart("elastic_regrow", "job", [this, dp]() -> Task<MaybeFailure> {
    // The width now: a failure of idle nodes during the checkpointed stop may have taken some.
    const int width = std::min(dp, w_.policy.width_now(view()));
    ++w_.counters.regrows;
    w_.pool.fill(w_.pool_job, slots_for(width));
    set_shape(width);
    fleet_changed();
    co_return std::nullopt;
  });
}

Task<JobScheduler::MaybeFailure> JobScheduler::drain(long node)
{
  co_return co_await planned_restart(
      "straggler_drain", models::component_label(models::Scope::Node, node), [this, node]() -> Task<MaybeFailure> {
    for (long n : stragglers_.nodes_to_drain(node)) {
      ++w_.counters.drains;
      (void)w_.pool.fail(n, 1, now(), false);
      w_.pool.heal_on_return(n);
      send_to_repair(n, stragglers_.drain_repair(), false);
    }
    co_return co_await acquire_nodes();
  });
}

Task<JobScheduler::MaybeFailure> JobScheduler::planned_restart(std::string cause, std::string component,
                                                               std::function<Task<MaybeFailure>()> reshape)
{
  MaybeFailure failure;
  (void)co_await stop_job(true, true, failure);
  if (failure) {
    record_failure(*failure, failure_during_);
    co_return failure;
  }
  models::Interruption rec;
  rec.t = now();
  rec.planned = true;
  rec.reconfiguration = true;
  rec.cause = cause;
  rec.component = component;
  rec.during = Phase::Training;
  w_.trace.interruption(std::move(rec));
  const auto& r = w_.scenario.recovery;
  MaybeFailure next = co_await reshape();
  if (!next)
    next = co_await timed_phase(Phase::Restart, w_.policy.restart_seconds(r));
  if (!next)
    next = co_await reload_phase();
  if (!next)
    next = co_await timed_phase(Phase::Warmup, r.warmup.si());
  if (!next)
    start_job(true);
  co_return next;
}

}  // namespace fleetsim::sim
