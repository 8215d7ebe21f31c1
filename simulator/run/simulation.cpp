#include "simulation.hpp"

#include "simulator/actors/checkpoint_coordinator.hpp"
#include "simulator/actors/failure_injector.hpp"
#include "simulator/actors/job_scheduler.hpp"
#include "simulator/actors/training_job.hpp"
#include "simulator/platform/platform_builder.hpp"
#include "models/run_plan.hpp"
#include "simulator/run/engine_setup.hpp"
#include "simulator/run/step_source.hpp"

#include <simgrid/s4u.hpp>

#include <cassert>
#include <chrono>

namespace fleetsim::sim {

RunResult run_simulation(const scenario::Scenario& given, std::uint64_t seed)
{
  const ResolvedStep step = resolve_step(given);  // before the Engine: a simulated step forks
  // A simulated step also timed the checkpoint write over the fabric. If the fabric, not the
  // storage service, limits it, the storage runs at the rate the fabric delivers.
  scenario::Scenario s = given;
  const double bytes = s.checkpoint_bytes().si();
  // (The fabric time includes one route latency, microseconds: only a real excess counts.)
  if (step.checkpoint_write_s > 0 && bytes > 0 &&
      step.checkpoint_write_s > bytes / s.storage.write_bandwidth.si() * (1 + 1e-3))
    s.storage.write_bandwidth = units::BytesPerSecond(bytes / step.checkpoint_write_s);
  const auto wall0 = std::chrono::steady_clock::now();
  RunResult result;
  result.seed = seed;
  result.step = step.breakdown;
  result.step_from_cache = step.from_cache;
  result.step_seconds = step.seconds;
  // Synchronous steps wait for the slowest node: the replay runs at the expected step time.
  result.straggler_factor = models::expected_step_factor(s.stragglers, s.fleet.gpus / s.fleet.gpus_per_node,
                                                         result.step.compute_fraction);
  const double step_time = result.step.step_time.si() * result.straggler_factor;
  result.checkpoint_write_s =
      models::checkpoint_write_time(s.checkpoint_bytes(), s.storage.write_bandwidth, s.checkpoint.write_overhead).si();

  auto engine = make_engine();
  Platform platform = build_platform(s);
  TraceRecorder trace(step_time);
  RunContext ctx;
  ctx.scenario = &s;
  ctx.trace = &trace;
  ctx.step_time = step_time;
  ctx.steps_per_checkpoint = models::steps_per_checkpoint(s.checkpoint.interval, units::Seconds(step_time));
  ctx.checkpoint_bytes = s.checkpoint_bytes().si();
  ctx.horizon = s.duration.si();
  ctx.seed = seed;
  ctx.storage = platform.checkpoint_store;
  Inbox scheduler_inbox;
  Inbox job_inbox;
  CoordinatorLink coordinator_link;
  ctx.scheduler = &scheduler_inbox;
  ctx.job = &job_inbox;
  ctx.coordinator = &coordinator_link;

  sg4::Actor::create("job-scheduler", platform.control, JobScheduler(ctx))->daemonize();
  sg4::Actor::create("training-job", platform.control, TrainingJob(ctx))->daemonize();
  sg4::Actor::create("checkpoint-coordinator", platform.control, CheckpointCoordinator(ctx))->daemonize();
  sg4::Actor::create("maintenance-calendar", platform.control, MaintenanceCalendar(ctx))->daemonize();
  for (size_t i = 0; i < s.causes.size(); ++i)
    sg4::Actor::create("failures-" + s.causes[i].name, platform.control,
                       FailureInjector(ctx, static_cast<int>(i)))->daemonize();

  // The only non-daemon actor: when it returns at the end of the window, SimGrid stops every daemon
  // and the run ends, whatever the other actors are waiting for.
  const double horizon = ctx.horizon;
  sg4::Actor::create("horizon", platform.control, [horizon] { sg4::this_actor::sleep_until(horizon); });
  engine->run();
  trace.finish(ctx.horizon);
  result.log = trace.take();
  result.report = models::account(result.log, step_time, s.step.workload.global_batch_tokens);
  result.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return result;
}

}  // namespace fleetsim::sim
