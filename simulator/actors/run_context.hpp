#pragma once
// What every run-level actor shares: the scenario, the trace, the derived durations and the
// mailboxes. Owned by the Simulation; actors hold a const reference.

#include "simulator/scenario/scenario.hpp"
#include "simulator/trace/trace_recorder.hpp"

#include <simgrid/s4u.hpp>

#include <cstdint>

namespace fleetsim::sim {

namespace sg4 = simgrid::s4u;
class Inbox;
class CoordinatorLink;

struct RunContext {
  const scenario::Scenario* scenario = nullptr;
  TraceRecorder* trace = nullptr;
  double step_time = 0;         // seconds per training step (from the step model)
  long steps_per_checkpoint = 1;
  double checkpoint_bytes = 0;  // whole-job checkpoint size
  double horizon = 0;           // end of the simulated window (s)
  std::uint64_t seed = 0;
  sg4::Disk* storage = nullptr; // the checkpoint store (bandwidth is a SimGrid resource)
  Inbox* scheduler = nullptr;
  Inbox* job = nullptr;
  CoordinatorLink* coordinator = nullptr;

  [[nodiscard]] static double now() { return sg4::Engine::get_clock(); }
};

}  // namespace fleetsim::sim
