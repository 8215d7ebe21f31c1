#include "fabric_builder.hpp"

#include <algorithm>
#include <string>

namespace fleetsim::sim {

namespace sg4 = simgrid::s4u;
using NetPoint = simgrid::kernel::routing::NetPoint;

namespace {

// A star zone holding ranks [first, last); its ranks reach the outside through `gateway`.
sg4::NetZone* build_pod(const FabricSpec& spec, int pod, int first, int last, Fabric& f,
                        sg4::NetZone* parent, NetPoint** gateway)
{
  auto* zone = sg4::create_star_zone("pod" + std::to_string(pod));
  if (parent != nullptr)
    zone->set_parent(parent);
  for (int r = first; r < last; ++r) {
    const std::string name = "rank" + std::to_string(r);
    // Hosts run at the accelerator's peak: the step simulation will spend compute on them.
    sg4::Host* host = zone->create_host(name, spec.gpu_flops)->seal();
    sg4::SplitDuplexLink* nic = zone->create_split_duplex_link(name + "-nic", spec.nic_bandwidth);
    nic->set_latency(spec.nic_latency / 2);
    nic->seal();
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                    {sg4::LinkInRoute(nic, sg4::LinkInRoute::Direction::UP)}, true);
    f.ranks.push_back(host);
  }
  if (parent != nullptr) {
    // The pod's uplink: traffic leaving the pod uses one direction, entering traffic the other.
    const double capacity = spec.pod_size * spec.nic_bandwidth / spec.pod_oversubscription;
    auto* router = zone->create_router("pod" + std::to_string(pod) + "-switch");
    sg4::SplitDuplexLink* up = zone->create_split_duplex_link("pod" + std::to_string(pod) + "-uplink", capacity);
    up->seal();
    zone->add_route(router, nullptr, nullptr, nullptr, {sg4::LinkInRoute(up, sg4::LinkInRoute::Direction::UP)},
                    true);
    *gateway = router;
  }
  zone->seal();
  return zone;
}

}  // namespace

Fabric build_fabric(const FabricSpec& spec)
{
  Fabric f;
  f.ranks.reserve(static_cast<size_t>(spec.ranks));
  if (spec.pod_size <= 0 || spec.pod_size >= spec.ranks) {
    build_pod(spec, 0, 0, spec.ranks, f, nullptr, nullptr);
    return f;
  }
  auto* root = sg4::create_full_zone("fabric");
  auto* aggregation = root->create_link("aggregation", 1e18)
                          ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)
                          ->seal();
  std::vector<std::pair<sg4::NetZone*, NetPoint*>> pods;
  for (int first = 0, pod = 0; first < spec.ranks; first += spec.pod_size, ++pod) {
    NetPoint* gateway = nullptr;
    auto* zone = build_pod(spec, pod, first, std::min(spec.ranks, first + spec.pod_size), f, root, &gateway);
    pods.emplace_back(zone, gateway);
  }
  for (size_t a = 0; a < pods.size(); ++a)
    for (size_t b = a + 1; b < pods.size(); ++b)
      root->add_route(pods[a].first->get_netpoint(), pods[b].first->get_netpoint(), pods[a].second,
                      pods[b].second, {sg4::LinkInRoute(aggregation)}, true);
  root->seal();
  f.pods = static_cast<int>(pods.size());
  return f;
}

}  // namespace fleetsim::sim
