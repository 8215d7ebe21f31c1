#pragma once
// Step-level platforms: one SimGrid host per GPU, NVLink islands per node, and a scale-out Clos
// fabric whose levels (rack / ToR, pod) each have their own oversubscription.
//
//                      [ aggregation ]                        non-blocking core
//            uplink  /       |       .  uplink                pod uplink: pod_size x beta / pod_oversub
//          [ pod 0 ]     [ pod 1 ]  ...  [ pod K ]            full bisection inside a pod unless the
//           /  |  .        /  |  .                            rack level is oversubscribed
//      [rack] [rack] ...                                      rack uplink: rack_size x beta / rack_oversub
//       /  \   (two nodes)
//   [node][node]                                              node: gpus_per_node GPUs on NVLink
//   r0..r7 r8..r15                                            rank NIC: beta each way, alpha/2 latency
//
// Llama 3's cluster ([L3] section 3.3.1) is gpus_per_node 8, rack_size 16 at 1:1, pod_size 3,072 at
// 1:1 inside and 1:7 to the aggregation layer. A message inside a node costs nvlink_alpha +
// M/nvlink_beta; between nodes alpha + M/beta, plus the shares of every group uplink it crosses.
// A level at 1:1 cannot be a bottleneck in a flow-level model (its uplink carries at most what its
// NICs can send), so racks at 1:1 add no links; pods always do, so that the pod count is visible.

#include "models/network/topology.hpp"

#include <simgrid/s4u.hpp>

#include <string>
#include <vector>

namespace fleetsim::sim {

/// The fabric's spec (models/network/topology.hpp): sizes, bandwidths, and the registered topology that lays
/// it out ("clos" above, "rail_optimized", "torus").
using models::FabricSpec;

/// Problems with a spec (sizes that do not nest, non-positive bandwidths); empty when buildable.
[[nodiscard]] std::vector<std::string> check_fabric(const FabricSpec& spec);

struct Fabric {
  std::vector<simgrid::s4u::Host*> ranks;  // index = rank
  int pods = 1;
  int racks = 0;                          // racks with an uplink (0 when the rack level is 1:1)
  simgrid::s4u::Host* storage = nullptr;  // when the spec asks for one
  models::FabricLayout layout;            // what the topology made of the spec
};

/// Builds the fabric in the current Engine as its root zone. Call once, after the Engine is
/// configured; check_fabric first.
Fabric build_fabric(const FabricSpec& spec);

}  // namespace fleetsim::sim
