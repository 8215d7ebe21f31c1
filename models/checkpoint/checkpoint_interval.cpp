#include "checkpoint_interval.hpp"

#include "models/core/check.hpp"

#include <cmath>

namespace fleetsim::models {

units::Seconds young_interval(units::Seconds delta, units::Seconds mtbf)
{
  FLEETSIM_CHECK(delta.si() >= 0.0, "checkpoint time must be non-negative");
  FLEETSIM_CHECK(mtbf.si() > 0.0, "mtbf must be positive");
  return units::Seconds(std::sqrt(2.0 * delta.si() * mtbf.si()));
}

units::Seconds daly_interval(units::Seconds delta, units::Seconds mtbf)
{
  FLEETSIM_CHECK(delta.si() >= 0.0, "checkpoint time must be non-negative");
  FLEETSIM_CHECK(mtbf.si() > 0.0, "mtbf must be positive");
  const double d = delta.si();
  const double m = mtbf.si();
  if (d >= 2.0 * m)
    return mtbf;
  const double x = d / (2.0 * m);
  const double tau = std::sqrt(2.0 * d * m) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - d;
  return units::Seconds(tau);
}

double daly_useful_fraction(units::Seconds tau, units::Seconds delta, units::Seconds restart, units::Seconds mtbf)
{
  FLEETSIM_CHECK(tau.si() > 0.0, "checkpoint interval must be positive");
  FLEETSIM_CHECK(delta.si() >= 0.0 && restart.si() >= 0.0, "times must be non-negative");
  FLEETSIM_CHECK(mtbf.si() > 0.0, "mtbf must be positive");
  const double m = mtbf.si();
  // expm1 keeps the M -> infinity limit accurate: M (e^{x/M} - 1) -> x.
  const double wall_per_interval = m * std::exp(restart.si() / m) * std::expm1((tau.si() + delta.si()) / m);
  return tau.si() / wall_per_interval;
}

}  // namespace fleetsim::models
