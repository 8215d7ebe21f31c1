#pragma once
// Step-level platforms: one SimGrid host per rank, joined by the scale-out fabric.
//
// Non-blocking star (a single switch with full bisection bandwidth):
//
//          [ switch ]            every rank has a split-duplex NIC link (beta each way) with
//        /  |   |   \            latency alpha/2, so a rank-to-rank message crosses two NIC
//      r0  r1  r2 ... rN-1       links: alpha + M/beta, the alpha-beta model's point-to-point
//
// Oversubscribed fat trees, NVLink islands, the Llama 3 Clos preset, rails and tori are the next
// builders (issue 3); they go behind this same interface.

#include <simgrid/s4u.hpp>

#include <vector>

namespace fleetsim::sim {

struct FabricSpec {
  int ranks = 0;
  double nic_bandwidth = 0;  // bytes/s, each direction
  double nic_latency = 0;    // seconds, end to end (alpha)
};

struct Fabric {
  std::vector<simgrid::s4u::Host*> ranks;  // index = rank
};

/// Builds the star in the current Engine. Call once, after the Engine is configured.
Fabric build_star_fabric(const FabricSpec& spec);

}  // namespace fleetsim::sim
