#include "replayed_job.hpp"

#include "models/checkpoint/checkpoint_plan.hpp"
#include "models/core/invariant.hpp"
#include "simulator/actors/failure_injector.hpp"
#include "simulator/run/engine_setup.hpp"

#include <chrono>
#include <utility>

namespace fleetsim::sim {

namespace {

// A simulated step also timed the checkpoint write over the fabric. If the fabric, not the storage
// service, limits it, the storage runs at the rate the fabric delivers.
scenario::Scenario with_fabric_write_rate(scenario::Scenario s, const ResolvedStep& step)
{
  const double bytes = s.checkpoint_bytes().si();
  // (The fabric time includes one route latency, microseconds: only a real excess counts.)
  if (step.checkpoint_write_s > 0 && bytes > 0 &&
      step.checkpoint_write_s > bytes / s.storage.write_bandwidth.si() * (1 + 1e-3))
    s.storage.write_bandwidth = units::BytesPerSecond(bytes / step.checkpoint_write_s);
  return s;
}

// The replay's power inputs: the cluster (spare nodes included), the step's compute and traffic,
// and the storage's load over time. A job that shares a fleet's spare nodes and storage with other
// replayed jobs (`alone` false) leaves their draw to the fleet's account: the spare nodes' idle
// draw and the storage servers' fixed draw, which each job's account would count again.
models::energy::ReplayPower replay_power(const scenario::Scenario& s, const RunResult& r, bool alone)
{
  models::energy::ReplayPower in;
  in.spec = s.power;
  in.gpus_per_node = s.fleet.gpus_per_node;
  in.job_gpus = s.fleet.gpus;
  in.cluster_gpus = s.fleet.gpus + (alone ? s.capacity.spare_nodes * s.fleet.gpus_per_node : 0);
  if (!alone)
    in.spec.storage_w = 0;  // (its energy per byte stays: its own record's bytes)
  in.compute_s = r.step.compute.si();
  in.step_time = r.step.step_time.si();
  in.traffic = models::energy::step_traffic(s.step, r.step.micro_batches);
  in.grid = &s.carbon.profile;
  in.storage.reserve(r.storage.size());
  for (const StorageSample& x : r.storage)
    in.storage.push_back({x.t, x.write_bps + x.read_bps});
  return in;
}

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

scenario::Scenario replayed_job_scenario(const scenario::Scenario& fleet, const models::fleet::JobSpec& j)
{
  scenario::Scenario s = fleet;
  s.workload = {};
  s.fleet.gpus = j.gpus;
  s.token_target = j.tokens;
  s.stop_at_target = j.tokens > 0;
  return s;
}

scenario::Scenario work_job_scenario(const scenario::Scenario& fleet, const models::fleet::JobSpec& j)
{
  scenario::Scenario s = fleet;
  s.workload = {};
  s.fleet.gpus = j.gpus;
  s.token_target = j.work;  // a step trains one token: a second of work
  s.stop_at_target = true;
  s.checkpoint_at_target = false;
  s.step_model = "analytic";
  s.step.layout = models::ParallelLayout{};
  s.step.layout.dp = static_cast<int>(j.gpus);
  s.step.workload.global_batch_tokens = 1;
  auto& c = s.checkpoint;
  c = {};
  c.interval = units::Seconds(j.checkpoint_interval > 0 ? j.checkpoint_interval : 4 * fleet.duration.si() + 1);
  // With bytes, a checkpoint takes as long as its write (checkpoint_cost is the scheduler's estimate, as
  // for the closed-form job); without, it stalls checkpoint_cost.
  c.write_overhead = units::Seconds(j.checkpoint_bytes > 0 ? 0.0 : j.checkpoint_cost);
  c.state_per_gpu = units::Bytes(j.checkpoint_bytes / static_cast<double>(j.gpus));
  c.files = j.checkpoint_bytes > 0 ? fleet.checkpoint.files : models::CheckpointFiles::Consolidated;
  s.recovery.restart = units::Seconds(j.restart_cost);
  s.recovery.startup = units::Seconds(j.restart_cost);
  s.recovery.warmup = units::Seconds(0);
  s.recovery.policy_name = j.recovery == models::fleet::JobRecovery::InPlace ? "restart" : "requeue";
  s.data = {};
  s.heterogeneous = {};  // (the fleet's generations are its nodes'; a work job's speed is its work's)
  s.planned = {};
  return s;
}

ResolvedStep work_step()
{
  ResolvedStep r;
  models::StepBreakdown& b = r.breakdown;
  b.model = "work";
  b.step_time = units::Seconds(1);
  b.compute = units::Seconds(1);
  b.tokens_per_step = 1;
  b.compute_fraction = 1;
  b.binding_term = "compute";
  return r;
}

ReplayedJob::ReplayedJob(scenario::Scenario s, std::uint64_t seed, const ResolvedStep& step)
    : s_(with_fabric_write_rate(std::move(s), step)),
      seed_(seed),
      own_pool_(std::make_unique<models::NodePool>(make_node_pool(s_, seed))),
      own_nodes_(std::make_unique<NodeKeeper>(s_, *own_pool_, seed)),
      pool_(*own_pool_),
      nodes_(*own_nodes_)
{
  prepare(step, 0);
}

ReplayedJob::ReplayedJob(scenario::Scenario s, std::uint64_t seed, const ResolvedStep& step, models::NodePool& pool,
                         NodeKeeper& nodes, long pool_job)
    : s_(with_fabric_write_rate(std::move(s), step)), seed_(seed), pool_(pool), nodes_(nodes)
{
  prepare(step, pool_job);
}

void ReplayedJob::prepare(const ResolvedStep& step, long pool_job)
{
  result_.seed = seed_;
  result_.step = step.breakdown;
  result_.step_from_cache = step.from_cache;
  result_.step_seconds = step.seconds;
  result_.checkpoint_write_s = models::checkpoint_write_time(s_.checkpoint_bytes(), s_.storage.write_bandwidth,
                                                             s_.checkpoint.write_overhead)
                                   .si();
  policy_ = make_recovery_policy(s_);
  const JobShape full = job_shape(s_, result_.step, s_.step.layout.dp, *policy_);
  // Synchronous steps wait for the slowest node: the replay runs at the expected step time.
  result_.straggler_factor = full.straggler_factor;
  step_time_ = full.step_time;
  job_.emplace(s_, seed_, result_.step, full, *policy_, pool_, pool_job, nodes_);
  result_.lemon_nodes = pool_.lemons();
}

void ReplayedJob::on_finished(std::function<void()> f)
{
  job_->on_finished([this, f = std::move(f)] {
    end_t_ = sg4::Engine::get_clock();
    if (f)
      f();
  });
}

void ReplayedJob::start(const Platform& platform, int client, const JobRuntime::Spawn& spawn, ProcessHost& host,
                        const std::function<void()>& after_checkpoint_writer, long group)
{
  start_t_ = sg4::Engine::get_clock();
  storage_ = platform.storage.get();
  client_ = client;
  storage_->record_client(client, &storage_record_);
  if (own_nodes_) {
    // The replay is its own run: it keeps its nodes and draws the failures that strike them.
    host.spawn("node-keeper", [this] { return nodes_(); });
    nodes_.set_spare_owner(0);  // its spares are its reserve
  }
  job_->start(platform, client, spawn, host, after_checkpoint_writer, group);
  if (own_nodes_)
    spawn_node_failures(EventSourceWiring{s_, pool_, seed_, s_.duration.si(), job_->scheduler_inbox()}, nodes_, host);
}

RunResult ReplayedJob::finish()
{
  RunResult result = std::move(result_);
  try {
    result.log = job_->finish(end_time());
    storage_->stop_recording(client_);
    result.storage = std::move(storage_record_);
    break_invariant_for_test(result.log);
    result.report = models::account(result.log, result.step.step_time.si(), s_.step.workload.global_batch_tokens,
                                    start_t_);
    result.energy = models::energy::account_energy(result.report, result.log, replay_power(s_, result, alone_));
  } catch (models::InvariantViolation& e) {
    e.scenario = s_.name;
    e.seed = seed_;
    e.has_seed = true;
    throw;
  }
  const JobRuntime& job = *job_;
  result.counters = job.counters();
  result.checkpoint_pause_s = models::checkpoint_cost(job.plan(), s_.storage);
  result.interval_s = job_->interval().last_interval_s();
  result.first_interval_s = job_->interval().first_interval_s();
  job_->interval().expose_until(end_time());  // the MTBF estimate at the job's end
  result.estimated_mtbf_s = job_->interval().policy().estimated_mtbf_s();
  result.policy_reported = policy_->reported(result.counters);
  result.nodes_retired = pool_.retired_total();
  result.lemons_retired = pool_.retired_lemons();
  return result;
}

}  // namespace fleetsim::sim
