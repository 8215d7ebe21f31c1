#pragma once
// A fleet's shared fabric (network.fleet_fabric: shared, docs/models/fleet.md): the cluster's
// scale-out network at node resolution, as SimGrid links, and every running multi-node job's
// steady traffic on the links of its placement.
//
// The platform: one host per node whose NIC is its GPUs' NICs together (gpus_per_node x
// network.nic_bandwidth), and the levels the topology lays out above it (racks at their
// oversubscription, pods at theirs), built and routed by ClusterZone with ranks = nodes.
//
// A job's traffic: its scale-out collectives (data-parallel rings, pipeline sends, context and
// expert exchanges) as one ring over its nodes in placement order, node i sending to node i + 1,
// each flow a long-lived SimGrid communication as fast as its route allows. Alone on its nodes a
// flow gets the node's NIC; where flows of several jobs (or of one scattered job) cross an
// oversubscribed uplink, SimGrid's max-min sharing divides it. A ring moves at the pace of its
// slowest flow, so a job whose slowest flow gets 1/k of the NIC communicates k times as long, and
// its step takes 1 + f (k - 1) times its isolated step (f = JobSpec::comm_fraction, the step's
// scale-out communication with its overlap held as it is). Flows that cross no uplink cannot be
// shared (a node's NIC is its job's alone) and are not built.
//
// The flows run at full rate all the time a job holds its nodes: the model assumes that the jobs
// sharing a link communicate at the same time (their bursts coincide), the worst case, which a
// flow-by-flow co-simulation of jobs started together reproduces (tests/simulator/fleet_fabric_test.cpp).
//
// The rates: SimGrid does not expose a communication's rate, so the fabric reads each flow's
// remaining bytes when its set of flows changes and again `kMeasure` seconds later (nothing changes
// in between, so the rate is exact), and tells the fleet the jobs' speeds then: a job's speed
// changes 1 ms after the event that changed it.

#include "cluster_zone.hpp"

#include "models/fleet/fleet_state.hpp"
#include "simulator/scenario/scenario.hpp"

#include <simgrid/s4u.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fleetsim::sim {

/// What the fabric carried, per level of the topology (rack, pod), integrated over the window.
struct FabricUse {
  std::string level;       // "rack", "pod"
  double capacity = 0;     // bytes/s, all its uplinks, both directions
  double byte_seconds = 0;  // bytes carried, weighted by the jobs' share of time communicating
};

class FleetFabric {
public:
  static constexpr double kMeasure = 1e-3;  // s between a change and the rates' reading

  /// Builds the node-level fabric as a child zone of `parent` (not yet sealed). `workload`: the
  /// fleet's jobs (their comm_fraction); `horizon`: the window (the flows must outlast it).
  FleetFabric(const scenario::Scenario& s, long nodes, simgrid::s4u::NetZone* parent,
              const models::fleet::Workload& workload, double horizon);

  /// After the fleet's state changed at t: the speeds read since the last call are applied (to the
  /// jobs whose placement did not change since), then the flows follow the placements that changed
  /// (`changed`: FleetState::take_placement_changes()).
  void update(models::fleet::FleetState& fleet, double t, std::vector<long> changed);
  /// When the rates are to be read (kMeasure after the last change), if they are.
  [[nodiscard]] std::optional<double> due() const { return due_; }
  /// Reads every flow's rate since the last change (call at due()); the speeds apply at update().
  void read(double t);
  /// Closes the window's usage integral at t.
  [[nodiscard]] std::vector<FabricUse> use(double t);

  /// Stops every flow (a co-simulation then runs on the same links: tests).
  void stop_all();
  /// A node's host (tests).
  [[nodiscard]] simgrid::s4u::Host* node(long n) const { return zone_->hosts().at(static_cast<size_t>(n)); }
  /// The node NIC's bandwidth (bytes/s, each direction): an unshared flow's rate.
  [[nodiscard]] double nic() const { return nic_; }
  /// The speeds read and not yet applied (update() applies them): the jobs with flows.
  [[nodiscard]] const std::map<long, double>& read_speeds() const { return speeds_; }

private:
  struct Flow {
    simgrid::s4u::CommPtr comm;
    double snapshot = 0;  // remaining bytes at the last change
    long a = 0;           // source and destination nodes
    long b = 0;
  };
  void start_flows(long job, const models::fleet::Placement& p);
  void stop_flows(long job);
  [[nodiscard]] bool crosses(long a, long b) const;
  void accumulate(double t);

  ClusterZone* zone_ = nullptr;
  double nic_ = 0;
  double payload_ = 0;
  std::vector<double> comm_fraction_;  // per job
  std::map<long, std::vector<Flow>> flows_;
  std::map<long, double> speeds_;  // read, not yet applied
  std::optional<double> due_;
  double changed_at_ = 0;
  // Usage: per level, the carried rate since `used_at` (from the last reading).
  std::vector<FabricUse> use_;
  std::vector<double> rate_;
  double used_at_ = 0;
};

}  // namespace fleetsim::sim
