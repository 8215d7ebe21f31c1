#pragma once
// The fleet as one state machine, without SimGrid: jobs arrive, wait, hold GPUs, train, checkpoint,
// fail, are preempted and finish, on a shared cluster whose nodes fail and come back from repair.
// The simulator's fleet scheduler (simulator/actors/fleet_scheduler.hpp) delivers the events
// in simulated-time order and sleeps until the next timer this state asks for; tests can drive it
// directly.
//
// Its collaborators, by responsibility: the queue of waiting jobs (job_queue.hpp), the timers
// (fleet_timers.hpp), the GPU-time accounts and the timeline (fleet_accounts.hpp), the cluster's
// nodes and placements (cluster.hpp) and the scheduling policy (scheduling_policy.hpp). What stays
// here is a job's life and the events that drive it: fleet_state.cpp (the queue's keys, placement,
// a job's segment), fleet_events.cpp (arrivals, failures, recovery, preemption, timers, the window's
// end), fleet_io.cpp (jobs whose checkpoints go through the storage).
//
// A job's life: Pending -> Waiting -> Running (restart, then training with checkpoints) -> Done.
// A failure that strikes it stops its progress at once (the work since its last checkpoint is
// lost) and it keeps its GPUs while the failure is detected; then it recovers: in place (healthy
// nodes kept, replacements from the spares or idle nodes) or back to the queue. A preempted job
// stops at once (kill) or after a checkpoint (checkpoint) and goes back to the queue.

#include "cluster.hpp"
#include "fleet_accounts.hpp"
#include "fleet_ledger.hpp"
#include "fleet_timers.hpp"
#include "job_queue.hpp"
#include "job_record.hpp"
#include "job_progress.hpp"
#include "job_spec.hpp"
#include "replayed_time.hpp"
#include "scheduling_policy.hpp"

#include "models/energy/carbon.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace fleetsim::models::fleet {

struct FleetConfig {
  long nodes = 1;
  int gpus_per_node = 8;
  int nodes_per_rack = 1;
  long nodes_per_pod = 0;
  long spare_nodes = 0;
  Packing packing = Packing::FirstFit;
  std::uint64_t placement_seed = 0;  // Packing::Random's order (from the run's seed)
  Preemption preemption = Preemption::None;
  size_t backfill_depth = 1000;
  double horizon = 0;
  double timeline_interval = 3600;
  std::vector<std::string> causes;  // failure cause names (loss causes kFirstFailureCause + i)
  std::vector<double> detection;    // detection delay per cause (s)
  // Loss causes after the failure causes: a replayed job's own (kReplayedLossCauses), when the
  // workload has one.
  std::vector<std::string> extra_causes;
  // The spare reserve is the replayed jobs': the failures of the spare nodes are theirs (the
  // simulator's node keeper applies them), and no other job takes a spare as a replacement (it
  // takes an idle node).
  bool spares_replayed = false;
  energy::CarbonProfile carbon;     // the grid's intensity (empty: none): the jobs' carbon, and ...
  bool carbon_aware = false;        // ... deferrable jobs start when the grid is cleanest
};

/// A storage transfer a job with checkpoint_bytes > 0 asks of the simulator (FleetState::take_io):
/// a checkpoint write, a restore's read, or the abort of the job's transfer in flight (it failed).
/// The simulator answers with io_done(job, epoch, t) when the transfer completes.
struct IoRequest {
  long job = 0;
  long epoch = 0;  // the request's token: io_done() echoes it
  bool write = true;
  bool abort = false;
  double bytes = 0;
  double files = 1;
};

class FleetState final : private SchedulerOps {
public:
  FleetState(FleetConfig config, const Workload& jobs, const SchedulingPolicy& policy);

