#pragma once
// The fleet scheduler, a process on the fleet's process host (process.hpp; docs/models/fleet.md): it receives the arrivals, the failure
// injectors' failures and the storage channels' completions, applies each to the fleet's state
// (models::fleet::FleetState, SimGrid-free), posts the storage transfers the state asks for, and
// sleeps until the state's next job or repair timer.

#include "message.hpp"
#include "storage_channel.hpp"

#include "models/core/random_stream.hpp"
#include "models/fleet/fleet_state.hpp"
#include "models/resilience/node_pool.hpp"
#include "simulator/platform/fleet_data_loading.hpp"
#include "simulator/platform/fleet_fabric.hpp"
#include "simulator/platform/platform_builder.hpp"
#include "simulator/scenario/scenario.hpp"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace fleetsim::sim {

namespace msg {
struct Submit {  // arrivals -> fleet scheduler: job `job` (its index in the workload) is submitted
  long job = 0;
};
struct IoFinished {  // a storing job's transfer for `epoch` completed
  long job = 0;
  long epoch = 0;
};
struct Recheck {};  // the storage's transfers changed: the data loading's rates are to be read again
struct JobEnded {   // a replayed job's runtime -> fleet scheduler: it reached its token target
  long job = 0;
};
struct NodeBack {  // node keeper -> fleet scheduler: `node` is back in the pool, no job took it
  long node = 0;
};
struct JobRequeued {  // a replayed job's runtime -> fleet scheduler: it gave its nodes back (requeue policy)
  long job = 0;
};
}  // namespace msg

using FleetMessage = std::variant<msg::Submit, msg::Failure, msg::IoFinished, msg::Recheck, msg::JobEnded,
                                  msg::NodeBack, msg::JobRequeued>;

/// The storage clients of the jobs whose checkpoints go through the storage system: one client (its
/// nodes' NICs) and one channel per such job, built with the platform.
/// A transfer of a job that stores from its nodes (JobSpec::node_storage): one communication per
/// node, its share of the checkpoint each; an abort cancels them all.
struct NodeTransfer {
  std::vector<sg4::CommPtr> comms;
  sg4::ExecPtr open;  // the metadata operations before them
  bool aborted = false;
  void abort();
};

struct FleetStorage {
  std::map<long, size_t> slot;  // job -> its client and queue
  std::deque<StorageQueue> queues;
  std::vector<long> in_flight;  // per slot: the request id in flight (0: none)
  long next_id = 1;
  static constexpr size_t kMaxStreams = 64;  // a transfer's streams (one per node up to this)
  // Jobs that store from their nodes: node n's client is first_node_client + n (-1: none built).
  int first_node_client = -1;
  std::map<long, std::shared_ptr<NodeTransfer>> node_transfers;  // job -> its transfer in flight
};

/// One storage client per job of `workload` that writes checkpoints from a client of its own, then
/// one per node of the cluster when some job stores from its nodes (appended to `clients`).
[[nodiscard]] FleetStorage storing_jobs(const models::fleet::Workload& workload, int gpus_per_node, long nodes,
                                        std::vector<StorageClient>& clients);

class FleetScheduler {
public:
  /// Starts a replayed job's runtime (JobSpec::replayed) when the fleet starts the job.
  using StartReplayed = std::function<void(long job)>;
  /// Starts an actor of the fleet (a daemon) on the control host.
  using Spawn = std::function<void(const std::string& name, std::function<void()> body)>;

  FleetScheduler(const scenario::Scenario& s, std::uint64_t seed, models::fleet::FleetState& fleet,
                 models::NodePool& pool, Inbox<FleetMessage>& inbox, long& repairs, FleetStorage& storage,
                 StorageSystem& storage_system, StartReplayed start_replayed = {}, FleetFabric* fabric = nullptr,
                 Spawn spawn = {}, FleetDataLoading* data = nullptr)
      : s_(s),
        fabric_(fabric),
        data_(data),
        spawn_(std::move(spawn)),
        start_replayed_(std::move(start_replayed)),
        storage_(storage),
        storage_system_(storage_system),
        fleet_(fleet),
        pool_(pool),
        inbox_(inbox),
        repairs_(repairs),
        repair_times_(seed, "fleet/repairs"),
        victims_(seed, "fleet/job-failures")
  {}

  Process operator()();
  /// A node back from repair goes to slot table `table` of the pool (the fleet's other jobs' nodes,
  /// beside replayed jobs; -1: none, it stays idle).
  void hold_repaired_in(long table) { hold_in_ = table; }
  /// `ended(job)`: a replayed job reached its token target (its runtime ends, its nodes go back);
  /// `back(node)`: a node the keeper keeps is back in the pool (it may go back to the scheduler);
  /// `requeued(job)`: a replayed job gave its nodes back after a failure and waits to be placed again.
  void on_replayed(std::function<void(long job)> ended, std::function<void(long node)> back,
                   std::function<void(long job)> requeued)
  {
    end_replayed_ = std::move(ended);
    node_back_ = std::move(back);
    requeue_replayed_ = std::move(requeued);
  }

private:
  void start_io();
  /// The deadline of the next wait: the state's next timer, or a reading of the fabric or the data.
  [[nodiscard]] std::optional<double> next_due() const;
  /// The shared fabric and data loading follow the placements that changed.
  void follow_placements(double t);
  /// A transfer of a job that stores from its nodes, in an actor of its own.
  void start_node_io(const models::fleet::IoRequest& io);
  void on_failure(const msg::Failure& f);

  const scenario::Scenario& s_;
  FleetFabric* fabric_;     // network.fleet_fabric: shared
  FleetDataLoading* data_;  // data.bytes_per_token with jobs declared by tokens
  Spawn spawn_;
  StartReplayed start_replayed_;
  std::function<void(long)> end_replayed_;
  std::function<void(long)> node_back_;
  std::function<void(long)> requeue_replayed_;
  FleetStorage& storage_;
  StorageSystem& storage_system_;
  models::fleet::FleetState& fleet_;
  models::NodePool& pool_;
  Inbox<FleetMessage>& inbox_;
  long& repairs_;
  models::RandomStream repair_times_;
  models::RandomStream victims_;
  long hold_in_ = -1;
};

}  // namespace fleetsim::sim
