#pragma once
// The checkpoints section of the run report: events.csv's `checkpoint` rows (the training pauses),
// `checkpoint_drained` rows (asynchronous writes finishing) and `checkpoint_corrupt` rows, with the
// strategy and interval policy of summary.json's "checkpoints", as a table and durations over time.

#include "report_inputs.hpp"
#include "svg_chart.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace fleetsim::report {

struct CheckpointEvents {
  std::vector<XY> pauses;  // (start s, pause s) of the pauses that completed, in file order
  std::size_t taken = 0;   // every `checkpoint` row, interrupted and cut by the window's end too
  std::size_t interrupted = 0;
  std::size_t window_end = 0;
  std::vector<XY> drains;  // (snapshot s, drain s): the write began at its snapshot
  std::size_t corrupt = 0;
};

/// The checkpoint rows of events.csv (columns time_s, event, duration_s, outcome). Throws InputError.
[[nodiscard]] CheckpointEvents checkpoint_events(const CsvTable& events);

/// The `q` quantile of `v` (0 <= q <= 1), interpolated between the nearest ranks; 0 when empty.
[[nodiscard]] double quantile(std::vector<double> v, double q);

/// The table and the pause (and drain) durations against time over [0, t_end]. Starts with its <h2>.
[[nodiscard]] std::string checkpoints_section(const CheckpointEvents& ev, const nlohmann::ordered_json& summary,
                                              const std::string& summary_name, double t_end);

}  // namespace fleetsim::report
