#include "run.hpp"

#include "models/core/check.hpp"
#include "simulator/metrics/metric_registry.hpp"

namespace fleetsim::sim {

Prepared prepare(const scenario::Scenario& s)
{
  Prepared p;
  if (!s.is_fleet())
    p.step = resolve_step(s);
  return p;
}

Outcome run(const scenario::Scenario& s, std::uint64_t seed, const Prepared& prepared, const ProgressFn& progress)
{
  if (s.is_fleet())
    return Outcome(run_fleet(s, seed));
  FLEETSIM_CHECK(prepared.step.has_value(), "a single job's run is prepared with its step");
  return Outcome(run_simulation(s, seed, *prepared.step, progress));
}

Outcome run(const scenario::Scenario& s, std::uint64_t seed) { return run(s, seed, prepare(s)); }

const Presentation& presentation(const scenario::Scenario& s)
{
  static const Presentation job{"",
                                metrics::compare_defaults(),
                                metrics::sweep_defaults(),
                                {{"ettr", "ETTR", 7, 4},
                                 {"goodput_ratio", "goodput", 7, 4},
                                 {"unexpected_interruptions", "unexp", 6, 1},
                                 {"detection_h", "detect", 7, 1, "hours:"},
                                 {"restart_h", "restart", 7, 1},
                                 {"reload_h", "reload", 7, 1},
                                 {"warmup_h", "warmup", 7, 1},
                                 {"waiting_h", "waiting", 7, 1},
                                 {"lost_work_h", "lost", 7, 1},
                                 {"checkpoint_h", "ckpt", 7, 1}}};
  static const Presentation fleet{"a fleet, ",
                                  metrics::fleet_compare_defaults(),
                                  metrics::fleet_sweep_defaults(),
                                  {{"allocated_utilisation", "alloc", 7, 4},
                                   {"productive_utilisation", "prod", 7, 4},
                                   {"wait_mean_h", "mean", 7, 2, "wait h:"},
                                   {"wait_p99_h", "p99", 7, 2},
                                   {"wait_p99_h_513plus", "p99 513+", 8, 2},
                                   {"lost_gpu_h", "lost GPUh", 9, 0, ""},
                                   {"job_interruptions", "intr", 6, 1}}};
  return s.is_fleet() ? fleet : job;
}

std::optional<models::fleet::Workload> fleet_jobs(const scenario::Scenario& s, std::uint64_t seed)
{
  if (!s.is_fleet())
    return std::nullopt;
  return fleet_workload(s, seed);
}

}  // namespace fleetsim::sim
