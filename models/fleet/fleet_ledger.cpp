#include "fleet_ledger.hpp"

#include "models/core/invariant.hpp"

#include <algorithm>
#include <cmath>

namespace fleetsim::models::fleet {

void check_closes(const GpuTime& g, const std::string& whose)
{
  const bool closes = std::fabs(g.allocated - g.productive - g.lost_total()) <= 1e-6 * std::max(1.0, g.allocated);
  check_invariant(closes, "GPU time: allocated = productive + lost by cause", [&] {
    return whose + ": allocated " + std::to_string(g.allocated) + " GPU-s, productive " + std::to_string(g.productive) +
           ", lost " + std::to_string(g.lost_total());
  });
}

void check_allocated(const GpuTime& fleet, const FleetTimeline& timeline)
{
  const double held = timeline.integral(kAllocated);
  check_invariant(std::fabs(fleet.allocated - held) <= 1e-9 * std::max(1.0, held),
                  "GPU time: allocated = the timeline's GPUs held", [&] {
                    return "the ledger's jobs held " + std::to_string(fleet.allocated) +
                           " GPU-s, the timeline's gpus_allocated column integrates to " + std::to_string(held);
                  });
}

const char* timeline_column_name(int column)
{
  static const char* const names[kTimelineColumns] = {
      "gpus_allocated", "gpus_training", "gpus_idle",    "gpus_spare",         "gpus_down",
      "demand_waiting", "jobs_running",  "jobs_waiting", "idle_while_waiting",
  };
  return column >= 0 && column < kTimelineColumns ? names[column] : "";
}

FleetTimeline::FleetTimeline(double horizon, double interval)
    : horizon_(horizon),
      interval_(interval > 0 ? interval : std::max(horizon, 1.0)),
      rows_(static_cast<size_t>(std::max(1.0, std::ceil(horizon / interval_)))),
      sum_(rows_ * kTimelineColumns, 0.0)
{}

double FleetTimeline::row_length(size_t i) const { return std::min(horizon_, row_start(i) + interval_) - row_start(i); }

void FleetTimeline::add(int column, double a, double b, double amount)
{
  a = std::max(a, 0.0);
  b = std::min(b, horizon_);
  if (!(b > a) || amount == 0)
    return;
  auto first = static_cast<size_t>(a / interval_);
  for (size_t i = std::min(first, rows_ - 1); i < rows_; ++i) {
    const double lo = std::max(a, row_start(i));
    const double hi = std::min(b, row_start(i) + interval_);
    if (hi <= lo) {
      if (row_start(i) >= b)
        break;
      continue;
    }
    sum_[i * kTimelineColumns + static_cast<size_t>(column)] += amount * (hi - lo);
  }
}

void FleetTimeline::level(int column, double value, double t)
{
  const auto c = static_cast<size_t>(column);
  if (value == value_[c])
    return;
  add(column, last_t_[c], t, value_[c]);
  last_t_[c] = std::max(last_t_[c], t);
  value_[c] = value;
}

void FleetTimeline::finish(double horizon)
{
  for (int c = 0; c < kTimelineColumns; ++c) {
    add(c, last_t_[c], horizon, value_[c]);
    last_t_[c] = horizon;
  }
}

double FleetTimeline::mean(int column, size_t i) const
{
  const double len = row_length(i);
  return len > 0 ? sum_[i * kTimelineColumns + static_cast<size_t>(column)] / len : 0;
}

double FleetTimeline::integral(int column) const
{
  double s = 0;
  for (size_t i = 0; i < rows_; ++i)
    s += sum_[i * kTimelineColumns + static_cast<size_t>(column)];
  return s;
}

}  // namespace fleetsim::models::fleet
