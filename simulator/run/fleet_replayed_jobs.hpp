#pragma once
// A fleet's replayed jobs (workload.jobs.<name>.runtime: replay): each is the single-job replay's
// job (ReplayedJob, replayed_job.hpp) on the nodes the fleet places it on, all of them in the
// fleet's one node pool (decision 41): they share the spare reserve, and the failures of nodes --
// drawn once for the cluster -- and their repairs are kept by the fleet's NodeKeeper (decision 42).
// The other jobs' nodes are held in a table of their own, so that no replayed job takes one as a
// replacement; the fleet's state applies the failures that strike them.

#include "models/fleet/fleet_state.hpp"
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
  /// step forks). The first draws its own events (software failures, maintenance, ...) from the
  /// run's seed, as the replay of it does; each other one from a seed of its own.
  FleetReplayedJobs(const scenario::Scenario& s, const models::fleet::Workload& workload, std::uint64_t seed);
  [[nodiscard]] bool empty() const { return jobs_.empty(); }

  /// Each replayed job gets a storage client of its own, as in a replay (appended to `clients`).
  void add_clients(const models::fleet::Workload& workload, std::vector<StorageClient>& clients);
  /// The fleet's pool, once it exists: the nodes outside the spare reserve go to the other jobs'
  /// table, from which a replayed job's placement takes its own. Returns that table (-1: none, when
  /// there is no replayed job).
  long use_pool(models::NodePool& pool, const models::fleet::FleetConfig& config, std::uint64_t seed);
  /// The keeper of the replayed jobs' nodes and the spares (spawn its process).
  [[nodiscard]] NodeKeeper& keeper() { return *keeper_; }

  /// Starts job `j` on the nodes the fleet placed it on (its ranks' order).
  void start(long j, const models::fleet::FleetState& fleet, const Platform& platform, const JobRuntime::Spawn& spawn,
             ProcessHost& host);
  /// A failure of node scope: the keeper applies it to the replayed jobs' nodes and the spares (the
  /// fleet's state applies it to the others').
  void strike(const msg::Failure& f);
  /// Closes each job at the window's end into the fleet's accounts and `partial.replayed`.
  void finish(models::fleet::FleetState& fleet, FleetResult& partial, double horizon);

private:
  struct Job {
    scenario::Scenario s;
    ResolvedStep step;
    std::uint64_t seed = 0;
    int client = 0;
    std::unique_ptr<ReplayedJob> job;
  };
  const scenario::Scenario& s_;
  std::map<long, Job> jobs_;  // by index in the workload
  models::NodePool* pool_ = nullptr;
  std::optional<NodeKeeper> keeper_;
  long others_ = -1;
};

}  // namespace fleetsim::sim
