#include "run_plan.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <string>

namespace fleetsim::models {

long steps_per_checkpoint(units::Seconds interval, units::Seconds step_time)
{
  assert(step_time.si() > 0);
  return std::max(1L, std::lround(interval.si() / step_time.si()));
}

double uniform_arrival_time(long k, double rate)
{
  assert(rate > 0);
  return (static_cast<double>(k) + 0.5) / rate;
}

double rate_per_second(double count, units::Seconds window)
{
  assert(window.si() > 0);
  return count / window.si();
}

units::Seconds checkpoint_write_time(units::Bytes bytes, units::BytesPerSecond write_bandwidth,
                                     units::Seconds overhead)
{
  assert(write_bandwidth.si() > 0);
  return overhead + bytes / write_bandwidth;
}

units::Seconds detection_delay(const FailureCause& cause, units::Seconds fallback, units::Seconds watchdog)
{
  return cause.detection.value_or(cause.hang ? watchdog : fallback);
}

std::string component_label(Scope scope, long index)
{
  if (scope == Scope::Job)
    return "job";
  if (scope == Scope::Storage)
    return "storage";
  return std::string(scope_name(scope)) + ":" + std::to_string(index);
}

}  // namespace fleetsim::models
