#include "failure_model.hpp"

#include <algorithm>

#include <cassert>
#include <limits>

namespace fleetsim::models {

std::string_view scope_name(Scope s)
{
  switch (s) {
    case Scope::Gpu: return "gpu";
    case Scope::Node: return "node";
    case Scope::Link: return "link";
    case Scope::Rack: return "rack";
    case Scope::Pod: return "pod";
    case Scope::Storage: return "storage";
    case Scope::Job: return "job";
  }
  return "?";
}

std::optional<Scope> scope_from_name(std::string_view name)
{
  for (Scope s : {Scope::Gpu, Scope::Node, Scope::Link, Scope::Rack, Scope::Pod, Scope::Storage, Scope::Job})
    if (scope_name(s) == name)
      return s;
  return std::nullopt;
}

long component_count(Scope scope, const FleetShape& fleet)
{
  assert(fleet.gpus > 0 && fleet.gpus_per_node > 0 && fleet.gpus_per_rack > 0);
  switch (scope) {
    case Scope::Gpu: return fleet.gpus;
    case Scope::Node:
    case Scope::Link: return (fleet.gpus + fleet.gpus_per_node - 1) / fleet.gpus_per_node;
    case Scope::Rack: return (fleet.gpus + fleet.gpus_per_rack - 1) / fleet.gpus_per_rack;
    case Scope::Pod: {
      const long pod = fleet.gpus_per_pod > 0 ? fleet.gpus_per_pod : fleet.gpus;
      return (fleet.gpus + pod - 1) / pod;
    }
    case Scope::Storage:
    case Scope::Job: return 1;
  }
  return 1;
}

GpuRange blast_radius(Scope scope, long index, const FleetShape& fleet)
{
  long size = 1;
  switch (scope) {
    case Scope::Gpu: size = 1; break;
    case Scope::Node:
    case Scope::Link: size = fleet.gpus_per_node; break;
    case Scope::Rack: size = fleet.gpus_per_rack; break;
    case Scope::Pod: size = fleet.gpus_per_pod > 0 ? fleet.gpus_per_pod : fleet.gpus; break;
    case Scope::Storage:
    case Scope::Job: return {0, fleet.gpus};
  }
  const long first = index * size;
  return {first, std::max(0L, std::min(size, fleet.gpus - first))};
}

double fleet_rate_per_second(const FailureCause& cause, const FleetShape& fleet)
{
  if (cause.component_mtbf) {
    assert(cause.component_mtbf->si() > 0);
    return static_cast<double>(component_count(cause.scope, fleet)) / cause.component_mtbf->si();
  }
  assert(cause.count && cause.reference_window.si() > 0 && cause.reference_gpus > 0);
  double rate = *cause.count / cause.reference_window.si();
  if (cause.scales_with_fleet)
    rate *= static_cast<double>(fleet.gpus) / static_cast<double>(cause.reference_gpus);
  return rate;
}

double expected_count(const FailureCause& cause, const FleetShape& fleet, units::Seconds window)
{
  return fleet_rate_per_second(cause, fleet) * window.si();
}

units::Seconds job_mtbf(const std::vector<FailureCause>& causes, const FleetShape& fleet)
{
  double rate = 0;
  for (const auto& c : causes)
    rate += fleet_rate_per_second(c, fleet);
  return units::Seconds(rate > 0 ? 1.0 / rate : std::numeric_limits<double>::infinity());
}

}  // namespace fleetsim::models
