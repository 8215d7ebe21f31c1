#pragma once
// Failure taxonomy and rates. Each cause of unexpected interruption is an independent Poisson
// process over the whole fleet. Its rate is given in one of two forms:
//   - a count of interruptions observed over a reference window at a reference fleet size
//     (Llama 3: 148 "Faulty GPU" interruptions in 54 days on 16,384 GPUs), which scales linearly
//     with the number of GPUs unless the cause is fleet-independent;
//   - a mean time between failures per component (per GPU, node, rack or job), multiplied by the
//     number of such components in the fleet.
// The scope says which failure domain a failure takes down; any failure stops a synchronous job.

#include "failure_scope.hpp"
#include "models/core/units.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim::models {

/// Number of components of a scope in the fleet (GPUs, nodes, node links, racks, pods rounded up; 1 job).
[[nodiscard]] inline long component_count(Scope scope, const FleetShape& fleet)
{
  return scope.model().component_count(fleet);
}

/// The GPUs a failure of component `index` of a scope takes down (its blast radius): the GPU, the
/// node's GPUs (also for its link: a node cut off the fabric), every GPU behind the rack's
/// top-of-rack switch, every GPU of a pod (its aggregation switches), or the whole job (a software
/// failure, or a storage outage: the job's I/O fails and it cannot reload until storage is back).
[[nodiscard]] inline GpuRange blast_radius(Scope scope, long index, const FleetShape& fleet)
{
  return scope.model().blast_radius(index, fleet);
}

struct FailureCause {
  std::string name;
  std::string category;  // GPU, Host, Network, Dependency, ... (reporting only)
  Scope scope = Scope::Gpu;
  // Form 1: count over a reference window at a reference fleet size.
  std::optional<double> count;
  units::Seconds reference_window{0};
  long reference_gpus = 0;
  bool scales_with_fleet = true;
  // Form 2: mean time between failures of one component of `scope`.
  std::optional<units::Seconds> component_mtbf;
  // Detection delay for this cause; the scenario's default when absent.
  std::optional<units::Seconds> detection;
  // The failure hangs the job instead of crashing it: only the collective watchdog's timeout sees it
  // (the default detection of link failures).
  bool hang = false;
  // Mean repair time of the nodes this cause takes down; the scenario's default when absent.
  std::optional<units::Seconds> repair;
};

/// Failures per second over the whole fleet.
[[nodiscard]] double fleet_rate_per_second(const FailureCause& cause, const FleetShape& fleet);

/// Expected number of failures of the cause in `window`.
[[nodiscard]] double expected_count(const FailureCause& cause, const FleetShape& fleet, units::Seconds window);

/// Mean time between failures of the whole job (all causes superposed); +inf with no causes.
[[nodiscard]] units::Seconds job_mtbf(const std::vector<FailureCause>& causes, const FleetShape& fleet);

}  // namespace fleetsim::models
