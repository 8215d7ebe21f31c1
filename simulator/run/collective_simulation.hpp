#pragma once
// Times one collective on a simulated fabric. Like run_simulation, it owns the process's only
// SimGrid Engine: call it once per process.

#include "models/network/collective_plan.hpp"
#include "simulator/platform/fabric_builder.hpp"

namespace fleetsim::sim {

struct CollectiveTiming {
  double time_s = 0;                 // simulated time of the whole collective
  std::vector<double> step_seconds;  // one repetition of each plan step
  long steps_simulated = 0;          // step executions actually simulated
  int pods = 1;                      // pods of the fabric the ranks occupied
  std::string fabric;                // describe_fabric()
  double wall_time_s = 0;
};

/// full = true runs every repetition of every step; false runs each distinct step once and
/// multiplies by its repetitions.
[[nodiscard]] CollectiveTiming run_collective(const models::CollectivePlan& plan, const FabricSpec& fabric, bool full);

}  // namespace fleetsim::sim
