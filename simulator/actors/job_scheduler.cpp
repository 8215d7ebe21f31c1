#include "job_scheduler.hpp"

#include "checkpoint_coordinator.hpp"

#include "models/run_plan.hpp"
#include "models/stragglers.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace fleetsim::sim {

using models::Phase;

void JobScheduler::operator()()
{
  Inbox& inbox = *ctx_.scheduler;
  const auto& st = ctx_.scenario->stragglers;
  set_shape(ctx_.scenario->step.layout.dp);
  if (st.diurnal_amplitude > 0)
    alarm(MessageType::Tick, 0, 0, st.diurnal_resolution);
  if (st.drain_below > 0)
    for (long n = 0; n < ctx_.pool->size(); ++n)
      if (ctx_.pool->base_speed(n) < st.drain_below)
        alarm(MessageType::DrainCheck, n, 0, st.drain_after);
  start_job();
  while (true) {
    // Elastic: nodes that came back while the job was recovering make room for more replicas now.
    if (const auto grow = ctx_.policy->grow_width(view())) {
      if (auto f = regrow(inbox, *grow))
        recover(inbox, *f);
      continue;
    }
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
      if (!strikes_job(*m))
        continue;
      std::optional<Message> unused;
      stop_job(inbox, MessageType::Interrupt, false, unused);
      record_failure(*m, during);
      recover(inbox, *m);
    } else if (m->type == MessageType::Planned) {
      std::optional<Message> failure;
      stop_job(inbox, MessageType::PlanStop, ctx_.scenario->planned.checkpoint_before, failure);
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
        start_job(true);
    } else if (m->type == MessageType::DrainCheck) {
      if (!drain_due(*m))
        continue;
      if (ctx_.pool->slot_of(m->node) < 0) {
        // An idle node: take it out of the pool without touching the job.
        ++ctx_.counters->drains;
        (void)ctx_.pool->fail(m->node, 1, ctx_.now(), false);
        ctx_.pool->heal_on_return(m->node);
        send_to_repair(m->node, st.drain_repair);
        fleet_changed();
      } else if (auto f = drain(inbox, m->node)) {
        // The drain was cut short by a failure: look at the node again later.
        if (ctx_.pool->slot_of(m->node) >= 0)
          alarm(MessageType::DrainCheck, m->node, m->id, st.drain_after);
        recover(inbox, *f);
      }
    } else {
      state_message(*m);  // a repaired node may let an elastic job grow: see the top of the loop
    }
  }
}

Phase JobScheduler::job_phase() const
{
  return ctx_.trace->is_open() ? ctx_.trace->open_phase() : Phase::Training;
}

void JobScheduler::start_job(bool from_storage)
{
  assert(ctx_.pool->empty_slots() == 0 && "the job starts with every slot it uses held");
  Message m;
  m.type = MessageType::Start;
  m.id = ++epoch_;
  m.memory = !from_storage && memory_restore();
  lost_slots_.clear();
  ctx_.job->post(std::move(m));
}

bool JobScheduler::memory_restore() const { return ctx_.policy->restores_from_memory(view()); }

models::RecoveryView JobScheduler::view() const
{
  const auto& l = ctx_.scenario->step.layout;
  return {*ctx_.pool, ctx_.scenario->recovery, static_cast<long>(l.tp) * l.cp * l.pp, ctx_.scenario->fleet.gpus_per_node,
          l.dp, shape_.dp, lost_slots_};
}

long JobScheduler::slots_for(int dp) const
{
  const auto& l = ctx_.scenario->step.layout;
  return models::nodes_for_replicas(dp, static_cast<long>(l.tp) * l.cp * l.pp, ctx_.scenario->fleet.gpus_per_node,
                                    ctx_.pool->job_slots());
}

void JobScheduler::set_shape(int dp)
{
  if (dp != shape_.dp || shape_.step_time == 0)
    shape_ = shape_for_(dp);
  ctx_.trace->set_job(shape_.step_time, shape_.tokens_per_step, shape_.straggler_factor);
  // (fleet_changed below replaces the expected straggler factor by the fleet's actual state.)
  if (ctx_.counters->min_dp == 0 || dp < ctx_.counters->min_dp)
    ctx_.counters->min_dp = dp;
  fleet_changed();
}

void JobScheduler::fleet_changed()
{
  ctx_.trace->set_active_gpus(std::min(shape_.gpus, ctx_.pool->active() * ctx_.scenario->fleet.gpus_per_node));
  refresh_speed();
}

