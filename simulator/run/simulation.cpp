#include "simulation.hpp"

#include "models/checkpoint/checkpoint_interval.hpp"
#include "models/checkpoint/checkpoint_plan.hpp"
#include "models/resilience/failure_model.hpp"
#include "models/core/invariant.hpp"
#include "models/resilience/run_plan.hpp"
#include "simulator/actors/checkpoint_state.hpp"
#include "simulator/actors/data_loader.hpp"
#include "simulator/actors/failure_injector.hpp"
#include "simulator/actors/job_scheduler.hpp"
#include "simulator/actors/storage_bucket.hpp"
#include "simulator/actors/storage_channel.hpp"
#include "simulator/actors/training_job.hpp"
#include "simulator/logging/logging.hpp"
#include "simulator/platform/platform_builder.hpp"
#include "simulator/platform/storage_system.hpp"
#include "simulator/run/engine_setup.hpp"
#include "simulator/run/step_source.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <string_view>

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

void break_invariant_for_test(models::TraceLog& log)
{
  if (test_fault() != "drop_segment")
    return;
  size_t seen = 0;
  for (auto it = log.begin(); it != log.end(); ++it)
    if (std::holds_alternative<models::PhaseSegment>(*it) && ++seen == 3) {
      log.erase(it);
      return;
    }
}

}  // namespace

namespace {

// The replay's power inputs: the cluster (spare nodes included), the step's compute and traffic,
// and the storage's load over time.
models::energy::ReplayPower replay_power(const scenario::Scenario& s, const RunResult& r)
{
  models::energy::ReplayPower in;
  in.spec = s.power;
  in.gpus_per_node = s.fleet.gpus_per_node;
  in.job_gpus = s.fleet.gpus;
  in.cluster_gpus = s.fleet.gpus + s.capacity.spare_nodes * s.fleet.gpus_per_node;
  in.compute_s = r.step.compute.si();
  in.step_time = r.step.step_time.si();
  in.traffic = models::energy::step_traffic(s.step, r.step.micro_batches);
  in.grid = &s.carbon.profile;
  in.storage.reserve(r.storage.size());
  for (const StorageSample& x : r.storage)
    in.storage.push_back({x.t, x.write_bps + x.read_bps});
  return in;
}

}  // namespace

RunResult run_simulation(const scenario::Scenario& given, std::uint64_t seed)
{
  return run_simulation(given, seed, resolve_step(given));  // before the Engine: a simulated step forks
}

namespace {

// A simulated step also timed the checkpoint write over the fabric. If the fabric, not the storage
// service, limits it, the storage runs at the rate the fabric delivers.
scenario::Scenario with_fabric_write_rate(const scenario::Scenario& given, const ResolvedStep& step)
{
  scenario::Scenario s = given;
  const double bytes = s.checkpoint_bytes().si();
  // (The fabric time includes one route latency, microseconds: only a real excess counts.)
  if (step.checkpoint_write_s > 0 && bytes > 0 &&
      step.checkpoint_write_s > bytes / s.storage.write_bandwidth.si() * (1 + 1e-3))
    s.storage.write_bandwidth = units::BytesPerSecond(bytes / step.checkpoint_write_s);
  return s;
}

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

std::unique_ptr<models::RecoveryPolicy> make_policy(const scenario::Scenario& s)
{
  const models::RecoveryPolicyEntry* entry = models::find_recovery_policy(s.recovery.policy_name);
  models::check_invariant(entry != nullptr, "the recovery policy is registered",
                          [&] { return "no recovery policy '" + s.recovery.policy_name + "'"; });
  return entry->make();
}

// The cluster's nodes: the job's and the spares, lemons, an older generation, persistent stragglers.
models::NodePool make_pool(const scenario::Scenario& s, std::uint64_t seed)
{
  const int gpn = s.fleet.gpus_per_node;
  models::NodePool pool((s.fleet.gpus + gpn - 1) / gpn, s.capacity.spare_nodes, s.fleet.gpus_per_rack / gpn,
                        s.capacity.lemons, seed);
  pool.set_nodes_per_pod(s.fleet.gpus_per_pod / gpn);
  if (s.heterogeneous.any())
    pool.set_old_generation(std::lround(s.heterogeneous.fraction * static_cast<double>(pool.job_slots())),
                            s.heterogeneous.speed, s.heterogeneous.spread, seed);
  // Persistent stragglers are particular nodes, as many as the expected model counts in the job.
  if (s.stragglers.persistent_speed < 1)
    pool.draw_slow_nodes(models::persistent_stragglers(s.stragglers, pool.size()), s.stragglers.persistent_speed, seed);
  return pool;
}

// One replay: the state the actors share (owned here, lent to each actor through its wiring), the
// actors, and the Engine's run.
class Replay {
public:
  Replay(const scenario::Scenario& s, std::uint64_t seed, const models::StepBreakdown& step, const JobShape& full,
         models::RecoveryPolicy& policy)
      : s_(s),
        seed_(seed),
        step_(step),
        policy_(policy),
        trace_(full.step_time),
        pool_(make_pool(s, seed)),
        shapes_{{full.dp, full}},
        full_(full),
        plan_(checkpoint_plan(s)),
        interval_(models::interval_spec(plan_, s.checkpoint, s.storage), models::checkpoint_cost(plan_, s.storage),
                  models::job_mtbf(s.causes, s.fleet).si()),
        history_(s.checkpoint.corrupt_probability, seed)
  {
    trace_.reserve(expected_records(s));
  }

