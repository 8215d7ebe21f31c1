#pragma once
// How fast a fleet job trains on shared resources (docs/models/fleet.md, "A shared fabric"), as
// SimGrid-free arithmetic: the simulator reads the rates SimGrid gives the job's flows
// (simulator/platform/fleet_fabric.hpp, fleet_data_loading.hpp) and these turn them into speeds.

#include <algorithm>

namespace fleetsim::models::fleet {

/// A rate within this relative precision of what a flow could get counts as all of it (the rates
/// are read back from SimGrid's remaining bytes): a job alone keeps exactly its isolated speed.
inline constexpr double kRateTolerance = 1e-6;

/// A job whose slowest ring hop gets `slowest` of the `nic` bytes/s it gets alone communicates
/// k = nic / slowest times as long; with `comm_fraction` f of its isolated step scale-out
/// communication (its overlap held as it is), its step takes 1 + f (k - 1) times as long.
[[nodiscard]] inline double fabric_slowdown(double nic, double slowest, double comm_fraction)
{
  const double k = nic / std::max(slowest, 1e-9 * nic);
  return k < 1 + kRateTolerance ? 1.0 : 1 + comm_fraction * (k - 1);
}

/// The share of its communicating time a job at `slowdown` spends communicating at the slower rate:
/// f k / (1 + f (k - 1)) of its wall time (for the fabric's utilisation).
[[nodiscard]] inline double communicating_share(double nic, double slowest, double comm_fraction)
{
  const double k = std::max(1.0, nic / std::max(slowest, 1e-9 * nic));
  return comm_fraction * k / fabric_slowdown(nic, slowest, comm_fraction);
}

/// A job whose data flow gets `got` of the `rate` bytes/s it reads at full speed trains at most at
/// that share (its prefetch hides bursts, not a rate it never gets).
[[nodiscard]] inline double data_ratio(double got, double rate)
{
  return got >= rate * (1 - kRateTolerance) ? 1.0 : std::max(got / rate, 1e-9);
}

}  // namespace fleetsim::models::fleet
