#pragma once
// Step-level fabric topologies: how the scenario's network.topology lays the GPUs' scale-out
// network out, as one interface with one file per topology (models/network/topologies/*.cpp) and a registry
// that maps the scenario value to it. A topology is pure: from the fabric's spec it gives the
// aggregation levels above the node (racks, pods, rails) or a torus, which ClusterZone
// (simulator/platform/cluster_zone.hpp) builds and routes in SimGrid.
//
// To add a topology: a file in models/network/topologies/ with a class deriving from Topology, one line in
// registry() (topology.cpp) or register_topology() from outside the simulator's sources; its tests;
// its paragraph in docs/extending.md.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim::models {

struct FabricSpec {
  int ranks = 0;
  double nic_bandwidth = 0;         // bytes/s, each direction
  double nic_latency = 0;           // seconds, end to end (alpha)
  int pod_size = 0;                 // ranks per pod; 0 = one pod
  double pod_oversubscription = 1;  // pod bandwidth to the aggregation layer is 1/this of its NICs'
  double gpu_flops = 0;             // host speed (FLOP/s): the accelerator's peak
  int gpus_per_node = 1;            // NVLink island size; 1 = no NVLink
  double nvlink_bandwidth = 0;      // bytes/s per GPU, each direction
  double nvlink_latency = 0;        // seconds, end to end
  int rack_size = 0;                // ranks per rack (one ToR switch); 0 = no rack level
  double rack_oversubscription = 1;
  std::string topology = "clos";    // a registered topology's name
  std::vector<int> torus_dims;      // product = ranks
  double torus_link_bandwidth = 0;  // bytes/s, each direction of each link
  double torus_hop_latency = 0;     // seconds per hop
  // > 0: a storage host at the core, reached through the rank's NIC and every uplink above it,
  // then one ingress link of this bandwidth shared by all writers (egress: the read bandwidth).
  double storage_write_bandwidth = 0;
  double storage_read_bandwidth = 0;
};

/// One aggregation level: groups of `size` consecutive ranks sharing an uplink of `capacity` each
/// way. A rail level splits each group further by the GPU's index in its node (rail r of every
/// node in the group shares one leaf switch).
struct FabricLevel {
  int size = 0;
  double capacity = 0;  // bytes/s
  std::string name;     // "rack", "pod", "rail": link names are <name><group>-uplink
  bool rail = false;
};

/// What a topology makes of a spec.
struct FabricLayout {
  std::vector<FabricLevel> levels;  // innermost first; empty for a torus
  bool torus = false;               // no switches: every rank links to its neighbours (spec.torus_*)
  int pods = 1;
  int racks = 0;  // racks with an uplink (0 when the rack level is 1:1)
};

class Topology {
public:
  virtual ~Topology() = default;
  /// This topology's problems with the spec, after the checks every fabric gets; empty when buildable.
  [[nodiscard]] virtual std::vector<std::string> check(const FabricSpec& /*spec*/) const { return {}; }
  [[nodiscard]] virtual FabricLayout lay_out(const FabricSpec& spec) const = 0;
  /// The fabric in one line, for terminal output ("8-GPU NVLink nodes at ..., 6 pods of 3072 GPUs at 1:7").
  [[nodiscard]] virtual std::string describe(const FabricSpec& spec, const FabricLayout& layout) const = 0;
  /// False when the GPUs' NVLink and NICs are not the network (a torus): collectives are then
  /// predicted per hop on the topology's own links.
  [[nodiscard]] virtual bool switched() const { return true; }
};

[[nodiscard]] const Topology* find_topology(std::string_view name);
/// Every topology's name, built-ins first.
[[nodiscard]] std::vector<std::string> topology_names();
/// Adds a topology (at static initialisation); false when the name is taken.
bool register_topology(std::string name, std::unique_ptr<Topology> topology);

}  // namespace fleetsim::models