void JobScheduler::send_to_repair(long node, double mean)
{
  ++ctx_.counters->repairs;
  const double d = ctx_.scenario->capacity.repair_exponential ? repair_times_.exponential(1.0 / mean) : mean;
  if (!(mean > 0) || !(d > 0)) {
    ctx_.pool->repaired(node);  // replaced at once
    return;
  }
  Message m;
  m.type = MessageType::Repaired;
  m.node = node;
  m.duration = d;
  ctx_.alarms->post(std::move(m));
}

void JobScheduler::alarm(MessageType type, long node, long id, double after) const
{
  Message m;
  m.type = type;
  m.node = node;
  m.id = id;
  m.duration = after;
  ctx_.alarms->post(std::move(m));
}

void JobScheduler::refresh_speed()
{
  const auto& st = ctx_.scenario->stragglers;
  // The effective slowest speed: the slowest node, or with balanced micro-batches across generations
  // the replicas' combined pace (models/node_pool.hpp, compute_stretch).
  const auto& het = ctx_.scenario->heterogeneous;
  const double slowest = het.balanced ? 1.0 / ctx_.pool->compute_stretch(slots_for(1), true)
                                      : ctx_.pool->slowest_active_speed();
  const double f = models::step_factor(st, shape_.gpus / ctx_.scenario->fleet.gpus_per_node, shape_.compute_fraction,
                                       slowest, models::diurnal_speed(st, ctx_.now()));
  if (f == shape_.straggler_factor)
    return;
  shape_.straggler_factor = f;
  shape_.step_time = shape_.uniform_step_time * f;
  // checkpoint.interval is training time: the next stretch's step count follows the step time.
  shape_.steps_per_checkpoint = models::steps_per_checkpoint(ctx_.scenario->checkpoint.interval,
                                                             units::Seconds(shape_.step_time));
  if (shape_.steps_per_snapshot > 0) {
    const double every = ctx_.scenario->recovery.memory_snapshot_interval.si();
    shape_.steps_per_snapshot =
        every > 0 ? models::steps_per_checkpoint(units::Seconds(every), units::Seconds(shape_.step_time)) : 1;
  }
  ctx_.trace->set_job(shape_.step_time, shape_.tokens_per_step, shape_.straggler_factor);
  if (ctx_.trace->is_open() && ctx_.trace->open_phase() == Phase::Training) {
    Message m;
    m.type = MessageType::Retime;
    m.id = epoch_;
    ctx_.job->post(std::move(m));
  }
}

bool JobScheduler::drain_due(const Message& m) const
{
  const auto& st = ctx_.scenario->stragglers;
  const models::NodePool& pool = *ctx_.pool;
  if (!(st.drain_below > 0) || pool.state(m.node) == models::NodeState::Repair)
    return false;
  // The node's own slowness (persistent, episode), not its accelerator generation: draining cannot
  // change that.
  if (m.id == 0)
    return pool.base_speed(m.node) < st.drain_below;
  return pool.episode(m.node) == m.id && pool.episode_speed(m.node) < 1 &&
         std::min(pool.base_speed(m.node), pool.episode_speed(m.node)) < st.drain_below;
}

void JobScheduler::state_message(const Message& m)
{
  const auto& st = ctx_.scenario->stragglers;
  models::NodePool& pool = *ctx_.pool;
  switch (m.type) {
    case MessageType::Repaired:
      pool.repaired(m.node);
      // A failed (not drained) persistent straggler comes back as slow as it left.
      if (st.drain_below > 0 && pool.base_speed(m.node) < st.drain_below)
        alarm(MessageType::DrainCheck, m.node, 0, st.drain_after);
      break;
    case MessageType::SlowStart:
      if (!pool.up(m.node))
        return;
      pool.start_episode(m.node, m.id, st.episode_speed, ctx_.now());
      ++ctx_.counters->episodes;
      alarm(MessageType::SlowEnd, m.node, m.id, m.duration);
      if (st.episode_speed < st.drain_below && m.duration > st.drain_after)
        alarm(MessageType::DrainCheck, m.node, m.id, st.drain_after);
      break;
    case MessageType::SlowEnd:
      pool.end_episode(m.node, m.id);
      break;
    case MessageType::Tick: {
      // The next tick on the fixed grid k x resolution, however late this one was handled.
      const double next = (std::floor(ctx_.now() / st.diurnal_resolution + 1e-9) + 1) * st.diurnal_resolution;
      alarm(MessageType::Tick, 0, 0, next - ctx_.now());
      break;
    }
    default:
      return;
  }
  fleet_changed();
}

