#include "simulation.hpp"

#include "models/checkpoint/checkpoint_plan.hpp"
#include "models/core/invariant.hpp"
#include "simulator/actors/storage_bucket.hpp"
#include "simulator/logging/logging.hpp"
#include "simulator/platform/platform_builder.hpp"
#include "simulator/platform/storage_system.hpp"
#include "simulator/run/engine_setup.hpp"
#include "simulator/run/step_source.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string_view>

namespace fleetsim::sim {

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

// One replay: the job's runtime on the whole cluster, the storage's own actors and the window.
class Replay {
public:
  Replay(const scenario::Scenario& s, std::uint64_t seed, const models::StepBreakdown& step, const JobShape& full,
         models::RecoveryPolicy& policy)
      : s_(s), job_(s, seed, step, full, policy)
  {
  }

  [[nodiscard]] const JobRuntime& job() const { return job_; }
  [[nodiscard]] JobRuntime& job() { return job_; }
  [[nodiscard]] std::vector<StorageSample> take_storage_samples() { return std::move(storage_samples_); }

  void start_actors(const Platform& platform, const ProgressFn& progress);
  /// Runs the window; returns the trace (a broken invariant is rethrown here).
  models::TraceLog run(sg4::Engine& engine);

private:
  // An actor that finds a broken invariant cannot throw past SimGrid (it aborts the process): it
  // keeps the first violation, stops every actor, and the violation is rethrown once the run is over.
  void daemon(const Platform& platform, const std::string& name, std::function<void()> body)
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
  JobRuntime job_;
  std::vector<StorageSample> storage_samples_;
  std::optional<models::InvariantViolation> violation_;
};

void Replay::start_actors(const Platform& platform, const ProgressFn& progress)
{
  const double horizon = s_.duration.si();
  StorageSystem& storage = *platform.storage;
  storage.record_into(&storage_samples_);
  const auto spawn = [this, &platform](const std::string& name, std::function<void()> body) {
    daemon(platform, name, std::move(body));
  };
  job_.start(platform, spawn, [&] {
    if (s_.storage.burst_bandwidth.si() > 0)
      spawn("storage-bucket", StorageBucket(storage));
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
  return job_.finish(s_.duration.si());
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
  const std::unique_ptr<models::RecoveryPolicy> policy = make_recovery_policy(s);
  const JobShape full = job_shape(s, result.step, s.step.layout.dp, *policy);
  // Synchronous steps wait for the slowest node: the replay runs at the expected step time.
  result.straggler_factor = full.straggler_factor;

  auto engine = make_engine();
  const Platform platform = build_platform(
      s, {{"job", (s.fleet.gpus + s.fleet.gpus_per_node - 1) / s.fleet.gpus_per_node}});
  Replay replay(s, seed, result.step, full, *policy);
  result.lemon_nodes = replay.job().pool().lemons();
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
  result.counters = replay.job().counters();
  result.checkpoint_pause_s = models::checkpoint_cost(replay.job().plan(), s.storage);
  result.final_interval_s = replay.job().interval().interval(s.duration.si());
  result.estimated_mtbf_s = replay.job().interval().policy().estimated_mtbf_s();
  result.policy_reported = policy->reported(result.counters);
  result.nodes_retired = replay.job().pool().retired_total();
  result.lemons_retired = replay.job().pool().retired_lemons();
  result.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  FLEETSIM_LOG(Run, info, "window closed: ETTR {:.4f}, {} unexpected and {} planned interruptions, {} checkpoints",
               result.report.ettr, result.report.unexpected, result.report.planned, result.report.checkpoints);
  return result;
}

}  // namespace fleetsim::sim
