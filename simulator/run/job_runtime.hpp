#pragma once
// One training job's processes and the state they share, over its node pool: the job scheduler
// (recovery through the recovery-policy registry), the training loop, its storage channels
// (checkpoint writes, reloads, data reads), its data loader, its alarm clock, slowdown injector,
// maintenance calendar and failure injectors. They are coroutines on the run's ProcessHost
// (simulator/actors/process.hpp, docs/architecture.md decision 40), not actors, so that a fleet can
// host one of these per job. It owns no Engine and no platform: the run that hosts it (simulation.cpp,
// the single-job replay; fleet_simulation.cpp) builds those and the host, and closes its trace at
// the window's end.

#include "models/accounting/trace_records.hpp"
#include "models/resilience/node_pool.hpp"
#include "models/resilience/recovery_policy.hpp"
#include "models/step/step_model.hpp"
#include "simulator/actors/checkpoint_state.hpp"
#include "simulator/actors/data_loader.hpp"
#include "simulator/actors/node_keeper.hpp"
#include "simulator/actors/process.hpp"
#include "simulator/actors/run_context.hpp"
#include "simulator/actors/storage_channel.hpp"
#include "simulator/platform/platform_builder.hpp"
#include "simulator/scenario/scenario.hpp"
#include "simulator/trace/trace_recorder.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace fleetsim::sim {

/// The job on `dp` data-parallel replicas, given the full layout's step `step`: step time (the
/// analytic model's ratio scales `step` for dp below the layout's), stragglers, tokens per step and
/// the checkpoint and snapshot cadences in steps.
[[nodiscard]] JobShape job_shape(const scenario::Scenario& s, const models::StepBreakdown& step, int dp,
                                 const models::RecoveryPolicy& policy);

/// The job's recovery policy, from the registry (recovery.policy).
[[nodiscard]] std::unique_ptr<models::RecoveryPolicy> make_recovery_policy(const scenario::Scenario& s);

/// A cluster of `nodes` nodes, none held by a job: its racks and pods, its lemons, its persistent
/// stragglers (`s`'s capacity and stragglers sections).
[[nodiscard]] models::NodePool make_cluster_pool(const scenario::Scenario& s, long nodes, std::uint64_t seed);
/// A job of `s` placed on `nodes` of `pool` (idle, in rank order): returns its slot table; an older
/// generation (heterogeneous.*) is on its last nodes.
long seat_job(models::NodePool& pool, const scenario::Scenario& s, const std::vector<long>& nodes, std::uint64_t seed);
/// A single job's cluster: its nodes (job 0 of the pool, the first nodes) and its spares after them.
[[nodiscard]] models::NodePool make_node_pool(const scenario::Scenario& s, std::uint64_t seed);

class JobRuntime {
public:
  /// Starts an actor of the job as a daemon of the hosting run, which keeps the first broken
  /// invariant an actor throws and stops the run.
  using Spawn = std::function<void(const std::string& name, std::function<void()> body)>;

  /// `s` is the job's scenario, `full` its shape at the layout's width; the job's nodes are slot
  /// table `pool_job` of `pool` (a node pool may serve other jobs too), whose failures and repairs
  /// the run's `nodes` keeps; `s`, `step`, `policy`, `pool` and `nodes` outlive the runtime.
  JobRuntime(const scenario::Scenario& s, std::uint64_t seed, const models::StepBreakdown& step, const JobShape& full,
             models::RecoveryPolicy& policy, models::NodePool& pool, long pool_job, NodeKeeper& nodes);

  /// Spawns the job's processes on `host` in the order the replay always created its actors (the
  /// host runs the processes ready at one instant in that order), its storage channels on storage
  /// client `client`; `after_checkpoint_writer` lets the run start the storage's own actors (its
  /// token bucket) at their old place, after the checkpoint writer.
  /// `spawn` starts actors (the test-fault hooks of FLEETSIM_TEST_FAULT). The processes are of host
  /// group `group` (a job that ends before the window's is ended with them: ProcessHost::kill_group).
  void start(const Platform& platform, int client, const Spawn& spawn, ProcessHost& host,
             const std::function<void()>& after_checkpoint_writer, long group = 0);
  /// Called when the job has reached its token target (Scenario::stop_at_target) and its scheduler
  /// ends; set before start().
  void on_finished(std::function<void()> f) { finished_ = std::move(f); }
  /// Called when the job, requeued after a failure (the requeue policy), has given its nodes back;
  /// the host then places it again (placed()). Unset: the job waits until idle nodes can hold it.
  /// Set before start().
  void on_requeue(std::function<void()> f) { requeue_ = std::move(f); }
  /// The job leaves the run's node keeper while it holds no node (requeued): the nodes it lost come
  /// back to the pool directly.
  void leave_keeper();
  /// The host placed the requeued job again (its slots hold nodes): it goes on with its restart.
  void placed();
  /// Closes the job's trace at the window's end and hands it over.
  [[nodiscard]] models::TraceLog finish(double horizon);

  [[nodiscard]] const models::NodePool& pool() const { return pool_; }
  [[nodiscard]] long pool_job() const { return pool_job_; }
  [[nodiscard]] const PolicyCounters& counters() const { return counters_; }
  [[nodiscard]] Inbox<SchedulerMessage>& scheduler_inbox() { return scheduler_inbox_; }
  [[nodiscard]] IntervalControl& interval() { return interval_; }
  [[nodiscard]] const CheckpointPlan& plan() const { return plan_; }

private:
  // Shapes at other widths (elastic) are computed once each, on first use.
  JobShape shape_for(int dp);
  /// The step that reaches the token target when the job stops there (0: it trains on).
  [[nodiscard]] long target_step() const;

  const scenario::Scenario& s_;
  std::uint64_t seed_;
  const models::StepBreakdown& step_;
  models::RecoveryPolicy& policy_;
  TraceRecorder trace_;
  models::NodePool& pool_;
  long pool_job_;
  NodeKeeper& nodes_;
  std::map<int, JobShape> shapes_;
  JobShape full_;  // the job at its full width
  JobShape shape_;
  PolicyCounters counters_;
  Inbox<SchedulerMessage> scheduler_inbox_;
  Inbox<JobMessage> job_inbox_;
  Inbox<AlarmRequest> alarm_inbox_;
  CheckpointPlan plan_;
  IntervalControl interval_;
  CheckpointHistory history_;
  Inbox<LoaderMessage> loader_inbox_;
  DataDemand demand_;
  StorageQueue batches_;  // the data loader's reads
  StorageQueue writes_;   // the job's checkpoints
  StorageQueue reads_;    // its reloads
  std::function<void()> finished_;
  std::function<void()> requeue_;
};

}  // namespace fleetsim::sim
