#include "platform_builder.hpp"

#include "storage_system.hpp"

namespace fleetsim::sim {

namespace sg4 = simgrid::s4u;

Platform build_platform(const scenario::Scenario& s, const std::vector<StorageClient>& clients,
                        const std::function<void(sg4::NetZone*, StorageSystem&)>& more)
{
  Platform p;
  // A star: each host's own links up and down (a storage client's NIC, the storage's caps), no
  // route table over every pair of hosts (a full zone's grows with the square of the clients).
  auto* zone = sg4::create_star_zone("fleet");
  p.control = zone->create_host("control", 1e9)->seal();
  p.storage = std::make_shared<StorageSystem>(zone, s.storage);
  for (const StorageClient& c : clients)
    p.storage->add_client(c.name, c.nodes);
  if (more)
    more(zone, *p.storage);
  zone->seal();
  return p;
}

}  // namespace fleetsim::sim
