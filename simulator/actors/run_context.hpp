#pragma once
// What every run-level actor shares: the scenario, the trace, the derived durations and the
// mailboxes. Owned by the Simulation; actors hold a const reference.

#include "models/node_pool.hpp"
#include "models/recovery_policy.hpp"
#include "simulator/scenario/scenario.hpp"
#include "simulator/trace/trace_recorder.hpp"

#include <simgrid/s4u.hpp>

#include <cstdint>

namespace fleetsim::sim {

namespace sg4 = simgrid::s4u;
class Inbox;
class CoordinatorLink;

/// The job at a given data-parallel width (the full layout, or fewer replicas after an elastic shrink).
struct JobShape {
  int dp = 1;
  long gpus = 0;                 // GPUs the job uses
  double step_time = 0;          // seconds per step, stragglers included
  double straggler_factor = 1;   // step_time over the same job's uniform step time
  double uniform_step_time = 0;  // without stragglers
  double compute_fraction = 0;   // of the uniform step (only compute stretches on a slow node)
  double tokens_per_step = 0;
  long steps_per_checkpoint = 1;
  long steps_per_snapshot = 0;   // in_memory: whole steps between host-memory snapshots (0: none)
};

using models::PolicyCounters;  // models/recovery_policy.hpp

struct RunContext {
  const scenario::Scenario* scenario = nullptr;
  TraceRecorder* trace = nullptr;
  const JobShape* shape = nullptr;  // the job's current shape (the scheduler changes it)
  models::NodePool* pool = nullptr;
  PolicyCounters* counters = nullptr;
  double checkpoint_bytes = 0;  // whole-job checkpoint size
  double horizon = 0;           // end of the simulated window (s)
  std::uint64_t seed = 0;
  sg4::Disk* storage = nullptr; // the checkpoint store (bandwidth is a SimGrid resource)
  Inbox* scheduler = nullptr;
  Inbox* job = nullptr;
  Inbox* alarms = nullptr;       // AlarmClock: delivers a message to the scheduler after its delay
  CoordinatorLink* coordinator = nullptr;
  models::RecoveryPolicy* policy = nullptr;  // the scenario's recovery.policy (models/recovery/)

  [[nodiscard]] static double now() { return sg4::Engine::get_clock(); }
};

}  // namespace fleetsim::sim
