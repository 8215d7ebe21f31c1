#pragma once
// Drives the job's life: starts it, reacts to failures and planned interruptions, and runs the
// recovery sequence of the scenario's policy:
//
//   detection -> [waiting for nodes] -> restart | spare swap -> reload (storage | host memory) -> warm-up
//
// It owns the node pool (models/resilience/node_pool.hpp): a failure takes its nodes to the repair pipeline;
// it interrupts the job only if it strikes a node holding one of the job's slots (or is a job-scope
// cause). A failure during a recovery phase that strikes the job restarts recovery from detection.
// A planned interruption that falls while the job is down waits until the job is training again.
//
// What differs between recovery policies (restart, hot_spare, elastic, in_memory, or one registered
// from outside) is asked of the policy (models/resilience/recovery_policy.hpp): how many replicas to restart on,
// how long the restart phase lasts, whether to restore from host memory, when to grow back.
//
// The scheduler's work is in four units:
//   job_scheduler.cpp      the main loop: starting and stopping the job, failures, the pool, repairs
//   recovery_sequence.cpp  recovery and planned restarts, phase by phase, as the policy decides
//   maintenance.cpp        planned interruptions (deferred while the job is down)
//   straggler_control.cpp  the fleet's speed state and the step time it implies; drain checks

#include "message.hpp"
#include "process.hpp"
#include "run_context.hpp"
#include "straggler_control.hpp"

#include "models/core/random_stream.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fleetsim::sim {

class JobScheduler {
public:
  /// `shape_for(dp)`: the job's shape on dp data-parallel replicas; `shape` is where the current one
  /// lives (the job reads it).
  JobScheduler(const SchedulerWiring& w, JobShape& shape, std::function<JobShape(int)> shape_for)
      : w_(w), shape_(shape), shape_for_(std::move(shape_for)), stragglers_(w)
  {}
  Process operator()();

private:
  using MaybeFailure = std::optional<msg::Failure>;  // the failure that cut a phase short, if any

  // ---- job_scheduler.cpp ----
  Task<> on_failure(msg::Failure f);
  Task<> on_drain_check(msg::DrainCheck c);
  /// Stops the running job; returns true if it stopped cleanly (planned, after its checkpoint).
  /// A failure that strikes the job meanwhile is returned through `failure`.
  Task<bool> stop_job(bool planned, bool checkpoint_first, MaybeFailure& failure);
  /// True if a failure strikes the job (a node-scope one: the keeper took some of its slots).
  bool strikes_job(const msg::Failure& failure);
  /// Handles a message that does not end the current wait: repairs, deferred planned events, and
  /// failures that miss the job. Returns the failure if it strikes the job.
  MaybeFailure background(const SchedulerMessage& m);
  /// Repairs and the fleet's speed state; a message of any other kind changes nothing.
  void state_message(const SchedulerMessage& m);
  /// Sends a node to the run's repair shop; `idle`: no slot of the job held it when it failed (it
  /// comes back to the pool at its repair time, not through the job).
  void send_to_repair(long node, double mean, bool idle);
  void record_failure(const msg::Failure& failure, models::Phase during) const;
  /// Recomputes the step time from the fleet's state; tells a training job when it changes.
  void refresh_speed();
  /// True when a recovery now can restore from host memory (the policy says so).
  [[nodiscard]] bool memory_restore() const;
  /// The fleet as the recovery policy sees it.
  [[nodiscard]] models::RecoveryView view() const;
  [[nodiscard]] long slots_for(int dp) const;
  void set_shape(int dp);
  /// The job's nodes changed: active GPUs for the trace, and the step time.
  void fleet_changed();
  /// Starts a new incarnation, from host memory when it can, or from storage (after a checkpointed stop).
  void start_job(bool from_storage = false);
  /// What the job is doing now (the open phase of the trace).
  [[nodiscard]] models::Phase job_phase() const;

  // ---- recovery_sequence.cpp ----
  /// Recovers from `failure` and any failure during recovery; returns once the job runs again.
  Task<> recover(msg::Failure failure);
  /// Gets the nodes the job needs (waiting for repairs if it must) and sets the job's shape; returns a
  /// failure that struck the job's nodes while it waited.
  Task<MaybeFailure> acquire_nodes();
  /// The requeue policy: gives every node back and waits, holding none, until the host places the job
  /// again (msg::Placed) or, with no host's queue, until idle nodes can hold it. A failure meanwhile
  /// strikes nothing: the job is not running.
  Task<MaybeFailure> requeue();
  /// Spends `phase` for `duration`; returns the failure that cut it short, if any.
  Task<MaybeFailure> timed_phase(models::Phase phase, double duration);
  Task<MaybeFailure> reload_phase();
  /// One read of the newest checkpoint; a failure meanwhile ends the reload phase.
  Task<MaybeFailure> read_checkpoint();
  /// A checkpointed stop, `reshape`, then restart, reload and warm-up, charged to `cause`.
  Task<MaybeFailure> planned_restart(std::string cause, std::string component,
                                     std::function<Task<MaybeFailure>()> reshape);
  /// Elastic: stops at a checkpoint and restarts on more replicas; returns a failure, if any.
  Task<MaybeFailure> regrow(int dp);
  /// Mitigation: stops at a checkpoint, sends the slow node (and every other job node slow for at
  /// least drain_after) to repair, and restarts without them: one restart for all.
  Task<MaybeFailure> drain(long node);

  // ---- maintenance.cpp ----
  /// A planned interruption is due: stop the job cleanly, run it, start again.
  Task<> on_planned();
  /// Runs the planned interruption; returns a failure that struck during it, if any.
  Task<MaybeFailure> planned();

  SchedulerWiring w_;
  JobShape& shape_;
  std::function<JobShape(int)> shape_for_;
  long epoch_ = 0;
  long deferred_planned_ = 0;
  bool finished_ = false;  // the job reached its token target (JobWiring::target_step)
  models::Phase failure_during_ = models::Phase::Training;
  long next_request_ = 1'000'000'000;  // ids distinct from the job's write requests
  std::vector<long> lost_slots_;       // slots struck since the job last started (in_memory)
  StragglerControl stragglers_;
};

}  // namespace fleetsim::sim