  // ---- events (in simulated-time order) ----
  void submit(long job, double t);
  /// Hardware failure: nodes [first, first + count) go to repair; returns the nodes that were up
  /// (the caller schedules their repairs with repair_due()).
  std::vector<long> node_failure(int cause, long first, long count, double t);
  /// A failure of one job (software, hang): the job holding cluster GPU `gpu`, if any.
  void gpu_job_failure(int cause, long gpu, double t);
  /// A failure of every running job at once (a storage outage).
  void all_jobs_failure(int cause, double t);
  /// The storage is out until `until`: a job that restarts meanwhile with a checkpoint to read waits
  /// for it (a job whose checkpoints go through the storage waits in its storage channel instead).
  void storage_outage(double until) { storage_back_ = std::max(storage_back_, until); }
  void repair_due(long node, double t_due);

  /// The next internal timer (a job's phase end or a repair), if any.
  [[nodiscard]] std::optional<double> next_timer() const;
  /// Fires every timer due at or before t.
  void fire_timers(double t);
  /// The nodes back from repair since the last call (the failure injectors' pool follows them).
  [[nodiscard]] std::vector<long> take_repaired() { return std::exchange(repaired_, {}); }
  /// Storage transfers asked for since the last call (jobs with checkpoint_bytes > 0).
  [[nodiscard]] std::vector<IoRequest> take_io() { return std::exchange(io_, {}); }
  /// Job `job`'s transfer with token `epoch` completed at t (a stale one is ignored).
  void io_done(long job, long epoch, double t);
  /// Closes the window: running jobs are accounted up to it.
  void finish(double horizon);

  // ---- a shared fabric (the simulator's FleetFabric) ----
  /// The jobs whose placement changed since the last call (placed, moved in place, or released).
  [[nodiscard]] std::vector<long> take_placement_changes() { return std::exchange(placement_changes_, {}); }
  /// The nodes a job holds now, in its ranks' order (empty when it holds none).
  [[nodiscard]] const Placement& placement_of(long job) const { return live_[static_cast<size_t>(job)].placement; }
  /// From t, job `job` trains at `speed` work-seconds per second (< 1: slowed by its share of the
  /// fabric); the time lost is charged to the "contention" loss cause (FleetConfig::extra_causes).
  void set_speed(long job, double speed, double t);
  /// From t, job `job`'s training data arrives at `ratio` of the rate its training needs at full
  /// speed: it trains at most that fast; what this costs beyond its fabric speed is charged to
  /// "data_stall".
  void set_data_ratio(long job, double ratio, double t);

  // ---- replayed jobs (JobSpec::replayed) ----
  /// The replayed jobs started since the last call: the simulator starts their runtimes now.
  [[nodiscard]] std::vector<long> take_started_replayed() { return std::exchange(started_replayed_, {}); }
  /// A replayed job's time, from its own trace (replayed_time.hpp): charged to its record and the
  /// fleet's, its training to the timeline. A job still running is closed at the window's end
  /// (`horizon`, before finish()), its GPUs released then; a job that ended (end_replayed) is closed
  /// at its end, up to which it is charged.
  void close_replayed(long job, const ReplayedTime& time, double horizon);
  /// A replayed job reached its token target at t: it is done and holds no GPUs from t (its time is
  /// charged by close_replayed, which follows). Its nodes stay the node keeper's until reclaimed.
  void end_replayed(long job, double t);
  /// A replayed job gave its nodes back after a failure (the requeue policy) at t: it holds no GPUs
  /// from t and waits in the queue (ahead of the jobs submitted after it) to be placed again, when
  /// its runtime goes on. Its nodes stay the node keeper's until reclaimed, as at its end.
  void requeue_replayed(long job, double t);
  /// Nodes the keeper gives back to the scheduler at t, of those it owes since a replayed job ended
  /// or was requeued; then the queue is scheduled (a job placed on them starts at t).
  void reclaim(const std::vector<long>& nodes, double t);
  /// True when the workload has replayed jobs (the spares are theirs; the simulator applies the
  /// failures of their nodes).
  [[nodiscard]] bool has_replayed_job() const { return cfg_.spares_replayed; }
  /// The loss cause of a name (a failure cause's, "checkpoint", "startup", "preemption" or an extra
  /// cause's); -1 if none.
  [[nodiscard]] int loss_cause(const std::string& name) const;

