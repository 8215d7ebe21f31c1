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

#include <simgrid/s4u.hpp>

#include <string>
#include <vector>

namespace fleetsim::sim {

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
  // "clos" (above); "rail_optimized": inside a pod, GPU r of every node hangs off rail switch r,
  // so the pod's uplink is split per rail (each (pod, rail) group gets pod_size / gpus_per_node x
  // beta / pod_oversubscription) and cross-rail traffic climbs to the spine; "torus": no switches,
  // every GPU links to its 2 neighbours in each of the torus dimensions (TPU-style ICI), routed
  // dimension by dimension, NVLink and NICs unused.
  std::string topology = "clos";
  std::vector<int> torus_dims;      // product = ranks
  double torus_link_bandwidth = 0;  // bytes/s, each direction of each link
  double torus_hop_latency = 0;     // seconds per hop
  // > 0: a storage host at the core, reached through the rank's NIC and every uplink above it,
  // then one ingress link of this bandwidth shared by all writers (egress: the read bandwidth).
  double storage_write_bandwidth = 0;
  double storage_read_bandwidth = 0;
};

/// Problems with a spec (sizes that do not nest, non-positive bandwidths); empty when buildable.
[[nodiscard]] std::vector<std::string> check_fabric(const FabricSpec& spec);

struct Fabric {
  std::vector<simgrid::s4u::Host*> ranks;  // index = rank
  int pods = 1;
  int racks = 0;                           // racks with an uplink (0 when the rack level is 1:1)
  simgrid::s4u::Host* storage = nullptr;   // when the spec asks for one
};

/// Builds the fabric in the current Engine as its root zone. Call once, after the Engine is
/// configured; check_fabric first.
Fabric build_fabric(const FabricSpec& spec);

}  // namespace fleetsim::sim
