#include "platform_builder.hpp"

namespace fleetsim::sim {

namespace sg4 = simgrid::s4u;

Platform build_platform(const scenario::Scenario& s)
{
  Platform p;
  auto* zone = sg4::create_full_zone("fleet");
  p.control = zone->create_host("control", 1e9)->seal();
  p.storage = zone->create_host("storage", 1e9)->seal();
  p.checkpoint_store = p.storage->create_disk("checkpoint-store", s.storage.read_bandwidth.si(),
                                              s.storage.write_bandwidth.si());
  p.checkpoint_store->seal();
  zone->seal();
  return p;
}

}  // namespace fleetsim::sim
