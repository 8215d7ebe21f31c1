#include "fleet_accounts.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::models::fleet {

FleetAccounts::FleetAccounts(int loss_causes, double horizon, double timeline_interval,
                             const energy::CarbonProfile& carbon)
    : loss_causes_(loss_causes), carbon_(carbon), timeline_(horizon, timeline_interval)
{
  total_.lost.assign(static_cast<size_t>(loss_causes_), 0);
}

void FleetAccounts::open(JobRecord& r) const { r.time.lost.assign(static_cast<size_t>(loss_causes_), 0); }

void FleetAccounts::charge(JobRecord& r, int cause, double gpu_seconds)
{
  if (gpu_seconds <= 0)
    return;
  r.time.charge(cause, gpu_seconds);
  total_.charge(cause, gpu_seconds);
}

void FleetAccounts::productive(JobRecord& r, double gpu_seconds)
{
  if (gpu_seconds <= 0)
    return;
  r.time.productive += gpu_seconds;
  total_.productive += gpu_seconds;
}

void FleetAccounts::allocated(JobRecord& r, double a, double b)
{
  const double gs = static_cast<double>(r.held) * (b - a);
  r.time.allocated += gs;
  total_.allocated += gs;
  if (!carbon_.empty())
    r.allocated_gpu_s_ci += static_cast<double>(r.held) * carbon_.integral_hours(a, b) * energy::kSecondsPerHour;
}

void FleetAccounts::training(JobRecord& r, const Segment& seg, double t_end)
{
  const double g = static_cast<double>(r.held);
  const double a = seg.t0 + seg.restart;
  const double w = timeline_.interval();
  for (double lo = a; lo < t_end;) {
    const double hi = std::min(t_end, (std::floor(lo / w) + 1) * w);
    const double dw = segment_at(seg, hi).work - segment_at(seg, lo).work;
    if (hi > lo && dw > 0) {
      timeline_.add(kTraining, lo, hi, g * dw / (hi - lo));
      // The job's share of the row's training, at the row piece's mean intensity (as the timeline,
      // which spreads the piece's work evenly over it).
      r.training_gpu_s += g * dw;
      if (!carbon_.empty())
        r.training_gpu_s_ci += g * dw * carbon_.mean(lo, hi);
    }
    lo = hi;
  }
}

void FleetAccounts::training_span(JobRecord& r, double a, double b, double gpus)
{
  const double w = timeline_.interval();
  for (double lo = a; lo < b;) {
    const double hi = std::min(b, (std::floor(lo / w) + 1) * w);
    if (hi > lo && gpus > 0) {
      timeline_.add(kTraining, lo, hi, gpus);
      r.training_gpu_s += gpus * (hi - lo);
      if (!carbon_.empty())
        r.training_gpu_s_ci += gpus * (hi - lo) * carbon_.mean(lo, hi);
    }
    lo = hi;
  }
}

}  // namespace fleetsim::models::fleet
