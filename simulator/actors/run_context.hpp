#pragma once
// What each of a job's processes is given (process.hpp): not one shared context, but the few
// services it uses, one struct per kind of process (its "wiring"), built by the JobRuntime
// (simulator/run/job_runtime.cpp), which owns everything they point to.

#include "message.hpp"

#include "models/resilience/node_pool.hpp"
#include "models/resilience/recovery_policy.hpp"
#include "simulator/scenario/scenario.hpp"
#include "simulator/trace/trace_recorder.hpp"

#include <simgrid/s4u.hpp>

#include <cstdint>
#include <functional>

namespace fleetsim::sim {

namespace sg4 = simgrid::s4u;
class NodeKeeper;
class StorageQueue;
class StorageSystem;
class IntervalControl;
class CheckpointHistory;
using models::PolicyCounters;  // models/resilience/recovery_policy.hpp

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
  long steps_per_snapshot = 0;  // in_memory: whole steps between host-memory snapshots (0: none)
};

/// The simulated clock.
[[nodiscard]] inline double now() { return sg4::Engine::get_clock(); }

/// Failure injectors, the slowdown injector and the maintenance calendar: what they draw from and
/// whom they tell.
struct EventSourceWiring {
  const scenario::Scenario& scenario;
  const models::NodePool& pool;  // read only: thinning, sizes
  std::uint64_t seed;
  double horizon;  // end of the simulated window (s)
  Inbox<SchedulerMessage>& scheduler;
  /// Where failures go instead of `scheduler` (the fleet's scheduler has an inbox of its own).
  std::function<void(msg::Failure)> failures = nullptr;
};

/// Whether the job trains, as its data loader sees it. The job keeps it up to date; it also tells a
/// loader that follows training step by step (a message wakes it), and only then: a quiet loader
/// reads it when it starts following, so time still jumps while the storage is idle.
struct DataDemand {
  bool on = false;
  long epoch = 0;
  double step_time = 0;
  bool following = false;  // the loader's
};

using models::CheckpointPlan;  // models/checkpoint/checkpoint_plan.hpp

/// The training job.
struct JobWiring {
  TraceRecorder& trace;
  const JobShape& shape;  // the job's current shape (the scheduler changes it)
  const CheckpointPlan& plan;
  Inbox<JobMessage>& inbox;
  Inbox<SchedulerMessage>& scheduler;
  StorageQueue& storage;  // the job's checkpoint writes
  IntervalControl& interval;
  CheckpointHistory& history;
  Inbox<LoaderMessage>* loader = nullptr;  // its data loader (nullptr: data loading not modelled)
  DataDemand* demand = nullptr;
  long target_step = 0;  // the step that reaches the job's token target (0: none, it trains on)
  bool checkpoint_at_target = true;  // it checkpoints the stretch that reaches it before it ends
};

/// The job scheduler: the fleet's state, the policy, the trace, and every other actor's inbox.
struct SchedulerWiring {
  const scenario::Scenario& scenario;
  TraceRecorder& trace;
  models::NodePool& pool;
  long pool_job;  // the job's slot table in `pool`
  PolicyCounters& counters;
  models::RecoveryPolicy& policy;  // the scenario's recovery.policy (models/resilience/recovery/)
  double checkpoint_bytes;
  std::uint64_t seed;
  Inbox<SchedulerMessage>& inbox;
  Inbox<JobMessage>& job;
  Inbox<AlarmRequest>& alarms;    // AlarmClock: delivers a message to the scheduler after its delay
  NodeKeeper& nodes;              // the run's failures and repairs of nodes (node_keeper.hpp)
  StorageQueue& storage;          // the job's reloads
  StorageSystem& storage_system;  // its outages
  double checkpoint_files;
  IntervalControl& interval;   // told of each failure that strikes the job
  CheckpointHistory& history;  // a reload falls back past corrupt checkpoints
  // Called when the job has reached its token target and its scheduler ends (nullptr: none).
  const std::function<void()>* finished = nullptr;
  // Called when a requeued job has given its nodes back (the requeue policy): its host queues it and
  // posts msg::Placed once it holds nodes again. nullptr or empty: no queue (the replay's cluster is
  // the job's own), the job waits until idle nodes can hold it.
  const std::function<void()>* requeue = nullptr;
};

}  // namespace fleetsim::sim
