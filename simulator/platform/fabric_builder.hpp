#pragma once
// Step-level platforms: one SimGrid host per rank, joined by the scale-out fabric.
//
// Pods with full bisection inside, joined by an oversubscribed aggregation layer (Llama 3's
// cluster: 3,072-GPU pods at full bisection, 1:7 between pods). With pod_size = 0, or a pod as
// large as the job, it is a single non-blocking star.
//
//                      [ aggregation ]                       root zone "fabric" (full routing)
//            uplink  /       |       .  uplink               one split-duplex uplink per pod:
//                   /        |        .                      pod_size x beta / oversubscription
//          [pod0 switch] [pod1 switch] ... [podK switch]     each pod a star zone (full bisection)
//           /  |  .        /  |  .           /  |  .
//         r0  r1 ...     ...                 ...  rN-1        rank NIC: beta each way, alpha/2 latency.
//
// A message inside a pod costs alpha + M/beta; between pods it also crosses both pods' uplinks,
// which all the flows leaving (or entering) a pod share.
// NVLink islands, the ToR level, rails and tori are the next builders; they go behind this
// same interface.

#include <simgrid/s4u.hpp>

#include <vector>

namespace fleetsim::sim {

struct FabricSpec {
  int ranks = 0;
  double nic_bandwidth = 0;         // bytes/s, each direction
  double nic_latency = 0;           // seconds, end to end (alpha)
  int pod_size = 0;                 // ranks per pod; 0 = one pod
  double pod_oversubscription = 1;  // pod bandwidth to the aggregation layer is 1/this of its NICs'
  double gpu_flops = 0;             // host speed (FLOP/s): the accelerator's peak
};

struct Fabric {
  std::vector<simgrid::s4u::Host*> ranks;  // index = rank
  int pods = 1;
};

/// Builds the fabric in the current Engine. Call once, after the Engine is configured.
Fabric build_fabric(const FabricSpec& spec);

}  // namespace fleetsim::sim
