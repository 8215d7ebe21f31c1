#include "replayed_time.hpp"

namespace fleetsim::models::fleet {

ReplayedTime replayed_time(const GoodputReport& report)
{
  ReplayedTime t;
  t.productive_s = report.goodput_s;
  t.progress_s = report.goodput_s;
  for (const auto& [cause, seconds] : report.lost_by_cause)  // (a std::map: in name order)
    if (seconds > 0)
      t.lost_s.emplace_back(cause, seconds);
  for (const auto& [cause, seconds] : report.queued_by_cause)
    if (seconds > 0)
      t.queued_s.emplace_back(cause, seconds);
  for (const TimelineRow& row : report.timeline)
    if (row.phase == Phase::Training && row.t_end > row.t_begin)
      t.training.push_back({row.t_begin, row.t_end, row.active_gpus});
  t.interruptions = report.unexpected;
  return t;
}

}  // namespace fleetsim::models::fleet
