#pragma once
// The single-job replay. run_simulation() configures the Engine, builds the platform, starts the
// job's runtime (job_runtime.hpp) and the storage's actors, runs the window and returns the typed
// trace and its accounting. SimGrid allows
// one simulation per process: call it once per process (tests fork, sweeps spawn processes).

#include "models/energy/energy_account.hpp"
#include "models/accounting/goodput.hpp"
#include "models/step/step_model.hpp"
#include "simulator/actors/run_context.hpp"
#include "simulator/platform/storage_system.hpp"
#include "simulator/run/job_runtime.hpp"
#include "simulator/run/step_source.hpp"
#include "simulator/scenario/scenario.hpp"

#include <cstdint>
#include <functional>
#include <memory>

namespace fleetsim::sim {

struct RunResult {
  std::uint64_t seed = 0;
  models::StepBreakdown step;   // the uniform fleet's step
  double straggler_factor = 1;  // expected step time with stragglers over step.step_time
  models::TraceLog log;
  std::vector<StorageSample> storage;  // the storage's load over time (storage_system.hpp)
  models::GoodputReport report;
  models::energy::EnergyReport energy;  // power of every timeline row, energy, swings
  double checkpoint_write_s = 0;        // uncontended write time of one checkpoint (delta)
  double checkpoint_pause_s = 0;        // training pause of one checkpoint (async: the snapshot alone)
  double interval_s = 0;                // the last interval the job checkpointed by
  double first_interval_s = 0;          // ... and at the start (they differ only for adaptive)
  double estimated_mtbf_s = 0;          // the interval policy's MTBF then (adaptive: its estimate)
  double wall_time_s = 0;               // the replay's own run time (after the step time is known)
  PolicyCounters counters;              // what the recovery policy did
  std::vector<std::pair<std::string, long>> policy_reported;  // the counters the policy reports
  long nodes_retired = 0;                                     // lemon retirement
  long lemons_retired = 0;                                    // of those, lemons
  long lemon_nodes = 0;                                       // lemons drawn at the start
  bool step_from_cache = false;                               // simulated step read from the cache
  double step_seconds = 0;  // wall time spent obtaining the step (simulation or cache read)
};


/// Runs one replica: resolves the step time (step_source.hpp), then replays the window. Must be
/// called at most once per process.
[[nodiscard]] RunResult run_simulation(const scenario::Scenario& s, std::uint64_t seed);

/// Runs one replica with a step resolved beforehand (a sweep resolves each point's step once, in
/// the parent, before it forks the replicas). Must be called at most once per process.
/// Called with the fraction of the window simulated so far (1/100 steps) while a run goes on.
using ProgressFn = std::function<void(double fraction)>;

[[nodiscard]] RunResult run_simulation(const scenario::Scenario& s, std::uint64_t seed, const ResolvedStep& step,
                                       const ProgressFn& progress = {});

}  // namespace fleetsim::sim