  [[nodiscard]] const models::NodePool& pool() const { return pool_; }
  [[nodiscard]] const PolicyCounters& counters() const { return counters_; }
  [[nodiscard]] IntervalControl& interval() { return interval_; }
  [[nodiscard]] const CheckpointPlan& plan() const { return plan_; }
  [[nodiscard]] std::vector<StorageSample> take_storage_samples() { return std::move(storage_samples_); }

  void start_actors(const Platform& platform, const ProgressFn& progress);
  /// Runs the window; returns the trace (a broken invariant is rethrown here).
  models::TraceLog run(sg4::Engine& engine);

private:
  // Shapes at other widths (elastic) are computed once each, on first use.
  JobShape shape_for(int dp)
  {
    auto it = shapes_.find(dp);
    if (it == shapes_.end())
      it = shapes_.emplace(dp, job_shape(s_, step_, dp, policy_)).first;
    return it->second;
  }

  // An actor that finds a broken invariant cannot throw past SimGrid (it aborts the process): it
  // keeps the first violation, stops every actor, and the violation is rethrown once the run is over.
  template <class Body>
  void daemon(const Platform& platform, const std::string& name, Body body)
  {
    sg4::Actor::create(name, platform.control, [this, body = std::move(body)]() mutable {
      try {
        body();
      } catch (const models::InvariantViolation& e) {
        if (!violation_)
          violation_ = e;
        sg4::Actor::kill_all();
      }
    })->daemonize();
  }

  const scenario::Scenario& s_;
  std::uint64_t seed_;
  const models::StepBreakdown& step_;
  models::RecoveryPolicy& policy_;
  TraceRecorder trace_;
  models::NodePool pool_;
  std::map<int, JobShape> shapes_;
  JobShape full_;  // the job at its full width
  JobShape shape_;
  PolicyCounters counters_;
  Inbox<SchedulerMessage> scheduler_inbox_;
  Inbox<JobMessage> job_inbox_;
  Inbox<AlarmRequest> alarm_inbox_;
  std::vector<StorageSample> storage_samples_;
  CheckpointPlan plan_;
  IntervalControl interval_;
  CheckpointHistory history_;
  Inbox<LoaderMessage> loader_inbox_;
  DataDemand demand_;
  StorageQueue batches_;  // the data loader's reads
  StorageQueue writes_;   // the job's checkpoints
  StorageQueue reads_;    // its reloads
  std::optional<models::InvariantViolation> violation_;
};

void Replay::start_actors(const Platform& platform, const ProgressFn& progress)
{
  const double horizon = s_.duration.si();
  const double checkpoint_bytes = s_.checkpoint_bytes().si();
  // Each actor gets the few services it uses (run_context.hpp).
  const EventSourceWiring sources{s_, pool_, seed_, horizon, scheduler_inbox_};
  const bool loads = s_.data.bytes_per_token.si() > 0;
  const JobWiring job{trace_,     shape_,           plan_,
                      job_inbox_, scheduler_inbox_, writes_,
                      interval_,  history_,         loads ? &loader_inbox_ : nullptr,
                      &demand_};
  StorageSystem& storage = *platform.storage;
  const SchedulerWiring scheduler{s_,          trace_,           pool_,      counters_,    policy_, checkpoint_bytes,
                                  seed_,       scheduler_inbox_, job_inbox_, alarm_inbox_, reads_,  storage,
                                  plan_.files, interval_,        history_};
  daemon(platform, "job-scheduler", JobScheduler(scheduler, shape_, [this](int dp) { return shape_for(dp); }));
  daemon(platform, "training-job", TrainingJob(job));
  daemon(platform, "checkpoint-writer", StorageChannel(storage, 0, writes_));
  storage.record_into(&storage_samples_);
  if (s_.storage.burst_bandwidth.si() > 0)
    daemon(platform, "storage-bucket", StorageBucket(storage));
  if (loads) {
    const double bytes = s_.data.bytes_per_token.si() * full_.tokens_per_step;
    const LoaderWiring loader{
        storage, batches_, loader_inbox_,          job_inbox_,
        demand_, bytes,    s_.data.prefetch_steps, bytes / models::alone_read_rate(s_.storage, s_.fleet.gpus, s_.fleet.gpus_per_node) >= full_.step_time};
    daemon(platform, "data-reader", StorageChannel(storage, 0, batches_));
    daemon(platform, "data-loader", DataLoader(loader));
  }
  daemon(platform, "checkpoint-reader", StorageChannel(storage, 0, reads_));
  daemon(platform, "alarm-clock", AlarmClock(alarm_inbox_, scheduler_inbox_));
  daemon(platform, "slowdowns", SlowdownInjector(sources));
  daemon(platform, "maintenance-calendar", MaintenanceCalendar(sources));
  for (size_t i = 0; i < s_.causes.size(); ++i)
    daemon(platform, "failures-" + s_.causes[i].name, FailureInjector(sources, static_cast<int>(i)));
  if (test_fault() == "open_phase")
    daemon(platform, "test-fault", [this, horizon] {
      sg4::this_actor::sleep_until(horizon / 2);
      trace_.open(models::Phase::Waiting, now());  // while the job's phase is open
    });
  if (test_fault() == "repair_up_node")  // an internal check failing on an actor's stack
    daemon(platform, "test-fault", [this, horizon] {
      sg4::this_actor::sleep_until(horizon / 2);
      pool_.repaired(0);  // node 0 is not in repair: NodePool's FLEETSIM_CHECK ends the process
    });
  // The only non-daemon actor: when it returns at the end of the window, SimGrid stops every daemon
  // and the run ends, whatever the other actors are waiting for.
  sg4::Actor::create("horizon", platform.control, [horizon] { sg4::this_actor::sleep_until(horizon); });
  if (progress) {
    // A watcher that only sleeps and reports: it talks to no actor, so the run is the same with it.
    sg4::Actor::create("progress", platform.control, [horizon, &progress] {
      for (int k = 1; k <= 100; ++k) {
        sg4::this_actor::sleep_until(horizon * k / 100);
        progress(k / 100.0);
      }
    })->daemonize();
  }
}

models::TraceLog Replay::run(sg4::Engine& engine)
{
  engine.run();
  if (violation_)
    throw *violation_;
  trace_.finish(s_.duration.si());
  return trace_.take();
}

}  // namespace