  // ---- results ----
  [[nodiscard]] const std::vector<JobRecord>& jobs() const { return rec_; }
  [[nodiscard]] const Workload& specs() const { return spec_; }
  [[nodiscard]] const GpuTime& total() const { return accounts_.total(); }
  [[nodiscard]] const FleetTimeline& timeline() const { return accounts_.timeline(); }
  [[nodiscard]] const FleetConfig& config() const { return cfg_; }
  [[nodiscard]] long gpus() const { return cluster_.gpus(); }
  [[nodiscard]] long preemptions() const { return preemptions_; }
  [[nodiscard]] long interruptions() const { return interruptions_; }
  [[nodiscard]] long failures_on_idle() const { return failures_on_idle_; }
  /// Failures that struck the cluster (a node that was up, a GPU, or the storage).
  [[nodiscard]] long failures() const { return failures_; }
  [[nodiscard]] long in_place_recoveries() const { return in_place_; }
  [[nodiscard]] long requeues() const { return requeues_; }
  [[nodiscard]] std::string loss_cause_name(int cause) const;
  [[nodiscard]] int loss_causes() const
  {
    return kFirstFailureCause + static_cast<int>(cfg_.causes.size() + cfg_.extra_causes.size());
  }

private:
  struct Live {  // what a job needs only while it lives
    Placement placement;
    Segment seg;
    int restart_cause = kStartup;  // whom its current restart phase is charged to
    double alloc_t = 0;
    double queued_since = 0;
    long epoch = 0;
    int failing_cause = -1;  // during detection
    double stop_t = 0;       // when its progress stopped (failure or preemption)
    double pending = 0;      // preemption: work done, saved once its checkpoint completes
    bool in_queue = false;
    bool requeued = false;  // a replayed job requeued (requeue_replayed): placed again, its runtime goes on
    long io_token = 0;    // its storage transfer in flight (0: none)
    double draining = 0;  // asynchronous: work saved once the drain in flight completes
    bool drain_in_flight = false;
    bool waits_drain = false;  // a checkpoint waits for the host buffer the drain holds
    bool deferred = false;     // queued by its eligible time rather than its submit
    double speed = 1;          // work-seconds per second of training the fabric allows (set_speed)
    double data = 1;           // the share of its data rate its loading gets (set_data_ratio)
  };

  // SchedulerOps, for the policy.
  [[nodiscard]] double now() const override { return now_; }
  [[nodiscard]] std::vector<long> waiting(size_t limit) const override;
  [[nodiscard]] const JobSpec& spec(long job) const override { return spec_[static_cast<size_t>(job)]; }
  [[nodiscard]] double run_estimate(long job) const override;
  [[nodiscard]] const Cluster& cluster() const override { return cluster_; }
  [[nodiscard]] std::vector<RunningView> running() const override;
  bool try_start(long job) override;
  void preempt(long job) override;
  [[nodiscard]] Preemption preemption() const override { return cfg_.preemption; }
  [[nodiscard]] size_t backfill_depth() const override { return cfg_.backfill_depth; }

