#include "simulation.hpp"

#include "models/core/invariant.hpp"
#include "simulator/actors/storage_bucket.hpp"
#include "simulator/logging/logging.hpp"
#include "simulator/platform/platform_builder.hpp"
#include "simulator/platform/storage_system.hpp"
#include "simulator/run/engine_setup.hpp"
#include "simulator/run/replayed_job.hpp"
#include "simulator/run/step_source.hpp"

#include <simgrid/s4u.hpp>

#include <chrono>
#include <optional>

namespace fleetsim::sim {

RunResult run_simulation(const scenario::Scenario& given, std::uint64_t seed)
{
  return run_simulation(given, seed, resolve_step(given));  // before the Engine: a simulated step forks
}

namespace {

// One replay: the replayed job on the whole cluster, the storage's own actors and the window.
class Replay {
public:
  Replay(const scenario::Scenario& s, std::uint64_t seed, const ResolvedStep& step) : seed_(seed), job_(s, seed, step)
  {
  }

  [[nodiscard]] ReplayedJob& job() { return job_; }

  void start_actors(const Platform& platform, const ProgressFn& progress);
  /// Runs the window; returns the job's result (a broken invariant is rethrown here).
  RunResult run(sg4::Engine& engine);

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

  std::uint64_t seed_;
  ReplayedJob job_;
  ProcessHost host_;  // after the job: its processes' frames go first
  std::optional<models::InvariantViolation> violation_;
};

void Replay::start_actors(const Platform& platform, const ProgressFn& progress)
{
  const scenario::Scenario& s = job_.scenario();
  const double horizon = s.duration.si();
  StorageSystem& storage = *platform.storage;
  const auto spawn = [this, &platform](const std::string& name, std::function<void()> body) {
    daemon(platform, name, std::move(body));
  };
  // The job's processes run on one actor (process.hpp), created where its first actor, the job's
  // scheduler, was: SimGrid runs the actors ready at one instant in creation order.
  spawn("processes", [this] { host_.run(); });
  job_.start(platform, 0, spawn, host_, [&] {
    if (s.storage.burst_bandwidth.si() > 0)
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

RunResult Replay::run(sg4::Engine& engine)
{
  engine.run();
  if (violation_) {
    models::InvariantViolation e = *violation_;
    e.scenario = job_.scenario().name;
    e.seed = seed_;
    e.has_seed = true;
    throw e;
  }
  return job_.finish();
}

}  // namespace

RunResult run_simulation(const scenario::Scenario& s, std::uint64_t seed, const ResolvedStep& step,
                         const ProgressFn& progress)
{
  const auto wall0 = std::chrono::steady_clock::now();
  auto engine = make_engine();
  const Platform platform = build_platform(
      s, {{"job", (s.fleet.gpus + s.fleet.gpus_per_node - 1) / s.fleet.gpus_per_node}});
  Replay replay(s, seed, step);
  replay.start_actors(platform, progress);
  FLEETSIM_LOG(Run, info, "{} seed {}: replaying {:.1f} days at {:.4f} s per step", s.name, seed,
               s.duration.si() / 86400, replay.job().step_time());
  RunResult result = replay.run(*engine);
  result.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  FLEETSIM_LOG(Run, info, "window closed: ETTR {:.4f}, {} unexpected and {} planned interruptions, {} checkpoints",
               result.report.ettr, result.report.unexpected, result.report.planned, result.report.checkpoints);
  return result;
}

}  // namespace fleetsim::sim
