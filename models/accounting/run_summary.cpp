#include "run_summary.hpp"

#include "models/checkpoint/checkpoint_interval.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace fleetsim::models {

InterruptionSummary summarize_interruptions(const TraceLog& log, const std::vector<FailureCause>& causes,
                                            const FleetShape& fleet, units::Seconds window)
{
  std::map<std::string, long> counts;
  for (const auto& rec : log)
    if (const auto* in = std::get_if<Interruption>(&rec); in && !in->planned)
      counts[in->cause]++;
  InterruptionSummary s;
  for (const auto& c : causes) {
    s.by_cause.emplace_back(c.name, counts[c.name]);
    const double e = expected_count(c, fleet, window);
    s.expected_by_cause.emplace_back(c.name, e);
    s.expected_total += e;
  }
  return s;
}

CheckpointFigures summarize_checkpoints(const TraceLog& log, const std::vector<FailureCause>& causes,
                                        const FleetShape& fleet, double pause_s)
{
  CheckpointFigures f;
  const units::Seconds mtbf = job_mtbf(causes, fleet);
  if (std::isfinite(mtbf.si())) {
    const units::Seconds delta(pause_s);  // the training time a checkpoint costs
    f.job_mtbf_s = mtbf.si();
    f.young_s = young_interval(delta, mtbf).si();
    f.daly_s = daly_interval(delta, mtbf).si();
  }
  double sum = 0;
  for (const auto& rec : log)
    if (const auto* c = std::get_if<CheckpointCommitted>(&rec); c != nullptr && c->drain_s > 0) {
      ++f.drains;
      sum += c->drain_s;
      f.max_drain_s = std::max(f.max_drain_s, c->drain_s);
    }
  if (f.drains > 0)
    f.mean_drain_s = sum / static_cast<double>(f.drains);
  return f;
}

double mean_training_step_time(const TraceLog& log, double fallback)
{
  double training = 0;
  double weighted = 0;
  for (const auto& rec : log)
    if (const auto* seg = std::get_if<PhaseSegment>(&rec); seg && seg->phase == Phase::Training) {
      training += seg->t_end - seg->t_begin;
      weighted += (seg->t_end - seg->t_begin) * seg->step_time;
    }
  return training > 0 ? weighted / training : fallback;
}

}  // namespace fleetsim::models
