#include "fleet_fabric.hpp"

#include "models/fleet/shared_speed.hpp"
#include "models/network/topology.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::sim {

namespace sg4 = simgrid::s4u;
namespace mf = models::fleet;

namespace {

// The cluster's fabric with nodes as ranks: each node's NIC is its GPUs' together.
models::FabricSpec node_spec(const scenario::Scenario& s, long nodes)
{
  const int gpn = s.fleet.gpus_per_node;
  models::FabricSpec f;
  f.ranks = static_cast<int>(nodes);
  f.nic_bandwidth = gpn * s.step.fabric.nic_bandwidth.si();
  f.gpu_flops = 1e9;  // (no computation runs on these hosts)
  f.gpus_per_node = 1;
  f.rack_size = std::max(1, s.fleet.gpus_per_rack / gpn);
  f.rack_oversubscription = s.fabric.rack_oversubscription;
  f.pod_size = static_cast<int>(s.fabric.pod_size / gpn);
  f.pod_oversubscription = s.fabric.pod_oversubscription;
  f.topology = s.fabric.topology;
  return f;
}

}  // namespace

FleetFabric::FleetFabric(const scenario::Scenario& s, long nodes, sg4::NetZone* parent, const mf::Workload& workload,
                         double horizon)
{
  const models::FabricSpec spec = node_spec(s, nodes);
  const models::FabricLayout laid = models::find_topology(spec.topology)->lay_out(spec);
  ClusterLayout layout;
  layout.ranks = spec.ranks;
  layout.gpu_flops = spec.gpu_flops;
  layout.nic_bandwidth = spec.nic_bandwidth;
  for (const auto& level : laid.levels)
    layout.levels.push_back({level.size, level.capacity, level.name, level.rail});
  // The Engine owns the zone and deletes it at the end of the simulation.
  zone_ = new ClusterZone("fleet-fabric");  // NOLINT(cppcoreguidelines-owning-memory)
  zone_->get_iface()->set_parent(parent);
  zone_->build(layout);
  nic_ = spec.nic_bandwidth;
  // A flow never ends within the window: it moves at most nic_ bytes a second.
  payload_ = 2 * nic_ * (horizon + 1);
  comm_fraction_.reserve(workload.size());
  for (const mf::JobSpec& j : workload)
    comm_fraction_.push_back(j.replayed ? 0.0 : j.comm_fraction);
  for (const ClusterLevel& level : layout.levels) {
    const int groups = (layout.ranks + level.size - 1) / level.size;
    use_.push_back({level.name, 2 * groups * level.capacity, 0});
  }
  rate_.assign(use_.size(), 0.0);
}

bool FleetFabric::crosses(long a, long b) const
{
  for (size_t l = 0; l < zone_->layout().levels.size(); ++l)
    if (zone_->group_of(l, static_cast<int>(a)) != zone_->group_of(l, static_cast<int>(b)))
      return true;
  return false;
}

void FleetFabric::start_flows(long job, const mf::Placement& p)
{
  const size_t n = p.parts.size();
  if (n < 2 || !(comm_fraction_.at(static_cast<size_t>(job)) > 0))
    return;
  std::vector<Flow> flows;
  for (size_t i = 0; i < n; ++i) {
    const long a = p.parts[i].first;
    const long b = p.parts[(i + 1) % n].first;
    if (!crosses(a, b))
      continue;  // its NICs are the job's alone: at full rate whatever the others do
    Flow f;
    f.a = a;
    f.b = b;
    f.comm = sg4::Comm::sendto_init();
    f.comm->set_source(node(a));
    f.comm->set_destination(node(b));
    f.comm->set_payload_size(static_cast<uint64_t>(payload_));
    f.comm->start();
    flows.push_back(std::move(f));
  }
  if (!flows.empty())
    flows_[job] = std::move(flows);
}

void FleetFabric::stop_flows(long job)
{
  const auto it = flows_.find(job);
  if (it == flows_.end())
    return;
  for (Flow& f : it->second)
    f.comm->cancel();
  flows_.erase(it);
}

void FleetFabric::stop_all()
{
  while (!flows_.empty())
    stop_flows(flows_.begin()->first);
  due_.reset();
}

void FleetFabric::update(mf::FleetState& fleet, double t, std::vector<long> changed)
{
  std::sort(changed.begin(), changed.end());
  changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
  for (const auto& [job, speed] : speeds_)
    if (!std::binary_search(changed.begin(), changed.end(), job))
      fleet.set_speed(job, speed, t);
  speeds_.clear();
  bool moved = false;
  for (long job : changed) {
    moved = moved || flows_.count(job) > 0;
    stop_flows(job);
    start_flows(job, fleet.placement_of(job));
    moved = moved || flows_.count(job) > 0;
  }
  if (!moved)
    return;
  accumulate(t);
  for (auto& [job, flows] : flows_)
    for (Flow& f : flows)
      f.snapshot = f.comm->get_remaining();
  changed_at_ = t;
  due_ = t + kMeasure;
}

void FleetFabric::read(double t)
{
  due_.reset();
  const double dt = t - changed_at_;
  if (!(dt > 0))
    return;
  std::fill(rate_.begin(), rate_.end(), 0.0);
  const auto& levels = zone_->layout().levels;
  for (auto& [job, flows] : flows_) {
    double slowest = nic_;
    std::vector<double> rates;
    rates.reserve(flows.size());
    for (Flow& f : flows) {
      const double rate = (f.snapshot - f.comm->get_remaining()) / dt;
      rates.push_back(rate);
      slowest = std::min(slowest, rate);
    }
    const double fc = comm_fraction_[static_cast<size_t>(job)];
    speeds_[job] = 1 / mf::fabric_slowdown(nic_, slowest, fc);
    // The fabric's use: each flow carries its rate while the job communicates.
    const double duty = mf::communicating_share(nic_, slowest, fc);
    for (size_t i = 0; i < flows.size(); ++i)
      for (size_t l = 0; l < levels.size(); ++l)
        if (zone_->group_of(l, static_cast<int>(flows[i].a)) != zone_->group_of(l, static_cast<int>(flows[i].b)))
          rate_[l] += 2 * rates[i] * duty;  // up its source's uplink, down its destination's
  }
  used_at_ = t;
}

void FleetFabric::accumulate(double t)
{
  for (size_t l = 0; l < use_.size(); ++l)
    use_[l].byte_seconds += rate_[l] * std::max(0.0, t - used_at_);
  used_at_ = t;
}

std::vector<FabricUse> FleetFabric::use(double t)
{
  accumulate(t);
  return use_;
}

}  // namespace fleetsim::sim
