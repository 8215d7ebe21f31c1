#pragma once
// The derived figures of a single job's run that summary.json reports, computed here from the
// run's trace and the scenario's models/ inputs, so that the sinks (simulator/output/) only write
// them: the interruptions by cause against their expected counts, the checkpoint figures (the job's
// MTBF, Young's and Daly's intervals for the checkpoint's cost, the drains of asynchronous writes)
// and the step time averaged over training.

#include "trace_records.hpp"

#include "models/core/units.hpp"
#include "models/resilience/failure_model.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fleetsim::models {

struct InterruptionSummary {
  std::vector<std::pair<std::string, long>> by_cause;           // every scenario cause, in its order
  std::vector<std::pair<std::string, double>> expected_by_cause;  // the same causes' expected counts
  double expected_total = 0;
};

/// Unplanned interruptions by cause in `log`, and what the failure model expects of each cause on
/// `fleet` over `window`.
[[nodiscard]] InterruptionSummary summarize_interruptions(const TraceLog& log, const std::vector<FailureCause>& causes,
                                                          const FleetShape& fleet, units::Seconds window);

struct CheckpointFigures {
  std::optional<double> job_mtbf_s;  // none when no cause can fail the job
  std::optional<double> young_s;     // for the checkpoint's cost (the training pause)
  std::optional<double> daly_s;
  long drains = 0;  // asynchronous writes that drained after their pause
  double mean_drain_s = 0;
  double max_drain_s = 0;
};

/// The checkpoint figures of a run whose checkpoints cost training `pause_s` each.
[[nodiscard]] CheckpointFigures summarize_checkpoints(const TraceLog& log, const std::vector<FailureCause>& causes,
                                                      const FleetShape& fleet, double pause_s);

/// The step time averaged over the time spent training (it changes with the fleet's state);
/// `fallback` when the run never trained.
[[nodiscard]] double mean_training_step_time(const TraceLog& log, double fallback);

}  // namespace fleetsim::models
