#include "failure_model.hpp"

#include "models/core/check.hpp"

#include <algorithm>

#include <limits>

namespace fleetsim::models {

double fleet_rate_per_second(const FailureCause& cause, const FleetShape& fleet)
{
  if (cause.component_mtbf) {
    FLEETSIM_CHECK(cause.component_mtbf->si() > 0, "a component mtbf is positive (the loader checks it)");
    return static_cast<double>(component_count(cause.scope, fleet)) / cause.component_mtbf->si();
  }
  FLEETSIM_CHECK(cause.count && cause.reference_window.si() > 0 && cause.reference_gpus > 0, "a cause given by count has a positive window and GPU count (the loader checks it)");
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
