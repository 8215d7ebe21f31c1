#include "job_runtime.hpp"

#include "models/checkpoint/checkpoint_plan.hpp"
#include "models/core/invariant.hpp"
#include "models/resilience/failure_model.hpp"
#include "models/resilience/run_plan.hpp"
#include "simulator/actors/failure_injector.hpp"
#include "simulator/actors/job_scheduler.hpp"
#include "simulator/actors/training_job.hpp"
#include "simulator/platform/storage_system.hpp"
#include "simulator/run/engine_setup.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

namespace fleetsim::sim {

JobShape job_shape(const scenario::Scenario& s, const models::StepBreakdown& step, int dp,
                   const models::RecoveryPolicy& policy)
{
  const models::ParallelLayout& l = s.step.layout;
  JobShape j;
  j.dp = dp;
  j.gpus = std::min(s.fleet.gpus, static_cast<long>(dp) * l.tp * l.cp * l.pp);
  double uniform = step.step_time.si();
  double compute_fraction = step.compute_fraction;
  j.tokens_per_step = s.step.workload.global_batch_tokens;
  if (dp != l.dp) {
    // Fewer replicas: the analytic model's ratio scales the step the scenario resolved (simulated or
    // analytic). Keeping the global batch rounds it to whole micro-batches per replica.
    models::StepInputs in = s.step;
    in.layout.dp = dp;
    const models::Workload& w = s.step.workload;
    in.workload.global_batch_tokens = models::elastic_global_batch(
        w.global_batch_tokens, static_cast<double>(w.sequence_length) * w.micro_batch_size, dp, l.dp,
        s.recovery.elastic_keep_global_batch);
    const models::AnalyticStepModel analytic;
    const models::StepBreakdown whole = analytic.step(s.step);
    const models::StepBreakdown part = analytic.step(in);
    uniform *= part.step_time / whole.step_time;
    compute_fraction = part.compute_fraction;
    j.tokens_per_step = part.tokens_per_step;
  }
  j.uniform_step_time = uniform;
  j.compute_fraction = compute_fraction;
  j.straggler_factor = models::expected_step_factor(s.stragglers, j.gpus / s.fleet.gpus_per_node, compute_fraction);
  j.step_time = uniform * j.straggler_factor;
  j.steps_per_checkpoint = models::steps_per_checkpoint(s.checkpoint.interval, units::Seconds(j.step_time));
  // multi_level takes its snapshots at its checkpoints, and pays for them there.
  const auto snapshots = s.checkpoint.strategy == scenario::CheckpointStrategy::MultiLevel
                             ? std::nullopt
                             : policy.snapshot_interval(s.recovery);
  if (snapshots)
    j.steps_per_snapshot = models::steps_per_snapshot(*snapshots, j.step_time);
  return j;
}

namespace {

// The job's checkpoint plan at its size (models/checkpoint/checkpoint_plan.hpp).
models::CheckpointPlan checkpoint_plan(const scenario::Scenario& s)
{
  return models::make_checkpoint_plan(s.checkpoint, s.checkpoint_bytes().si(), s.fleet.gpus, s.fleet.gpus_per_node);
}

// A training and a checkpoint segment per interval, a commit, and a dozen records around each
// expected interruption; the log grows past this if it must.
size_t expected_records(const scenario::Scenario& s)
{
  double expected = 0;
  for (const auto& c : s.causes)
    expected += models::expected_count(c, s.fleet, s.duration);
  const double intervals = s.checkpoint.interval.si() > 0 ? s.duration.si() / s.checkpoint.interval.si() : 0;
  return static_cast<size_t>(std::min(3 * intervals + 12 * expected + 256, 4.0e6));
}

}  // namespace

std::unique_ptr<models::RecoveryPolicy> make_recovery_policy(const scenario::Scenario& s)
{
  const models::RecoveryPolicyEntry* entry = models::find_recovery_policy(s.recovery.policy_name);
  models::check_invariant(entry != nullptr, "the recovery policy is registered",
                          [&] { return "no recovery policy '" + s.recovery.policy_name + "'"; });
  return entry->make();
}

models::NodePool make_cluster_pool(const scenario::Scenario& s, long nodes, std::uint64_t seed)
{
  models::NodePool pool(nodes, s.fleet.gpus_per_rack / s.fleet.gpus_per_node, s.capacity.lemons, seed);
  pool.set_nodes_per_pod(s.fleet.gpus_per_pod / s.fleet.gpus_per_node);
  // Persistent stragglers are particular nodes, as many as the expected model counts in the cluster.
  if (s.stragglers.persistent_speed < 1)
    pool.draw_slow_nodes(models::persistent_stragglers(s.stragglers, pool.size()), s.stragglers.persistent_speed, seed);
  return pool;
}

long seat_job(models::NodePool& pool, const scenario::Scenario& s, const std::vector<long>& nodes, std::uint64_t seed)
{
  const long job = pool.add_job(static_cast<long>(nodes.size()));
  pool.place(job, nodes);
  if (s.heterogeneous.any())
    pool.set_old_generation(job, std::lround(s.heterogeneous.fraction * static_cast<double>(pool.job_slots(job))),
                            s.heterogeneous.speed, s.heterogeneous.spread, seed);
  return job;
}

models::NodePool make_node_pool(const scenario::Scenario& s, std::uint64_t seed)
{
  const int gpn = s.fleet.gpus_per_node;
  const long job_nodes = (s.fleet.gpus + gpn - 1) / gpn;
  models::NodePool pool = make_cluster_pool(s, job_nodes + s.capacity.spare_nodes, seed);
  std::vector<long> first(static_cast<size_t>(job_nodes));
  std::iota(first.begin(), first.end(), 0L);
  seat_job(pool, s, first, seed);
  return pool;
}

JobRuntime::JobRuntime(const scenario::Scenario& s, std::uint64_t seed, const models::StepBreakdown& step,
                       const JobShape& full, models::RecoveryPolicy& policy, models::NodePool& pool, long pool_job,
                       NodeKeeper& nodes)
    : s_(s),
      seed_(seed),
      step_(step),
      policy_(policy),
      trace_(full.step_time),
      pool_(pool),
      pool_job_(pool_job),
      nodes_(nodes),
      shapes_{{full.dp, full}},
      full_(full),
      plan_(checkpoint_plan(s)),
      interval_(models::interval_spec(plan_, s.checkpoint, s.storage), models::checkpoint_cost(plan_, s.storage),
                models::job_mtbf(s.causes, s.fleet).si()),
      history_(s.checkpoint.corrupt_probability, seed)
{
  trace_.reserve(expected_records(s));
}

void JobRuntime::start(const Platform& platform, int client, const Spawn& spawn, ProcessHost& host,
                       const std::function<void()>& after_checkpoint_writer, long group)
{
  const double horizon = s_.duration.si();
  const double checkpoint_bytes = s_.checkpoint_bytes().si();
  // Each actor gets the few services it uses (run_context.hpp).
  const EventSourceWiring sources{s_, pool_, seed_, horizon, scheduler_inbox_};
  const bool loads = s_.data.bytes_per_token.si() > 0;
  const JobWiring job{trace_,     shape_,           plan_,
                      job_inbox_, scheduler_inbox_, writes_,
                      interval_,  history_,         loads ? &loader_inbox_ : nullptr,
                      &demand_,   target_step(),    s_.checkpoint_at_target};
  StorageSystem& storage = *platform.storage;
  const SchedulerWiring scheduler{s_,           trace_,           pool_,      pool_job_,        counters_,
                                  policy_,      checkpoint_bytes, seed_,      scheduler_inbox_, job_inbox_,
                                  alarm_inbox_, nodes_,           reads_,     storage,          plan_.files,
                                  interval_,    history_,         &finished_, &requeue_};
  nodes_.attach(pool_job_, scheduler_inbox_, counters_);
  host.spawn("job-scheduler", JobScheduler(scheduler, shape_, [this](int dp) { return shape_for(dp); }), group);
  host.spawn("training-job", TrainingJob(job), group);
  host.spawn("checkpoint-writer", StorageChannel(storage, client, writes_), group);
  if (after_checkpoint_writer)
    after_checkpoint_writer();
  if (loads) {
    const double bytes = s_.data.bytes_per_token.si() * full_.tokens_per_step;
    const double alone = models::alone_read_rate(s_.storage, s_.fleet.gpus, s_.fleet.gpus_per_node);
    const LoaderWiring loader{storage, batches_, loader_inbox_,          job_inbox_,
                              demand_, bytes,    s_.data.prefetch_steps, bytes / alone >= full_.step_time};
    host.spawn("data-reader", StorageChannel(storage, client, batches_), group);
    host.spawn("data-loader", DataLoader(loader), group);
  }
  host.spawn("checkpoint-reader", StorageChannel(storage, client, reads_), group);
  host.spawn("alarm-clock", AlarmClock(alarm_inbox_, scheduler_inbox_), group);
  host.spawn("slowdowns", SlowdownInjector(sources), group);
  host.spawn("maintenance-calendar", MaintenanceCalendar(sources), group);
  // The causes that strike nodes are the run's to draw, over its pool (spawn_node_failures).
  for (size_t i = 0; i < s_.causes.size(); ++i)
    if (!strikes_nodes(s_.causes[i]))
      host.spawn("failures-" + s_.causes[i].name, FailureInjector(sources, static_cast<int>(i)), group);
  if (test_fault() == "open_phase")
    spawn("test-fault", [this, horizon] {
      sg4::this_actor::sleep_until(horizon / 2);
      trace_.open(models::Phase::Waiting, now());  // while the job's phase is open
    });
  if (test_fault() == "repair_up_node")  // an internal check failing on an actor's stack
    spawn("test-fault", [this, horizon] {
      sg4::this_actor::sleep_until(horizon / 2);
      pool_.repaired(0);  // node 0 is not in repair: NodePool's FLEETSIM_CHECK ends the process
    });
}

void JobRuntime::leave_keeper() { nodes_.detach(pool_job_); }

void JobRuntime::placed()
{
  nodes_.attach(pool_job_, scheduler_inbox_, counters_);
  scheduler_inbox_.post(msg::Placed{});
}

long JobRuntime::target_step() const
{
  if (!s_.stop_at_target || !(s_.token_target > 0))
    return 0;
  return std::max(1L, static_cast<long>(std::ceil(s_.token_target / full_.tokens_per_step - 1e-9)));
}

models::TraceLog JobRuntime::finish(double horizon)
{
  trace_.finish(horizon);
  return trace_.take();
}

JobShape JobRuntime::shape_for(int dp)
{
  auto it = shapes_.find(dp);
  if (it == shapes_.end())
    it = shapes_.emplace(dp, job_shape(s_, step_, dp, policy_)).first;
  return it->second;
}

}  // namespace fleetsim::sim
