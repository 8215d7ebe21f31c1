#include "cluster_zone.hpp"

#include <simgrid/kernel/routing/NetPoint.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace fleetsim::sim {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::resource::StandardLinkImpl;
using simgrid::kernel::routing::NetPoint;
using simgrid::kernel::routing::Route;

ClusterZone::Port ClusterZone::make_port(const std::string& name, double bandwidth, double latency)
{
  sg4::SplitDuplexLink* link = get_iface()->create_split_duplex_link(name, bandwidth);
  link->set_latency(latency);
  link->seal();
  return Port{link->get_link_up()->get_impl(), link->get_link_down()->get_impl(), latency};
}

int ClusterZone::group_of(size_t level, int rank) const
{
  const ClusterLevel& l = layout_.levels[level];
  if (!l.rail)
    return rank / l.size;
  const int g = std::max(1, layout_.gpus_per_node);
  return (rank / l.size) * g + rank % g;
}

void ClusterZone::build_torus()
{
  const auto& dims = layout_.torus_dims;
  torus_.resize(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] < 2)
      continue;  // a dimension of size 1 has no links
    for (int r = 0; r < layout_.ranks; ++r)
      torus_[d].push_back(make_port("rank" + std::to_string(r) + "-" + static_cast<char>('x' + d) + "plus",
                                    layout_.torus_link_bandwidth, layout_.torus_hop_latency));
  }
}

void ClusterZone::torus_route(int a, int b, Route* into, double* latency) const
{
  const auto& dims = layout_.torus_dims;
  int stride = 1;
  int cur = a;
  for (size_t d = 0; d < dims.size(); ++d) {
    const int size = dims[d];
    const int ca = (cur / stride) % size;
    const int cb = (b / stride) % size;
    const int forward = ((cb - ca) % size + size) % size;
    if (forward <= size - forward) {  // ties go the + way
      for (int k = 0; k < forward; ++k) {
        const auto& port = torus_[d][static_cast<size_t>(cur)];
        push(into, latency, port.up, port.latency);
        cur += ((cur / stride) % size == size - 1) ? -(size - 1) * stride : stride;
      }
    } else {
      for (int k = 0; k < size - forward; ++k) {
        const int prev = ((cur / stride) % size == 0) ? cur + (size - 1) * stride : cur - stride;
        const auto& port = torus_[d][static_cast<size_t>(prev)];
        push(into, latency, port.down, port.latency);
        cur = prev;
      }
    }
    stride *= size;
  }
}

void ClusterZone::build(const ClusterLayout& layout)
{
  layout_ = layout;
  const auto n = static_cast<size_t>(layout.ranks);
  hosts_.reserve(n);
  nic_.reserve(n);
  for (int r = 0; r < layout.ranks; ++r) {
    const std::string name = "rank" + std::to_string(r);
    sg4::Host* host = get_iface()->create_host(name, layout.gpu_flops)->seal();
    const auto id = static_cast<size_t>(host->get_netpoint()->id());
    if (rank_of_id_.size() <= id)
      rank_of_id_.resize(id + 1, -1);
    rank_of_id_[id] = r;
    hosts_.push_back(host);
    if (layout.topology == ClusterTopology::Torus)
      continue;  // the torus links are the interconnect
    // The NIC's latency is split over its two ends: a message pays alpha once, end to end.
    nic_.push_back(make_port(name + "-nic", layout.nic_bandwidth, layout.nic_latency / 2));
    if (layout.gpus_per_node > 1 && layout.nvlink_bandwidth > 0)
      nvlink_.push_back(make_port(name + "-nvlink", layout.nvlink_bandwidth, layout.nvlink_latency / 2));
  }
  if (layout.storage_write_bandwidth > 0) {
    // The storage service hangs off the core: a write climbs every level of its rank's fabric,
    // then shares the storage ingress with every other writer. Two links, since the service's read
    // and write bandwidths differ.
    storage_ = get_iface()->create_host("storage", layout.gpu_flops)->seal();
    storage_id_ = static_cast<int>(storage_->get_netpoint()->id());
    sg4::Link* in = get_iface()
                        ->create_link("storage-ingress", layout.storage_write_bandwidth)
                        ->set_latency(layout.nic_latency / 2)
                        ->seal();
    sg4::Link* out = get_iface()
                         ->create_link("storage-egress", layout.storage_read_bandwidth > 0
                                                             ? layout.storage_read_bandwidth
                                                             : layout.storage_write_bandwidth)
                         ->set_latency(layout.nic_latency / 2)
                         ->seal();
    // The storage end of a route carries the other half of alpha, as a rank's NIC does: SimGrid's
    // CM02 shares a link in inverse proportion to route latency (TCP's RTT unfairness), so equal
    // end-to-end latencies keep checkpoint and training flows sharing NICs and uplinks equally.
    storage_port_ = Port{in->get_impl(), out->get_impl(), layout.nic_latency / 2};
  }
  if (layout.topology == ClusterTopology::Torus) {
    long product = 1;
    for (int d : layout.torus_dims)
      product *= d;
    if (product != layout.ranks)
      throw std::invalid_argument("torus dimensions do not multiply to the rank count");
    build_torus();
    seal();
    return;
  }
  uplinks_.resize(layout.levels.size());
  for (size_t l = 0; l < layout.levels.size(); ++l) {
    const ClusterLevel& level = layout.levels[l];
    if (level.size <= 0)
      throw std::invalid_argument("cluster level size must be positive");
    int groups = (layout.ranks + level.size - 1) / level.size;
    if (level.rail)
      groups *= std::max(1, layout.gpus_per_node);
    for (int g = 0; g < groups; ++g)
      uplinks_[l].push_back(make_port(level.name + std::to_string(g) + "-uplink", level.capacity, 0.0));
  }
  seal();
}

