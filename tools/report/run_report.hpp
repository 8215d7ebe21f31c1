#pragma once
// The report of one run: DIR/summary.json, DIR/timeline.csv, DIR/events.csv and, when present,
// DIR/storage.csv (as `fleetsim run --out DIR` writes them) turned into one self-contained HTML page,
// with the energy section when timeline.csv and summary.json carry the power model's outputs.

#include "simulator/metrics/metric_registry.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace fleetsim::report {

/// The colour of a phase or time-breakdown component (training and productive share one).
[[nodiscard]] std::string state_color(const std::string& state, std::size_t fallback_index);

/// Per pixel column of a window [0, t_end) cut into `columns` equal slices, the share of each state.
struct StateColumns {
  std::vector<std::string> states;         // known phases first in their usual order, then others
  std::vector<std::vector<double>> share;  // share[column][state], each column sums to <= 1
};
struct StateSegment {
  double t_begin = 0;
  double t_end = 0;
  std::string state;
};
[[nodiscard]] StateColumns state_columns(const std::vector<StateSegment>& segments, double t_end, int columns);

/// The "Metrics" section of a run's or a fleet's page: each of `shown` (metrics of the registry,
/// simulator/metrics/metric_registry.hpp) that the summary has a value for, as compare.csv and a
/// sweep's results.csv would show it.
[[nodiscard]] std::string metrics_section(const nlohmann::ordered_json& summary,
                                          const std::vector<const metrics::Metric*>& shown);

/// The HTML report of the run in `dir`. Throws InputError on a missing or malformed file.
[[nodiscard]] std::string run_report_html(const std::string& dir);

}  // namespace fleetsim::report
