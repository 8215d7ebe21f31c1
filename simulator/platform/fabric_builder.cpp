#include "fabric_builder.hpp"

#include "cluster_zone.hpp"

#include <string>

namespace fleetsim::sim {

std::vector<std::string> check_fabric(const FabricSpec& spec)
{
  std::vector<std::string> out;
  if (spec.ranks <= 0)
    out.push_back("the fabric needs at least one rank");
  if (!(spec.nic_bandwidth > 0) || !(spec.gpu_flops > 0))
    out.push_back("NIC bandwidth and GPU speed must be positive");
  if (spec.gpus_per_node < 1)
    out.push_back("gpus per node must be at least 1");
  if (spec.gpus_per_node > 1 && !(spec.nvlink_bandwidth > 0))
    out.push_back("NVLink bandwidth must be positive with more than one GPU per node");
  if (spec.rack_size > 0 && spec.rack_size % spec.gpus_per_node != 0)
    out.push_back("a rack (" + std::to_string(spec.rack_size) + " GPUs) must hold whole nodes of " +
                  std::to_string(spec.gpus_per_node));
  const int inner = spec.rack_size > 0 ? spec.rack_size : spec.gpus_per_node;
  if (spec.pod_size > 0 && spec.pod_size % inner != 0)
    out.push_back("a pod (" + std::to_string(spec.pod_size) + " GPUs) must hold whole " +
                  (spec.rack_size > 0 ? "racks of " : "nodes of ") + std::to_string(inner));
  if (spec.pod_oversubscription < 1 || spec.rack_oversubscription < 1)
    out.push_back("oversubscription must be at least 1");
  if (const models::Topology* topology = models::find_topology(spec.topology)) {
    for (auto& problem : topology->check(spec))
      out.push_back(std::move(problem));
  } else {
    out.push_back("unknown topology '" + spec.topology + "'");
  }
  return out;
}

Fabric build_fabric(const FabricSpec& spec)
{
  ClusterLayout layout;
  layout.ranks = spec.ranks;
  layout.gpu_flops = spec.gpu_flops;
  layout.nic_bandwidth = spec.nic_bandwidth;
  layout.nic_latency = spec.nic_latency;
  layout.gpus_per_node = spec.gpus_per_node;
  layout.nvlink_bandwidth = spec.nvlink_bandwidth;
  layout.nvlink_latency = spec.nvlink_latency;
  layout.storage_write_bandwidth = spec.storage_write_bandwidth;
  layout.storage_read_bandwidth = spec.storage_read_bandwidth;
  // The topology lays the levels above the node out (models/network/topologies/); the zone builds and routes them.
  const models::FabricLayout laid = models::find_topology(spec.topology)->lay_out(spec);
  for (const auto& level : laid.levels)
    layout.levels.push_back({level.size, level.capacity, level.name, level.rail});
  if (laid.torus) {
    layout.topology = ClusterTopology::Torus;
    layout.torus_dims = spec.torus_dims;
    layout.torus_link_bandwidth = spec.torus_link_bandwidth;
    layout.torus_hop_latency = spec.torus_hop_latency;
  }
  Fabric f;
  f.pods = laid.pods;
  f.racks = laid.racks;
  f.layout = laid;
  // The Engine owns the root zone and deletes it at the end of the simulation.
  auto* zone = new ClusterZone("cluster");  // NOLINT(cppcoreguidelines-owning-memory)
  zone->build(layout);
  f.ranks = zone->hosts();
  f.storage = zone->storage();
  return f;
}

}  // namespace fleetsim::sim
