#include "fabric_builder.hpp"

#include <string>

namespace fleetsim::sim {

namespace sg4 = simgrid::s4u;

Fabric build_star_fabric(const FabricSpec& spec)
{
  Fabric f;
  f.ranks.reserve(static_cast<size_t>(spec.ranks));
  auto* zone = sg4::create_star_zone("fabric");
  for (int r = 0; r < spec.ranks; ++r) {
    const std::string name = "rank" + std::to_string(r);
    // 989 TFLOP/s hosts: the step simulation spends compute on them in a later slice.
    sg4::Host* host = zone->create_host(name, 989e12)->seal();
    sg4::SplitDuplexLink* nic = zone->create_split_duplex_link(name + "-nic", spec.nic_bandwidth);
    nic->set_latency(spec.nic_latency / 2);
    nic->seal();
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                    {sg4::LinkInRoute(nic, sg4::LinkInRoute::Direction::UP)}, true);
    f.ranks.push_back(host);
  }
  zone->seal();
  return f;
}

}  // namespace fleetsim::sim
