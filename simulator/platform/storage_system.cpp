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
  // Into the storage: its write cap, then the servers; out of it: the servers, then its read cap.
  zone->add_route(nullptr, storage_->get_netpoint(), nullptr, nullptr,
                  {sg4::LinkInRoute(write_), sg4::LinkInRoute(servers_)}, false);
  zone->add_route(storage_->get_netpoint(), nullptr, nullptr, nullptr,
                  {sg4::LinkInRoute(servers_), sg4::LinkInRoute(read_)}, false);
}

int StorageSystem::add_client(const std::string& name, long nodes)
{
  Client c;
  c.host = zone_->create_host("client-" + name, 1e9)->seal();
  std::vector<sg4::LinkInRoute> up;
  std::vector<sg4::LinkInRoute> down;
  if (spec_.client_bandwidth.si() > 0) {
    // The job's nodes' storage NICs, full duplex: one link of their summed bandwidth.
    auto* nic = zone_->create_split_duplex_link("client-" + name + "-nic",
                                                spec_.client_bandwidth.si() * static_cast<double>(nodes));
    nic->seal();
    up.emplace_back(nic, sg4::LinkInRoute::Direction::UP);
    down.emplace_back(nic, sg4::LinkInRoute::Direction::DOWN);
  }
  // A star (the storage's zone): client -> storage is the client's links up and then the storage's
  // down, storage -> client the storage's up and then the client's down.
  zone_->add_route(c.host->get_netpoint(), nullptr, nullptr, nullptr, up, false);
  zone_->add_route(nullptr, c.host->get_netpoint(), nullptr, nullptr, down, false);
  clients_.push_back(c);
  return static_cast<int>(clients_.size()) - 1;
}

int StorageSystem::add_reader(const std::string& name, long nodes, double rate)
{
  Client c;
  c.host = zone_->create_host("reader-" + name, 1e9)->seal();
  std::vector<sg4::LinkInRoute> down;
  if (spec_.client_bandwidth.si() > 0) {
    sg4::Link* nic =
        zone_->create_link("reader-" + name + "-nic", spec_.client_bandwidth.si() * static_cast<double>(nodes))->seal();
    down.emplace_back(nic);
  }
  down.emplace_back(zone_->create_link("reader-" + name + "-demand", rate)->seal());
  zone_->add_route(nullptr, c.host->get_netpoint(), nullptr, nullptr, down, false);
  clients_.push_back(c);
  return static_cast<int>(clients_.size()) - 1;
}

sg4::CommPtr StorageSystem::start_transfer(int client, bool write, double bytes)
{
  sg4::Host* c = clients_.at(static_cast<size_t>(client)).host;
  const auto size = static_cast<uint64_t>(bytes);
  sample(client);
  sg4::CommPtr t = write ? sg4::Comm::sendto_async(c, storage_, size) : sg4::Comm::sendto_async(storage_, c, size);
  moving_.push_back({t, write, static_cast<double>(size), client});
  changed();
  return t;
}

void StorageSystem::record_client(int client, std::vector<StorageSample>* samples)
{
  Client& c = clients_.at(static_cast<size_t>(client));
  c.series = samples;
  c.open = {};
  c.open.t = sg4::Engine::get_clock();
  c.open.capacity_bps = servers_->get_bandwidth();
  c.open.credit = credit;
  c.open_idle = true;
  c.fresh = true;
  c.open_end = c.open.t;
  // The servers' bytes until now: the record's, and what the transfers in flight moved since.
  double since = 0;
  for (const Moving& m : moving_)
    since += m.remaining - m.comm->get_remaining();
  c.mark = {samples_taken_, servers_bytes_ + since};
  c.open_mark = c.mark;
}

void StorageSystem::stop_recording(int client)
{
  Client& c = clients_.at(static_cast<size_t>(client));
  if (c.series != nullptr && !c.fresh)
    c.series->push_back(c.open);
  c.series = nullptr;
}

void StorageSystem::sample(int changer)
{
  const double now = sg4::Engine::get_clock();
  const bool global = samples_ != nullptr && (samples_->empty() || now > sampled_at_);
  Client* const own = changer >= 0 && clients_[static_cast<size_t>(changer)].series != nullptr
                          ? &clients_[static_cast<size_t>(changer)]
                          : nullptr;
  // A span of no length is sampled again only for a client whose row must close now: its first,
  // or one it has not closed at this instant (idle until now, it starts a transfer just after
  // another client did).
  if (!global && now <= sampled_at_ && (own == nullptr || (!own->fresh && own->open_end >= now))) {
    sampled_at_ = now;
    return;
  }
  const double dt = now - sampled_at_;
  StorageSample x;
  x.t = sampled_at_;
  x.capacity_bps = servers_->get_bandwidth();
  x.credit = credit;
  touched_.clear();
  for (Moving& m : moving_) {
    const double left = m.comm->get_remaining();
    const double moved = dt > 0 ? (m.remaining - left) / dt : 0;
    m.remaining = left;
    (m.write ? x.write_bps : x.read_bps) += moved;
    // (A span of no length sampled only for a client's first row is no row of the others'.)
    if (Client& c = clients_[static_cast<size_t>(m.client)]; c.series != nullptr && (dt > 0 || global)) {
      if (!c.moved) {
        c.moved = true;
        c.write = c.read = 0;
        touched_.push_back(m.client);
      }
      (m.write ? c.write : c.read) += moved;
    }
  }
  x.servers_bps = x.write_bps + x.read_bps;
  servers_bytes_ += x.servers_bps * dt;
  ++samples_taken_;
  if (global)
    samples_->push_back(x);
  if (own != nullptr && !own->moved)
    touched_.push_back(changer);
  for (const int c : touched_)
    close_row(clients_[static_cast<size_t>(c)], x, now);
  sampled_at_ = now;
}

void StorageSystem::close_row(Client& c, const StorageSample& x, double now)
{
  const bool moved = c.moved;
  c.moved = false;
  // An idle row's servers figures are their mean since it began (the span's own if it is one span).
  const auto idle_servers = [&](double from, const Mark& m) {
    return samples_taken_ - m.samples == 1 || now <= from ? x.servers_bps : (servers_bytes_ - m.bytes) / (now - from);
  };
  if (!moved && c.open_idle) {  // its idle stretch goes on until now
    c.open.servers_bps = idle_servers(c.open.t, c.open_mark);
    c.open.capacity_bps = x.capacity_bps;
    c.open.credit = x.credit;
  } else {
    c.series->push_back(c.open);
    c.open = x;
    if (moved) {
      c.open.write_bps = c.write;
      c.open.read_bps = c.read;
    } else {  // idle since its last change
      c.open.t = c.open_end;
      c.open.write_bps = c.open.read_bps = 0;
      c.open.servers_bps = idle_servers(c.open_end, c.mark);
      c.open_mark = c.mark;
    }
    c.open_idle = !moved;
  }
  c.fresh = false;
  c.open_end = now;
  c.mark = {samples_taken_, servers_bytes_};
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
  const auto it = std::find_if(moving_.begin(), moving_.end(), [&](const Moving& m) { return m.comm == transfer; });
  sample(it->client);  // (sample() leaves moving_ as it is)
  moving_.erase(it);
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
