#include "stragglers.hpp"

#include "models/core/units.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::models {

long persistent_stragglers(const StragglerSpec& s, long workers)
{
  return std::lround(s.persistent_fraction * static_cast<double>(workers));
}

double step_speed(const StragglerSpec& s, double host_speed, bool transient)
{
  return transient ? std::min(host_speed, s.transient_speed) : host_speed;
}

double probability_step_slowed(double q, long workers)
{
  // log1p keeps tiny q accurate at large k.
  return q >= 1 ? 1.0 : -std::expm1(static_cast<double>(workers) * std::log1p(-q));
}

double expected_step_factor(const StragglerSpec& s, long workers, double compute_fraction)
{
  const double slowest = persistent_stragglers(s, workers) >= 1 ? s.persistent_speed : 1.0;
  return step_factor(s, workers, compute_fraction, slowest, 1.0);
}

double step_factor(const StragglerSpec& s, long workers, double compute_fraction, double slowest_speed,
                   double clock_speed)
{
  const double base = 1.0 / (slowest_speed * clock_speed);
  const double slowed = probability_step_slowed(s.transient_probability, workers);
  const double inverse_speed = (1 - slowed) * base + slowed * std::max(base, 1.0 / (s.transient_speed * clock_speed));
  return (1 - compute_fraction) + compute_fraction * inverse_speed;
}

double diurnal_speed(const StragglerSpec& s, double t)
{
  if (!(s.diurnal_amplitude > 0))
    return 1.0;
  constexpr double kTwoPi = 6.283185307179586;
  return 1.0 - s.diurnal_amplitude * (1.0 + std::cos(kTwoPi * (t - s.diurnal_peak) / units::kDay)) / 2.0;
}

}  // namespace fleetsim::models
