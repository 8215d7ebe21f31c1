#pragma once
// A replayed job, for any host: the single-job replay's job (its JobRuntime, job_runtime.hpp) and
// everything its result needs, from the step to the accounting of its trace. The replay
// (simulation.cpp) hosts one on the whole cluster; a fleet (fleet_simulation.cpp) hosts one per
// job declared `runtime: replay`, on the nodes the fleet places it on. Both build the job's
// RunResult here, so a one-job fleet and the replay are the same job by construction
// (docs/architecture.md, decision 30).

#include "models/fleet/job_spec.hpp"
#include "simulator/platform/platform_builder.hpp"
#include "simulator/run/job_runtime.hpp"
#include "simulator/run/simulation.hpp"
#include "simulator/run/step_source.hpp"
#include "simulator/scenario/scenario.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace fleetsim::sim {

/// The scenario of a fleet's replayed job `j`: the fleet's sections (model, layout, checkpoint,
/// recovery, stragglers, lemons, data, failures) on the job's GPUs, without the workload; the
/// fleet's spare nodes are its spares.
[[nodiscard]] scenario::Scenario replayed_job_scenario(const scenario::Scenario& fleet,
                                                       const models::fleet::JobSpec& j);

/// The scenario of a fleet's work job `j` (JobSpec::work_job): the fleet's failures, recovery
/// detection, storage, power and node-level sections, on a layout of its GPUs (data parallel) whose
/// step is one second of its work at full speed (work_step()); it ends once it has done its work;
/// its checkpoints every checkpoint_interval of work (never when 0) stall it checkpoint_cost and
/// write its checkpoint_bytes, if any, to the storage; its first start and each restart take
/// restart_cost (reload and warm-up included); its recovery policy is restart (in_place) or requeue.
[[nodiscard]] scenario::Scenario work_job_scenario(const scenario::Scenario& fleet, const models::fleet::JobSpec& j);
/// A work job's step: one second of its work, all compute, one "token" (a second of work) a step.
[[nodiscard]] ResolvedStep work_step();

class ReplayedJob {
public:
  /// The replay's job: `s` its scenario, `step` its resolved step; the job owns its cluster (its
  /// nodes and its spares, make_node_pool()) and the keeper of its nodes. Construct after the
  /// Engine (the runtime's inboxes are SimGrid objects).
  ReplayedJob(scenario::Scenario s, std::uint64_t seed, const ResolvedStep& step);
  /// A fleet's job (`s`: replayed_job_scenario()'s), placed as slot table `pool_job` of the fleet's
  /// `pool`, whose failures and repairs the fleet's `nodes` keeps; both outlive the job.
  ReplayedJob(scenario::Scenario s, std::uint64_t seed, const ResolvedStep& step, models::NodePool& pool,
              NodeKeeper& nodes, long pool_job);
  ReplayedJob(const ReplayedJob&) = delete;
  ReplayedJob& operator=(const ReplayedJob&) = delete;

  /// The job's scenario as it runs: the storage's write rate is the fabric's when a simulated step
  /// found the fabric slower.
  [[nodiscard]] const scenario::Scenario& scenario() const { return s_; }
  [[nodiscard]] JobRuntime& runtime() { return *job_; }
  [[nodiscard]] const JobRuntime& runtime() const { return *job_; }
  /// Its expected step time at full width, stragglers included.
  [[nodiscard]] double step_time() const { return step_time_; }

  /// Starts its actors (JobRuntime::start) now, on storage client `client`, as host group `group`.
  void start(const Platform& platform, int client, const JobRuntime::Spawn& spawn, ProcessHost& host,
             const std::function<void()>& after_checkpoint_writer, long group = 0);
  /// It shares a fleet's spare nodes and storage with other replayed jobs: its energy account
  /// leaves their draw (the spare nodes' idle draw, the storage's fixed draw) to the fleet's.
  void share_the_fleet() { alone_ = false; }
  /// Called when it has reached its token target (Scenario::stop_at_target); set before start().
  void on_finished(std::function<void()> f);
  /// Called when it has given its nodes back after a failure (the requeue policy): its host queues
  /// it, and calls runtime().placed() once it holds nodes again; set before start().
  void on_requeue(std::function<void()> f) { job_->on_requeue(std::move(f)); }
  /// When it started, and when it ended (the window's end while it trains).
  [[nodiscard]] double start_time() const { return start_t_; }
  [[nodiscard]] double end_time() const { return end_t_.value_or(s_.duration.si()); }
  [[nodiscard]] bool finished() const { return end_t_.has_value(); }

  /// Its result at its end: the trace, its accounting and energy (with its own storage client's load
  /// record, StorageSystem::record_client, from its start), the policy's counters. A broken invariant
  /// is thrown with the scenario and seed.
  [[nodiscard]] RunResult finish();

private:
  void prepare(const ResolvedStep& step, long pool_job);

  scenario::Scenario s_;
  std::uint64_t seed_;
  RunResult result_;  // what is known before the run
  std::unique_ptr<models::RecoveryPolicy> policy_;
  // The replay's own cluster and its keeper (none in a fleet: the fleet's).
  std::unique_ptr<models::NodePool> own_pool_;
  std::unique_ptr<NodeKeeper> own_nodes_;
  models::NodePool& pool_;
  NodeKeeper& nodes_;
  double step_time_ = 0;
  double start_t_ = 0;
  std::optional<double> end_t_;  // when it reached its token target
  std::optional<JobRuntime> job_;
  StorageSystem* storage_ = nullptr;  // its client's, from start()
  int client_ = 0;
  std::vector<StorageSample> storage_record_;
  bool alone_ = true;  // the replay's, or a fleet's only replayed job (its spares are its reserve)
};

}  // namespace fleetsim::sim
