#pragma once
// A fleet run: many jobs on one cluster (docs/models/fleet.md). The jobs, the queue, the cluster and
// the accounting are models::fleet::FleetState (SimGrid-free); the event sources -- the arrivals,
// one failure injector per cause (the single-job replay's) -- and the fleet scheduler, which
// receives them and sleeps until the next job or repair timer, are processes on the run's process
// host (simulator/actors/process.hpp), beside the replayed jobs' processes.
// SimGrid allows one simulation per process: call run_fleet() once per process.

#include "models/fleet/fleet_energy.hpp"
#include "models/fleet/fleet_state.hpp"
#include "simulator/platform/fleet_fabric.hpp"
#include "simulator/platform/storage_system.hpp"
#include "simulator/run/simulation.hpp"
#include "simulator/scenario/scenario.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace fleetsim::sim {

/// A replayed job's own result (JobSpec::replayed): what a replay of it gives, in its scenario.
struct ReplayedResult {
  long job = 0;  // its index in FleetResult::jobs
  scenario::Scenario s;
  RunResult result;
};

struct FleetResult {
  std::uint64_t seed = 0;
  double horizon = 0;
  long gpus = 0;
  long nodes = 0;
  models::fleet::Workload specs;               // in submit order
  std::vector<models::fleet::JobRecord> jobs;  // same order
  models::fleet::GpuTime total;
  std::vector<std::string> loss_causes;  // names, by models::fleet::LossCause
  size_t failure_causes = 0;             // of which failure causes, from kFirstFailureCause (the rest: a
                                         // replayed job's other causes, kReplayedLossCauses)
  models::fleet::FleetTimeline timeline{1, 1};
  long rejected = 0;  // jobs larger than the schedulable cluster, left out
  long failures = 0;  // that struck the cluster (an up node, a GPU, the storage)
  long interruptions = 0;
  long failures_on_idle = 0;
  long preemptions = 0;
  long requeues = 0;
  long in_place_recoveries = 0;
  long repairs = 0;
  std::vector<StorageSample> storage;                // the storage's load over time (jobs with a checkpoint_size)
  std::vector<FabricUse> fabric;                     // network.fleet_fabric: shared: its use by level
  models::fleet::FleetEnergy energy;                 // power, energy and carbon by timeline row
  std::vector<models::fleet::JobEnergy> job_energy;  // by job, in `jobs` order
  std::vector<ReplayedResult> replayed;              // the replayed jobs', in `jobs` order
  double wall_time_s = 0;
};

/// The scenario's jobs in submit order: the declared ones (copies expanded, GPUs and token targets
/// resolved with the scenario's step model when a job needs it).
[[nodiscard]] models::fleet::Workload fleet_workload(const scenario::Scenario& s, std::uint64_t seed);

/// What the fleet's energy accounting reads of the scenario (the carbon profile is s's: keep s alive).
[[nodiscard]] models::fleet::FleetEnergyInputs fleet_energy_inputs(const scenario::Scenario& s);

/// The storage's mean rate written and read (bytes/s) over each timeline row; empty without samples.
[[nodiscard]] std::vector<double> storage_rate_by_row(const std::vector<StorageSample>& samples,
                                                      const models::fleet::FleetTimeline& timeline);

/// Runs the fleet. Must be called at most once per process.
[[nodiscard]] FleetResult run_fleet(const scenario::Scenario& s, std::uint64_t seed);

}  // namespace fleetsim::sim