bool JobScheduler::strikes_job(const Message& failure)
{
  const auto& cause = ctx_.scenario->causes.at(static_cast<size_t>(failure.cause));
  if (cause.scope == models::Scope::Job)
    return true;
  if (cause.scope == models::Scope::Storage) {
    // The storage service is down for the cause's repair time: the job's I/O fails, and no
    // checkpoint can be read until it is back (host-memory snapshots do not need it).
    const double back = ctx_.now() + cause.repair.value_or(ctx_.scenario->capacity.repair_time).si();
    ctx_.coordinator->storage_back = std::max(ctx_.coordinator->storage_back, back);
    return true;
  }
  const bool own_fault = cause.scope == models::Scope::Gpu || cause.scope == models::Scope::Node;
  const auto hit = ctx_.pool->fail(failure.first_node, failure.nodes, ctx_.now(), own_fault);
  const auto& cap = ctx_.scenario->capacity;
  const double repair = cause.repair.value_or(cap.repair_time).si();
  for (long node : hit.nodes) {
    const bool retired = std::find(hit.retired.begin(), hit.retired.end(), node) != hit.retired.end();
    send_to_repair(node, retired ? cap.lemon_replace_time.si() : repair);
  }
  lost_slots_.insert(lost_slots_.end(), hit.slots.begin(), hit.slots.end());
  // Only the GPU count: a job struck is about to stop, so a new step time now would only cut its
  // last training segment in two. Recovery sets the step time of the fleet it restarts on.
  ctx_.trace->set_active_gpus(std::min(shape_.gpus, ctx_.pool->active() * ctx_.scenario->fleet.gpus_per_node));
  if (hit.slots.empty() && !hit.nodes.empty())
    ++ctx_.counters->spare_failures;
  return !hit.slots.empty();
}

std::optional<Message> JobScheduler::background(const Message& m)
{
  if (m.type == MessageType::Failure && strikes_job(m))
    return m;
  if (m.type == MessageType::Planned)
    ++deferred_planned_;
  if (m.type == MessageType::DrainCheck) {
    // The job is not training: look again later.
    if (drain_due(m))
      alarm(MessageType::DrainCheck, m.node, m.id, ctx_.scenario->stragglers.drain_after);
    return std::nullopt;
  }
  state_message(m);
  return std::nullopt;
}

bool JobScheduler::stop_job(Inbox& inbox, MessageType how, bool checkpoint_first, std::optional<Message>& failure)
{
  Message order;
  order.type = how;
  order.id = epoch_;
  order.clean = checkpoint_first;
  order.memory = memory_restore();
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
      // The job may die while it checkpoints for maintenance.
      const Phase during = job_phase();
      if (!strikes_job(*m))
        continue;
      failure_during_ = during;
      Message kill;
      kill.type = MessageType::Interrupt;
      kill.id = epoch_;
      kill.memory = memory_restore();
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
  rec.from_memory = memory_restore();
  ctx_.trace->interruption(std::move(rec));
}

void JobScheduler::recover(Inbox& inbox, Message failure)
{
  const auto& rec = ctx_.scenario->recovery;
  const double restart = restart_time();
  while (true) {
    const auto& cause = ctx_.scenario->causes.at(static_cast<size_t>(failure.cause));
    std::optional<Message> next = timed_phase(inbox, Phase::Detection,
                                              models::detection_delay(cause, rec.detection, rec.watchdog_timeout).si());
    if (!next)
      next = acquire_nodes(inbox);
    if (!next)
      next = timed_phase(inbox, Phase::Restart, restart);
    if (!next)
      next = reload_phase(inbox);
    if (!next)
      next = timed_phase(inbox, Phase::Warmup, rec.warmup.si());
    if (!next) {
      ++(memory_restore() ? ctx_.counters->memory_restores : ctx_.counters->storage_restores);
      start_job();
      return;
    }
    failure = std::move(*next);
  }
}