RunResult run_simulation(const scenario::Scenario& given, std::uint64_t seed, const ResolvedStep& step,
                         const ProgressFn& progress)
{
  const scenario::Scenario s = with_fabric_write_rate(given, step);
  const auto wall0 = std::chrono::steady_clock::now();
  RunResult result;
  result.seed = seed;
  result.step = step.breakdown;
  result.step_from_cache = step.from_cache;
  result.step_seconds = step.seconds;
  result.checkpoint_write_s =
      models::checkpoint_write_time(s.checkpoint_bytes(), s.storage.write_bandwidth, s.checkpoint.write_overhead).si();
  const std::unique_ptr<models::RecoveryPolicy> policy = make_policy(s);
  const JobShape full = job_shape(s, result.step, s.step.layout.dp, *policy);
  // Synchronous steps wait for the slowest node: the replay runs at the expected step time.
  result.straggler_factor = full.straggler_factor;

  auto engine = make_engine();
  const Platform platform = build_platform(
      s, {{"job", (s.fleet.gpus + s.fleet.gpus_per_node - 1) / s.fleet.gpus_per_node}});
  Replay replay(s, seed, result.step, full, *policy);
  result.lemon_nodes = replay.pool().lemons();
  replay.start_actors(platform, progress);
  FLEETSIM_LOG(Run, info, "{} seed {}: replaying {:.1f} days at {:.4f} s per step", s.name, seed,
               s.duration.si() / 86400, full.step_time);
  try {
    result.log = replay.run(*engine);
    result.storage = replay.take_storage_samples();
    break_invariant_for_test(result.log);
    result.report = models::account(result.log, result.step.step_time.si(), s.step.workload.global_batch_tokens);
    result.energy = models::energy::account_energy(result.report, result.log, replay_power(s, result));
  } catch (models::InvariantViolation& e) {
    e.scenario = s.name;
    e.seed = seed;
    e.has_seed = true;
    throw;
  }
  result.counters = replay.counters();
  result.checkpoint_pause_s = models::checkpoint_cost(replay.plan(), s.storage);
  result.final_interval_s = replay.interval().interval(s.duration.si());
  result.estimated_mtbf_s = replay.interval().policy().estimated_mtbf_s();
  result.policy_reported = policy->reported(result.counters);
  result.nodes_retired = replay.pool().retired_total();
  result.lemons_retired = replay.pool().retired_lemons();
  result.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  FLEETSIM_LOG(Run, info, "window closed: ETTR {:.4f}, {} unexpected and {} planned interruptions, {} checkpoints",
               result.report.ettr, result.report.unexpected, result.report.planned, result.report.checkpoints);
  return result;
}

}  // namespace fleetsim::sim
