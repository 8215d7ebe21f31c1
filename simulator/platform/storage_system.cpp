#include "storage_system.hpp"

#include <algorithm>

namespace fleetsim::sim {

StorageSystem::StorageSystem(sg4::NetZone* zone, const scenario::StorageSpec& spec) : spec_(spec), zone_(zone)
{
  const double write = spec.write_bandwidth.si();
  const double read = spec.read_bandwidth.si() > 0 ? spec.read_bandwidth.si() : write;
  storage_ = zone->create_host("storage", 1e9)->seal();
  if (spec.metadata_rate > 0)
    metadata_ = zone->create_host("storage-metadata", spec.metadata_rate)->seal();
  // The servers' throughput, shared by reads and writes; at its burst rate while burst credit lasts.
  const double total = spec.bandwidth.si() > 0 ? spec.bandwidth.si() : std::max(write, read);
  servers_ = zone->create_link("storage-servers", spec.burst_bandwidth.si() > total ? spec.burst_bandwidth.si() : total)
                 ->seal();
  write_ = zone->create_link("storage-write", write)->seal();
  read_ = zone->create_link("storage-read", read)->seal();
}

int StorageSystem::add_client(const std::string& name, long nodes)
{
  Client c;
  c.host = zone_->create_host("client-" + name, 1e9)->seal();
  std::vector<sg4::LinkInRoute> up{sg4::LinkInRoute(write_), sg4::LinkInRoute(servers_)};
  std::vector<sg4::LinkInRoute> down{sg4::LinkInRoute(servers_), sg4::LinkInRoute(read_)};
  if (spec_.client_bandwidth.si() > 0) {
    // The job's nodes' storage NICs, full duplex: one link of their summed bandwidth.
    auto* nic = zone_->create_split_duplex_link("client-" + name + "-nic",
                                                spec_.client_bandwidth.si() * static_cast<double>(nodes));
    nic->seal();
    up.insert(up.begin(), sg4::LinkInRoute(nic, sg4::LinkInRoute::Direction::UP));
    down.emplace_back(nic, sg4::LinkInRoute::Direction::DOWN);
  }
  zone_->add_route(c.host->get_netpoint(), storage_->get_netpoint(), nullptr, nullptr, up, false);
  zone_->add_route(storage_->get_netpoint(), c.host->get_netpoint(), nullptr, nullptr, down, false);
  clients_.push_back(c);
  return static_cast<int>(clients_.size()) - 1;
}

int StorageSystem::add_reader(const std::string& name, long nodes, double rate)
{
  Client c;
  c.host = zone_->create_host("reader-" + name, 1e9)->seal();
  std::vector<sg4::LinkInRoute> down{sg4::LinkInRoute(servers_), sg4::LinkInRoute(read_)};
  if (spec_.client_bandwidth.si() > 0) {
    sg4::Link* nic =
        zone_->create_link("reader-" + name + "-nic", spec_.client_bandwidth.si() * static_cast<double>(nodes))->seal();
    down.emplace_back(nic);
  }
  down.emplace_back(zone_->create_link("reader-" + name + "-demand", rate)->seal());
  zone_->add_route(storage_->get_netpoint(), c.host->get_netpoint(), nullptr, nullptr, down, false);
  clients_.push_back(c);
  return static_cast<int>(clients_.size()) - 1;
}

sg4::CommPtr StorageSystem::start_transfer(int client, bool write, double bytes)
{
  sg4::Host* c = clients_.at(static_cast<size_t>(client)).host;
  const auto size = static_cast<uint64_t>(bytes);
  sample();
  sg4::CommPtr t = write ? sg4::Comm::sendto_async(c, storage_, size) : sg4::Comm::sendto_async(storage_, c, size);
  moving_.push_back({t, write, static_cast<double>(size)});
  changed();
  return t;
}

void StorageSystem::sample()
{
  const double now = sg4::Engine::get_clock();
  if (samples_ != nullptr && (samples_->empty() || now > sampled_at_)) {
    const double dt = now - sampled_at_;
    StorageSample x;
    x.t = sampled_at_;
    x.capacity_bps = servers_->get_bandwidth();
    x.credit = credit;
    for (Moving& m : moving_) {
      const double left = m.comm->get_remaining();
      const double moved = dt > 0 ? (m.remaining - left) / dt : 0;
      m.remaining = left;
      (m.write ? x.write_bps : x.read_bps) += moved;
    }
    x.servers_bps = x.write_bps + x.read_bps;
    samples_->push_back(x);
  }
  sampled_at_ = now;
}

bool StorageSystem::wait(const sg4::CommPtr& transfer)
{
  bool completed = true;
  try {
    transfer->wait();
  } catch (const simgrid::CancelException&) {
    completed = false;
  } catch (const simgrid::NetworkFailureException&) {  // how SimGrid reports a cancelled transfer
    completed = false;
  }
  sample();
  moving_.erase(std::find_if(moving_.begin(), moving_.end(), [&](const Moving& m) { return m.comm == transfer; }));
  changed();
  return completed;
}

sg4::ExecPtr StorageSystem::start_metadata(double files) const
{
  if (metadata_ == nullptr || files <= 0)
    return nullptr;
  sg4::ExecPtr e = sg4::this_actor::exec_init(files);
  e->set_host(metadata_);
  e->start();
  return e;
}

}  // namespace fleetsim::sim