void ClusterZone::push(Route* into, double* latency, StandardLinkImpl* link, double link_latency)
{
  into->link_list_.push_back(link);
  if (latency != nullptr)
    *latency += link_latency;
}

void ClusterZone::route_to_core(int rank, bool up, Route* into, double* latency) const
{
  // On a torus the storage network is separate: only the storage links count.
  if (layout_.topology == ClusterTopology::Torus)
    return;
  const auto r = static_cast<size_t>(rank);
  if (up) {
    push(into, latency, nic_[r].up, nic_[r].latency);
    for (size_t l = 0; l < layout_.levels.size(); ++l) {
      const auto& port = uplinks_[l][static_cast<size_t>(group_of(l, rank))];
      push(into, latency, port.up, port.latency);
    }
  } else {
    for (size_t l = layout_.levels.size(); l-- > 0;) {
      const auto& port = uplinks_[l][static_cast<size_t>(group_of(l, rank))];
      push(into, latency, port.down, port.latency);
    }
    push(into, latency, nic_[r].down, nic_[r].latency);
  }
}

void ClusterZone::get_local_route(const NetPoint* src, const NetPoint* dst, Route* into, double* latency)
{
  if (storage_ != nullptr &&
      (static_cast<int>(src->id()) == storage_id_ || static_cast<int>(dst->id()) == storage_id_)) {
    if (src == dst)
      return;
    if (static_cast<int>(dst->id()) == storage_id_) {
      route_to_core(rank_of_id_.at(src->id()), true, into, latency);
      push(into, latency, storage_port_.up, storage_port_.latency);
    } else {
      push(into, latency, storage_port_.down, storage_port_.latency);
      route_to_core(rank_of_id_.at(dst->id()), false, into, latency);
    }
    return;
  }
  const int a = rank_of_id_.at(src->id());
  const int b = rank_of_id_.at(dst->id());
  if (a < 0 || b < 0)
    throw std::logic_error("ClusterZone routes between its ranks only");
  if (a == b)
    return;  // no self-traffic in a collective; an empty route costs nothing
  if (layout_.topology == ClusterTopology::Torus) {
    torus_route(a, b, into, latency);
    return;
  }
  const auto ua = static_cast<size_t>(a);
  const auto ub = static_cast<size_t>(b);
  if (!nvlink_.empty() && a / layout_.gpus_per_node == b / layout_.gpus_per_node) {
    push(into, latency, nvlink_[ua].up, nvlink_[ua].latency);
    push(into, latency, nvlink_[ub].down, nvlink_[ub].latency);
    return;
  }
  push(into, latency, nic_[ua].up, nic_[ua].latency);
  // Climb while the two ranks are in different groups; the outermost differing level is where
  // the route turns, so every level below it is crossed on both sides.
  size_t climb = 0;
  for (size_t l = 0; l < layout_.levels.size(); ++l)
    if (group_of(l, a) != group_of(l, b))
      climb = l + 1;
  for (size_t l = 0; l < climb; ++l) {
    const auto& port = uplinks_[l][static_cast<size_t>(group_of(l, a))];
    push(into, latency, port.up, port.latency);
  }
  for (size_t l = climb; l-- > 0;) {
    const auto& port = uplinks_[l][static_cast<size_t>(group_of(l, b))];
    push(into, latency, port.down, port.latency);
  }
  push(into, latency, nic_[ub].down, nic_[ub].latency);
}

}  // namespace fleetsim::sim
