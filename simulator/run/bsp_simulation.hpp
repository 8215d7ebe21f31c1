#pragma once
// Bulk-synchronous steps on SimGrid: `workers` actors, one per node, each computing its share of a
// step and meeting the others at a barrier, so that every step lasts as long as its slowest worker.
// Persistent stragglers are slower hosts; a transient straggler runs one step at transient_speed
// (a worker that is both runs at the lower of the two speeds, as models/step/stragglers.hpp assumes).
// It validates the straggler model's step factor; like every simulation here it owns the process's
// Engine.

#include "models/step/stragglers.hpp"

#include <cstdint>

namespace fleetsim::sim {

struct BspResult {
  long steps = 0;
  double mean_step_s = 0;
  double slowed_fraction = 0;  // steps in which at least one worker was a transient straggler
  double wall_time_s = 0;
};

[[nodiscard]] BspResult run_bsp(const models::StragglerSpec& spec, int workers, long steps, double step_compute_s,
                                std::uint64_t seed);

}  // namespace fleetsim::sim
