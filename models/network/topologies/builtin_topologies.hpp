#pragma once
// The built-in topologies, one file each; registered by name in topology.cpp.

#include "models/network/topology.hpp"

#include <memory>
#include <string>

namespace fleetsim::models {

[[nodiscard]] std::unique_ptr<Topology> make_clos_topology();
[[nodiscard]] std::unique_ptr<Topology> make_rail_optimized_topology();
[[nodiscard]] std::unique_ptr<Topology> make_torus_topology();

/// "8-GPU NVLink nodes at 450 GB/s, 50 GB/s NIC per GPU (5 us)": what switched fabrics share.
[[nodiscard]] std::string describe_nodes(const FabricSpec& spec);

}  // namespace fleetsim::models