std::optional<Message> JobScheduler::acquire_nodes(Inbox& inbox)
{
  models::NodePool& pool = *ctx_.pool;
  auto ready = [&] { return ctx_.policy->restart_width(view()).has_value(); };
  if (!ready()) {
    // Not enough healthy nodes: wait for the repair pipeline. A failure that strikes the job's
    // surviving nodes meanwhile is an interruption like any during recovery (it may destroy the
    // last host-memory copies): recovery starts again.
    ++ctx_.counters->spares_exhausted;
    ctx_.trace->open(Phase::Waiting, ctx_.now());
    while (!ready()) {
      auto m = inbox.wait(-1);
      if (auto f = background(*m)) {
        ctx_.trace->close(ctx_.now(), true);
        record_failure(*f, Phase::Waiting);
        return f;
      }
    }
    ctx_.trace->close(ctx_.now(), false);
  }
  const long before = pool.active();
  if (ctx_.policy->resizes()) {
    const int dp = *ctx_.policy->restart_width(view());
    if (dp < shape_.dp)
      ++ctx_.counters->shrinks;
    pool.fill(slots_for(dp));
    set_shape(dp);
  } else {
    pool.fill(pool.job_slots());
  }
  fleet_changed();
  ctx_.counters->swaps += std::max(0L, pool.active() - before);
  return std::nullopt;
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
    if (auto f = background(*m)) {
      ctx_.trace->close(ctx_.now(), true);
      record_failure(*f, phase);
      return f;
    }
  }
}

std::optional<Message> JobScheduler::reload_phase(Inbox& inbox)
{
  if (memory_restore())
    return timed_phase(inbox, Phase::Reload, ctx_.scenario->recovery.memory_reload.si());
  if (const double back = ctx_.coordinator->storage_back; ctx_.now() < back) {
    // The checkpoints are out of reach until the storage service is back.
    if (auto f = timed_phase(inbox, Phase::Waiting, back - ctx_.now()))
      return f;
  }
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
    if (auto f = background(*m)) {
      ctx_.coordinator->abort(id);
      ctx_.trace->close(ctx_.now(), true);
      record_failure(*f, Phase::Reload);
      return f;
    }
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

std::optional<Message> JobScheduler::regrow(Inbox& inbox, int dp)
{
  return planned_restart(inbox, "elastic_regrow", "job", [this, dp](Inbox&) -> std::optional<Message> {
    // The width now: a failure of idle nodes during the checkpointed stop may have taken some.
    const int width = std::min(dp, ctx_.policy->width_now(view()));
    ++ctx_.counters->regrows;
    ctx_.pool->fill(slots_for(width));
    set_shape(width);
    fleet_changed();
    return std::nullopt;
  });
}

std::optional<Message> JobScheduler::drain(Inbox& inbox, long node)
{
  return planned_restart(inbox, "straggler_drain", models::component_label(models::Scope::Node, node),
                         [this, node](Inbox& in) -> std::optional<Message> {
                           // One restart for every job node slow long enough, not one each.
                           const auto& st = ctx_.scenario->stragglers;
                           std::vector<long> nodes = ctx_.pool->slow_job_nodes(st.drain_below, st.drain_after, ctx_.now());
                           if (std::find(nodes.begin(), nodes.end(), node) == nodes.end())
                             nodes.push_back(node);
                           for (long n : nodes) {
                             ++ctx_.counters->drains;
                             (void)ctx_.pool->fail(n, 1, ctx_.now(), false);
                             ctx_.pool->heal_on_return(n);
                             send_to_repair(n, st.drain_repair);
                           }
                           return acquire_nodes(in);
                         });
}

std::optional<Message> JobScheduler::planned_restart(Inbox& inbox, const std::string& cause,
                                                     const std::string& component,
                                                     const std::function<std::optional<Message>(Inbox&)>& reshape)
{
  std::optional<Message> failure;
  stop_job(inbox, MessageType::PlanStop, true, failure);
  if (failure) {
    record_failure(*failure, failure_during_);
    return failure;
  }
  models::Interruption rec;
  rec.t = ctx_.now();
  rec.planned = true;
  rec.reconfiguration = true;
  rec.cause = cause;
  rec.component = component;
  rec.during = Phase::Training;
  ctx_.trace->interruption(std::move(rec));
  const auto& r = ctx_.scenario->recovery;
  std::optional<Message> next = reshape(inbox);
  if (!next)
    next = timed_phase(inbox, Phase::Restart, restart_time());
  if (!next)
    next = reload_phase(inbox);
  if (!next)
    next = timed_phase(inbox, Phase::Warmup, r.warmup.si());
  if (!next)
    start_job(true);
  return next;
}

double JobScheduler::restart_time() const { return ctx_.policy->restart_seconds(ctx_.scenario->recovery); }

}  // namespace fleetsim::sim