  void schedule();
  void enqueue(long job, double t);
  void dequeue(long job);
  void start_segment(long job, double t, int restart_cause);
  // ---- jobs whose checkpoints go through the storage system (fleet_io.cpp) ----
  [[nodiscard]] bool stores(long job) const { return spec(job).checkpoint_bytes > 0; }
  /// Starts a job that stores: restart, then a restore read if it has a checkpoint, then training.
  void start_storing(long job, double t, int restart_cause);
  /// Training from the segment's start: the next checkpoint, or the finish, is due.
  void schedule_progress(long job);
  /// A timer of a job that stores (CheckpointDue, RestoreDue).
  void storage_timer(long job, TimerKind kind);
  /// A failure strikes a job that is writing or reading its checkpoint.
  void strike_during_io(long job, int cause, double t);
  void ask_io(long job, bool write);
  /// An asynchronous job's drain in flight ends without completing: its work is lost to `cause`,
  /// or (cause < 0) kept pending for the checkpoint the job writes now; `done`: the job finished,
  /// and the work counts.
  void drop_drain(long job, int cause, bool done = false);
  /// The snapshot is in host memory: the write drains while the job trains on.
  void snapshot_done(long job);
  /// Stops a running job's progress at t: charges its segment so far; returns the work it lost.
  void stop_progress(long job, double t, int cause);
  /// Charges a segment's restart, checkpoint stalls and (at a speed below 1) contention up to `st`.
  void charge_segment(long job, const SegmentState& st);
  /// Charges the time a segment's training took beyond its `work` (done since its start) at its
  /// speed: to data_stall the part beyond what its fabric speed takes, the rest to contention.
  void charge_slow(long job, const Segment& seg, double work, double training);
  /// Re-bases a running job on its speeds now (set_speed, set_data_ratio).
  void retime(long job, double t);
  /// A new segment from t, at the job's speed.
  [[nodiscard]] Segment segment(long job, double t, double restart, double interval, double cost) const
  {
    Segment s{t, restart, interval, cost};
    const Live& l = live_[static_cast<size_t>(job)];
    s.speed = std::min(l.speed, l.data);
    s.fabric = l.speed;
    return s;
  }
  void strike(long job, int cause, double t);
  void release(long job, double t);
  void recover(long job, double t);
  void hold(long job, const Placement& p, double t);
  // The job's record in the accounts (fleet_accounts.hpp).
  void charge(long job, int cause, double gpu_seconds) { accounts_.charge(record(job), cause, gpu_seconds); }
  void productive(long job, double gpu_seconds) { accounts_.productive(record(job), gpu_seconds); }
  void add_training(long job, double t_end) { accounts_.training(record(job), live(job).seg, t_end); }
  void set_timer(double t, TimerKind kind, long id, long epoch) { timers_.set(t, kind, id, epoch); }
  // ---- replayed jobs (fleet_replayed.cpp) ----
  /// True when node n is kept by the simulator's node keeper (a replayed job's, a spare, or one it
  /// owes back): the keeper applies its failures.
  [[nodiscard]] bool replayed_node(long n) const;
  /// A replayed job's placement is the keeper's from its start.
  void keep_placement(long job);
  /// The job holds its GPUs no more from t (its nodes are not given back to the cluster here).
  void leave(long job, double t);
  /// A replayed job leaves its nodes at t (leave()): the keeper owes the scheduler as many nodes as
  /// it brought, shown down until reclaimed.
  void leave_kept(long job, double t);
  void update_levels();
  [[nodiscard]] JobQueue::Key queue_key(long job) const;
  [[nodiscard]] JobRecord& record(long job) { return rec_[static_cast<size_t>(job)]; }
  [[nodiscard]] Live& live(long job) { return live_[static_cast<size_t>(job)]; }

  FleetConfig cfg_;
  const SchedulingPolicy& policy_;
  Workload spec_;
  std::vector<JobRecord> rec_;
  std::vector<Live> live_;
  Cluster cluster_;
  std::vector<std::vector<long>> on_node_;  // jobs holding GPUs on each node
  std::set<long> kept_;                     // nodes the simulator's node keeper keeps (replayed_node)
  std::set<long> kept_down_;                // of those, the ones shown down: owed back since a replayed job ended
  JobQueue queue_;
  std::set<long> running_;  // Running, Detecting or Preempting
  TimerQueue timers_;
  double now_ = 0;
  FleetAccounts accounts_;
  long held_gpus_ = 0;
  long preemptions_ = 0;
  long interruptions_ = 0;
  long failures_on_idle_ = 0;
  long failures_ = 0;
  std::vector<long> repaired_;
  std::vector<IoRequest> io_;
  long io_seq_ = 0;
  long in_place_ = 0;
  long requeues_ = 0;
  std::vector<long> started_replayed_;
  std::vector<long> placement_changes_;
  int contention_ = -1;  // the "contention" loss cause, when the config has it
  int data_stall_ = -1;  // the "data_stall" loss cause, likewise
  double storage_back_ = 0;  // the storage is out until then
  bool scheduling_ = false;
};

}  // namespace fleetsim::models::fleet
