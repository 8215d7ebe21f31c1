#pragma once
// A fleet's replayed jobs (workload.jobs.<name>.runtime: replay): each is the single-job replay's
// job (ReplayedJob, replayed_job.hpp) on the nodes the fleet places it on, all of them in the
// fleet's one node pool (decision 41): they share the spare reserve, and the failures of nodes --
// drawn once for the cluster -- and their repairs are kept by the fleet's NodeKeeper (decision 42).
// The other jobs' nodes are held in a table of their own, so that no replayed job takes one as a
// replacement; the fleet's state applies the failures that strike them.
//
// A replayed job waits in the fleet's queue from its submit and starts when placed; its placement's
// nodes leave the other jobs' table for the keeper's. Once it has trained its tokens it ends: its
// processes end, and as many nodes as it brought go back to the other jobs' table -- its own nodes
// first, then idle nodes of the keeper's, then nodes as they come back from repair -- so that the
// keeper keeps the spares and the living replayed jobs' nodes, no more.

#include "models/fleet/fleet_state.hpp"
#include "simulator/actors/fleet_scheduler.hpp"
#include "simulator/actors/node_keeper.hpp"
#include "simulator/run/fleet_simulation.hpp"
#include "simulator/run/replayed_job.hpp"
#include "simulator/run/step_source.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace fleetsim::sim {

class FleetReplayedJobs {
public:
  /// The workload's replayed jobs: their scenarios and steps (call before the Engine: a simulated
  /// step forks). A work job (JobSpec::work_job) runs work_job_scenario() at work_step(). The first draws its own events (software failures, maintenance, ...) from the
  /// run's seed, as the replay of it does; each other one from a seed of its own. A job with a token
  /// target gets their training time at the nominal rate as its work (the scheduler's estimate).
  FleetReplayedJobs(const scenario::Scenario& s, models::fleet::Workload& workload, std::uint64_t seed);
  [[nodiscard]] bool empty() const { return jobs_.empty(); }

  /// Each replayed job gets a storage client of its own, as in a replay (appended to `clients`).
  void add_clients(const models::fleet::Workload& workload, std::vector<StorageClient>& clients);
  /// The fleet's pool, once it exists: the nodes outside the spare reserve go to the other jobs'
  /// table, from which a replayed job's placement takes its own. Returns that table (-1: none, when
  /// there is no replayed job).
  long use_pool(models::NodePool& pool, const models::fleet::FleetConfig& config, std::uint64_t seed);
  /// The keeper of the replayed jobs' nodes and the spares (spawn its process).
  [[nodiscard]] NodeKeeper& keeper() { return *keeper_; }

  /// Starts job `j` on the nodes the fleet placed it on (its ranks' order); when it reaches its
  /// token target it posts msg::JobEnded to `inbox`, when it gives its nodes back after a failure
  /// (the requeue policy) msg::JobRequeued, and nodes coming back go there as msg::NodeBack. A job
  /// placed again after a requeue goes on, on its new nodes.
  void start(long j, const models::fleet::FleetState& fleet, const Platform& platform, const JobRuntime::Spawn& spawn,
             ProcessHost& host, Inbox<FleetMessage>& inbox);
  /// Job `j` reached its token target: its processes end, it leaves the fleet at this instant, and
  /// the nodes it brought go back to the scheduler.
  void end(long j, models::fleet::FleetState& fleet);
  /// Job `j` gave its nodes back after a failure (the requeue policy): it waits in the fleet's queue,
  /// holding none, and the nodes it brought go back to the scheduler.
  void requeue(long j, models::fleet::FleetState& fleet);
  /// `node` came back from repair and no job took it: it goes back to the scheduler if one is owed.
  void node_back(long node, models::fleet::FleetState& fleet);
  /// A failure of node scope: the keeper applies it to the replayed jobs' nodes and the spares (the
  /// fleet's state applies it to the others').
  void strike(const msg::Failure& f);
  /// Closes each job still running at the window's end into the fleet's accounts, and gives every
  /// job's result (those that ended were closed then) to `partial.replayed`, in workload order.
  void finish(models::fleet::FleetState& fleet, FleetResult& partial, double horizon);

private:
  // A job's scenario is made when it starts (replayed_job_scenario(*source, spec)): a job waiting in
  // the queue or done holds none.
  struct Job {
    const scenario::Scenario* source = nullptr;  // the fleet's, or the job's own (FleetJobDecl::own)
    models::fleet::JobSpec spec;                 // its GPUs and tokens (a work job's whole spec)
    const ResolvedStep* step = nullptr;          // (steps_'s)
    std::uint64_t seed = 0;
    int client = 0;
    std::unique_ptr<ReplayedJob> job;
    long table = -1;  // its slot table in the pool
    long nodes = 0;   // the nodes it brought
  };
  /// Closes job `j` at `t` (its end, or the window's): its result into the fleet's accounts and
  /// closed_; its runtime retired.
  void close(long j, Job& job, models::fleet::FleetState& fleet, double t);
  /// Gives back to the scheduler up to `owed_` idle nodes the keeper keeps, `first` first.
  void give_back(const std::vector<long>& first, models::fleet::FleetState& fleet);
  const scenario::Scenario& s_;
  std::map<long, Job> jobs_;  // by index in the workload
  // By source and GPUs; the work jobs' one step (work_step()) under {nullptr, 0}.
  std::map<std::pair<const scenario::Scenario*, long>, ResolvedStep> steps_;
  models::NodePool* pool_ = nullptr;
  std::optional<NodeKeeper> keeper_;
  long others_ = -1;
  ProcessHost* host_ = nullptr;
  long owed_ = 0;  // nodes the keeper keeps beyond the spares and the living jobs' nodes
  std::vector<ReplayedResult> closed_;
  std::vector<std::pair<long, std::unique_ptr<ReplayedJob>>> retired_;  // by host group, until it has no process
};

}  // namespace fleetsim::sim
