#pragma once
// Drives the job's life: starts it, reacts to failures and planned interruptions, and runs the
// recovery sequence of the scenario's policy:
//
//   detection -> [waiting for nodes] -> restart | spare swap -> reload (storage | host memory) -> warm-up
//
// It owns the node pool (models/node_pool.hpp): a failure takes its nodes to the repair pipeline;
// it interrupts the job only if it strikes a node holding one of the job's slots (or is a job-scope
// cause). A failure during a recovery phase that strikes the job restarts recovery from detection.
// A planned interruption that falls while the job is down waits until the job is training again.
//
// Stragglers (models/stragglers.hpp) set the step time from the fleet's state: the slowest node in
// the job (persistent, or in a slowdown episode), the diurnal clock, and per-step transients on top.
// The job is told when it changes. With stragglers.drain_below, a node slow for drain_after is
// drained: a checkpointed stop, the node to repair, and a restart with a replacement.
//
// Policies (recovery.policy):
//   restart   - resubmit the job: `restart`, then reload from storage; failed nodes are replaced
//               from idle nodes, and with none left the job waits for the repair pipeline;
//   hot_spare - keep the allocation and swap warm spares in: `spare_swap` instead of `restart`;
//   elastic   - restart at once on as many whole data-parallel replicas as the healthy nodes hold
//               (at least elastic_min_dp), and grow back with a planned restart (checkpoint, restart,
//               reload, warm-up) when repaired nodes make room for more replicas;
//   in_memory - restore from host-memory snapshots held by the node and its peers (memory_reload),
//               losing only the training since the last snapshot; from storage when a failure left
//               some shard with no surviving copy.

#include "message.hpp"
#include "run_context.hpp"

#include "models/random_stream.hpp"

#include <functional>

namespace fleetsim::sim {

class JobScheduler {
public:
  /// `shape_for(dp)`: the job's shape on dp data-parallel replicas; `shape` is where the current one
  /// lives (RunContext::shape points at it).
  JobScheduler(const RunContext& ctx, JobShape& shape, std::function<JobShape(int)> shape_for)
      : ctx_(ctx), shape_(shape), shape_for_(std::move(shape_for)), repair_times_(ctx.seed, "repair/times")
  {
  }
  void operator()();

private:
  /// Stops the running job; returns true if it stopped cleanly (planned, after its checkpoint).
  /// A failure that strikes the job meanwhile is returned through `failure`.
  bool stop_job(Inbox& inbox, MessageType how, bool checkpoint_first, std::optional<Message>& failure);
  /// Recovers from `failure` and any failure during recovery; returns once the job runs again.
  void recover(Inbox& inbox, Message failure);
  /// Runs the planned interruption; returns a failure that struck during it, if any.
  std::optional<Message> planned(Inbox& inbox);
  /// Elastic: stops at a checkpoint and restarts on more replicas; returns a failure, if any.
  std::optional<Message> regrow(Inbox& inbox, int dp);
  /// Mitigation: stops at a checkpoint, sends the slow node (and every other job node slow for at
  /// least drain_after) to repair, and restarts without them: one restart for all.
  std::optional<Message> drain(Inbox& inbox, long node);
  /// A checkpointed stop, `reshape`, then restart, reload and warm-up, charged to `cause`.
  std::optional<Message> planned_restart(Inbox& inbox, const std::string& cause, const std::string& component,
                                         const std::function<std::optional<Message>(Inbox&)>& reshape);
  [[nodiscard]] double restart_time() const;
  /// Straggler state: episodes, their ends, diurnal ticks, repaired nodes.
  void state_message(const Message& m);
  [[nodiscard]] bool drain_due(const Message& m) const;
  /// Recomputes the step time from the fleet's state; tells a training job when it changes.
  void refresh_speed();
  void alarm(MessageType type, long node, long id, double after) const;
  /// Spends `phase` for `duration`; returns the failure that cut it short, if any.
  std::optional<Message> timed_phase(Inbox& inbox, models::Phase phase, double duration);
  std::optional<Message> reload_phase(Inbox& inbox);
  /// Gets the nodes the job needs (waiting for repairs if it must) and sets the job's shape; returns a
  /// failure that struck the job's nodes while it waited.
  std::optional<Message> acquire_nodes(Inbox& inbox);
  /// Applies a failure to the pool (its nodes go to repair); true if it strikes the job.
  bool strikes_job(const Message& failure);
  /// Handles a message that does not end the current wait: repairs, deferred planned events, and
  /// failures that miss the job. Returns the failure if it strikes the job.
  std::optional<Message> background(const Message& m);
  void send_to_repair(long node, double mean);
  void record_failure(const Message& failure, models::Phase during) const;
  /// True when a recovery now can restore from host memory (in_memory and every shard has a copy).
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

  const RunContext& ctx_;
  JobShape& shape_;
  std::function<JobShape(int)> shape_for_;
  long epoch_ = 0;
  long deferred_planned_ = 0;
  models::Phase failure_during_ = models::Phase::Training;
  long next_request_ = 1'000'000'000;  // ids distinct from the job's write requests
  std::vector<long> lost_slots_;       // slots struck since the job last started (in_memory)
  models::RandomStream repair_times_;
};

}  // namespace fleetsim::sim
