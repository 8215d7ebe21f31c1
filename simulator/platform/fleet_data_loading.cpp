#include "fleet_data_loading.hpp"

#include "models/fleet/shared_speed.hpp"

#include <algorithm>

namespace fleetsim::sim {

namespace sg4 = simgrid::s4u;
namespace mf = models::fleet;

FleetDataLoading::FleetDataLoading(StorageSystem& storage, std::map<long, std::pair<int, double>> readers,
                                   double horizon)
    : storage_(storage), readers_(std::move(readers)), horizon_(horizon)
{}

void FleetDataLoading::snapshot(double t)
{
  for (auto& [job, f] : flows_)
    f.snapshot = f.comm->get_remaining();
  changed_at_ = t;
  due_ = flows_.empty() ? std::nullopt : std::optional<double>(t + kMeasure);
}

void FleetDataLoading::changed(double t)
{
  if (flows_.empty())
    return;
  if (t > changed_at_)
    read(t);  // the rates since the last change hold until now
  snapshot(t);
}

void FleetDataLoading::read(double t)
{
  const double dt = t - changed_at_;
  if (!(dt > 0))
    return;
  for (auto& [job, f] : flows_) {
    const double rate = readers_.at(job).second;
    const double got = (f.snapshot - f.comm->get_remaining()) / dt;
    ratios_[job] = mf::data_ratio(got, rate);
  }
  due_.reset();
}

void FleetDataLoading::update(mf::FleetState& fleet, double t, const std::vector<long>& placement_changes)
{
  for (const auto& [job, ratio] : ratios_)
    if (std::find(placement_changes.begin(), placement_changes.end(), job) == placement_changes.end())
      fleet.set_data_ratio(job, ratio, t);
  ratios_.clear();
  bool moved = false;
  for (long job : placement_changes) {
    const auto reader = readers_.find(job);
    if (reader == readers_.end())
      continue;
    const bool holds = !fleet.placement_of(job).parts.empty();
    const auto it = flows_.find(job);
    if (holds == (it != flows_.end()))
      continue;  // (moved in place: its reader stays)
    if (t > changed_at_ && due_)
      read(t);
    moved = true;
    if (!holds) {
      it->second.comm->cancel();
      flows_.erase(it);
      continue;
    }
    Flow f;
    f.comm = sg4::Comm::sendto_init();
    f.comm->set_source(storage_.host());
    f.comm->set_destination(storage_.client_host(reader->second.first));
    // Never done within the window: it moves at most its rate.
    f.comm->set_payload_size(static_cast<uint64_t>(2 * reader->second.second * (horizon_ + 1)));
    f.comm->start();
    flows_[job] = std::move(f);
  }
  if (moved)
    snapshot(t);
}

}  // namespace fleetsim::sim
